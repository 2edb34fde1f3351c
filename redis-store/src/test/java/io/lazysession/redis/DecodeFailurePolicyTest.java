package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.ClassNotAllowedException;
import io.lazysession.serializer.CorruptDataException;
import io.lazysession.serializer.SerializationException;
import io.lazysession.serializer.UnknownDictionaryException;
import java.io.InvalidClassException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DecodeFailurePolicyTest {
  @ParameterizedTest
  @EnumSource(DecodeFailurePolicy.class)
  void fromProperty_propertyValue_roundTrips(DecodeFailurePolicy policy) {
    assertThat(DecodeFailurePolicy.fromProperty(policy.propertyValue())).isEqualTo(policy);
  }

  @Test
  void fromProperty_enumStyleAndCase_isAccepted() {
    assertThat(DecodeFailurePolicy.fromProperty(" INVALIDATE_SESSION "))
        .isEqualTo(DecodeFailurePolicy.INVALIDATE_SESSION);
  }

  @Test
  void fromProperty_unknownValue_namesPropertyAndAcceptedValues() {
    assertThatThrownBy(() -> DecodeFailurePolicy.fromProperty("ignore"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lazysession.on-decode-failure must be 'drop-attribute', "
            + "'invalidate-session' or 'fail', was 'ignore'");
  }

  @Test
  void readableElsewhere_classOrDictionaryThisNodeLacks_keepsTheBytes() {
    assertThat(DecodeFailurePolicy.readableElsewhere(new ClassNotAllowedException("a.B"))).isTrue();
    assertThat(DecodeFailurePolicy.readableElsewhere(new UnknownDictionaryException(7))).isTrue();
    assertThat(DecodeFailurePolicy.readableElsewhere(new CorruptDataException(
        "Kryo payload cannot be decoded", new RuntimeException("Unable to find class: a.B",
            new ClassNotFoundException("a.B"))))).isTrue();
    assertThat(DecodeFailurePolicy.readableElsewhere(new CorruptDataException(
        "JDK payload cannot be decoded", new InvalidClassException("a.B", "serialVersionUID"))))
        .isTrue();
  }

  @Test
  void readableElsewhere_anyFailureButCorruptData_keepsTheBytes() {
    assertThat(DecodeFailurePolicy.readableElsewhere(
        new SerializationException("Enum value not found: SHIPPED"))).isTrue();
  }

  @Test
  void readableElsewhere_corruptBytes_deletesThem() {
    assertThat(DecodeFailurePolicy.readableElsewhere(
        new CorruptDataException("envelope header is truncated"))).isFalse();
  }
}
