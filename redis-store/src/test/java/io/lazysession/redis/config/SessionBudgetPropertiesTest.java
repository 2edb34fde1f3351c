package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.redis.SessionBudget;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** {@code lazysession.session-budget.*}: none by default, read as sizes, checked when bound. */
class SessionBudgetPropertiesTest {
  private static LazySessionProperties bind(String... keyValues) {
    MockEnvironment environment = new MockEnvironment();
    for (int i = 0; i < keyValues.length; i += 2) {
      environment.setProperty(keyValues[i], keyValues[i + 1]);
    }
    return LazySessionProperties.bind(environment);
  }

  @Test
  void bind_nothingSet_noBudget() {
    assertThat(bind().sessionBudget().toBudget()).isEqualTo(SessionBudget.NONE);
  }

  @Test
  void bind_bothSet_readAsBytes() {
    LazySessionProperties properties = bind("lazysession.session-budget.warn-bytes", "16KB",
        "lazysession.session-budget.max-bytes", "65536");

    assertThat(properties.sessionBudget().toBudget())
        .isEqualTo(new SessionBudget(16_384L, 65_536L));
  }

  @Test
  void bind_maxBytesZero_failsNamingTheProperty() {
    assertThatThrownBy(() -> bind("lazysession.session-budget.max-bytes", "0"))
        .rootCause().hasMessageStartingWith("lazysession.session-budget.max-bytes must be more than 0, was '0B'");
  }

  @Test
  void bind_warnBytesNegative_failsNamingTheProperty() {
    assertThatThrownBy(() -> bind("lazysession.session-budget.warn-bytes", "-1KB"))
        .rootCause().hasMessageStartingWith("lazysession.session-budget.warn-bytes must be more than 0, was '-1KB'");
  }

  @Test
  void property_namesAreTheContract() {
    assertThat(SessionBudget.WARN_PROPERTY).isEqualTo("lazysession.session-budget.warn-bytes");
    assertThat(SessionBudget.MAX_PROPERTY).isEqualTo("lazysession.session-budget.max-bytes");
  }
}
