package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
}
