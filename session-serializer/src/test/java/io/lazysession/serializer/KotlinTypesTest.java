package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Kotlin standard library's value classes decode with no setting; its classes that hold code
 * (a lazy value's initializer, lambdas, function references, coroutines) or build something other
 * than a value (a regular expression, an enum's entries from a class) stay refused, and no
 * {@code kotlin} package is opened. Real Kotlin values on two nodes: {@code KotlinSessionValuesIT}
 * in module {@code it}.
 */
class KotlinTypesTest {
  @ParameterizedTest
  @ValueSource(strings = {"kotlin.Pair", "kotlin.Triple", "kotlin.collections.EmptyList",
      "kotlin.collections.EmptySet", "kotlin.collections.EmptyMap",
      "kotlin.collections.builders.SerializedCollection", "kotlin.collections.builders.SerializedMap",
      "kotlin.Result$Failure", "kotlin.InitializedLazyImpl", "kotlin.time.InstantSerialized",
      "kotlin.uuid.UuidSerialized", "[Lkotlin.Pair;"})
  void isAllowed_kotlinValueClass_allowedByDefault(String className) {
    assertThat(ClassAllowList.jdkOnly().isAllowed(className)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"kotlin.SynchronizedLazyImpl", "kotlin.SafePublicationLazyImpl",
      "kotlin.UnsafeLazyImpl", "kotlin.jvm.internal.Lambda", "kotlin.jvm.internal.FunctionReferenceImpl",
      "kotlin.jvm.internal.PropertyReference1Impl", "kotlin.jvm.internal.Ref$ObjectRef",
      "kotlin.coroutines.jvm.internal.BaseContinuationImpl", "kotlin.coroutines.CombinedContext",
      "kotlin.text.Regex", "kotlin.text.Regex$Serialized", "kotlin.enums.EnumEntriesSerializationProxy",
      "kotlin.random.XorWowRandom", "kotlin.collections.SomethingNew", "kotlin.Unit"})
  void isAllowed_kotlinClassHoldingCodeOrNotAValue_refusedByDefault(String className) {
    assertThat(ClassAllowList.jdkOnly().isAllowed(className)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"kotlin.SynchronizedLazyImpl", "kotlin.jvm.internal.Lambda",
      "kotlin.coroutines.CombinedContext", "kotlin.reflect.KVariance"})
  void isAllowed_kotlinClassHoldingCode_refusedWithKotlinAllowedAndInAuditMode(String className) {
    ClassAllowList kotlinAllowed = ClassAllowList.builder().allowPackage("kotlin").build();
    ClassAllowList audit = ClassAllowList.builder().mode(ClassAllowList.Mode.AUDIT).build();

    assertThat(kotlinAllowed.isAllowed(className)).isFalse();
    assertThat(audit.isAllowed(className)).isFalse();
    assertThat(kotlinAllowed.isAllowed("kotlin.text.Regex")).isTrue();
  }

  /**
   * Met in the log when a {@code by lazy} property makes Kryo hand the value to Java serialization:
   * it must not advise opening the {@code kotlin} package.
   */
  @Test
  void refusal_lazyWithItsInitializer_saysNoSettingAllowsIt() {
    assertThat(new ClassNotAllowedException("kotlin.SynchronizedLazyImpl").getMessage())
        .isEqualTo("class kotlin.SynchronizedLazyImpl is not allowed: it is behaviour, not data, and "
            + "no setting allows it to be stored or decoded; keep it out of the session");
  }
}
