package io.lazysession.serializer.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.ClassAllowList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClassAllowListTest {

  @ParameterizedTest
  @ValueSource(strings = {"java.lang.String", "java.lang.Integer", "java.util.ArrayList",
      "java.util.ImmutableCollections$ListN", "java.util.Collections$UnmodifiableRandomAccessList",
      "java.util.HashMap$Node", "java.time.LocalDateTime", "java.time.Ser", "java.math.BigDecimal",
      "java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.atomic.AtomicLong",
      "[Ljava.lang.String;", "[[I", "[B", "int", "java.time.zone.ZoneRules"})
  void isAllowed_jdkValueType_true(String className) {
    assertThat(ClassAllowList.jdkOnly().isAllowed(className)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"java.lang.reflect.Proxy", "java.lang.invoke.SerializedLambda",
      "java.lang.ProcessBuilder", "java.lang.Runtime", "java.lang.Thread", "java.lang.ClassLoader",
      "java.lang.ProcessBuilder$Redirect", "java.util.concurrent.ThreadPoolExecutor",
      "java.util.logging.Logger", "java.net.URL", "javax.management.BadAttributeValueExpException",
      "com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl",
      "org.apache.commons.collections.functors.InvokerTransformer", "sun.misc.Unsafe",
      "[Lcom.example.Evil;", "[Q", "[L;", "com.example.shop.Cart", "java.langx.Foo", "javax.Foo"})
  void isAllowed_otherClass_false(String className) {
    assertThat(ClassAllowList.jdkOnly().isAllowed(className)).isFalse();
  }

  @Test
  void allowPackage_allowsPackageAndSubpackagesOnly() {
    ClassAllowList list = ClassAllowList.builder().allowPackage("com.example.shop").build();

    assertThat(list.isAllowed("com.example.shop.Cart")).isTrue();
    assertThat(list.isAllowed("com.example.shop.model.Cart$Item")).isTrue();
    assertThat(list.isAllowed("[Lcom.example.shop.Cart;")).isTrue();
    assertThat(list.isAllowed("com.example.shopping.Cart")).isFalse();
    assertThat(list.isAllowed("com.example.Other")).isFalse();
    assertThat(list.packages()).containsExactly("com.example.shop");
  }

  @Test
  void builder_copiesAndIgnoresLaterChanges() {
    ClassAllowList.Builder builder = ClassAllowList.builder().allowPackages(List.of("a.b", "c.d.*"));
    ClassAllowList first = builder.build();
    builder.allowPackage("e.f");

    assertThat(first.packages()).containsExactly("a.b", "c.d");
    assertThat(builder.build().packages()).containsExactly("a.b", "c.d", "e.f");
    assertThat(ClassAllowList.builder().build()).isSameAs(ClassAllowList.jdkOnly());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", ".com", "com.", "com..example"})
  void allowPackage_malformed_throwsNamingParameter(String packageName) {
    assertThatThrownBy(() -> ClassAllowList.builder().allowPackage(packageName))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("packageName");
  }
}
