package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.session.FlushMode;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.mock.env.MockEnvironment;

class SpringSessionRedisPropertiesTest {
  private static Binder binder(String... keyValues) {
    MockEnvironment environment = new MockEnvironment();
    for (int i = 0; i < keyValues.length; i += 2) {
      environment.setProperty(keyValues[i], keyValues[i + 1]);
    }
    return Binder.get(environment);
  }

  private static String check(String... keyValues) {
    MockEnvironment environment = new MockEnvironment();
    for (int i = 0; i < keyValues.length; i += 2) {
      environment.setProperty(keyValues[i], keyValues[i + 1]);
    }
    return SpringSessionRedisProperties.check(Binder.get(environment),
        LazySessionProperties.bind(environment).namespace());
  }

  @Test
  void check_nothingSet_keepsLazysessionNamespace() {
    assertThat(check()).isEqualTo("lazysession");
  }

  @Test
  void check_springSessionNamespace_isUsed() {
    assertThat(check("spring.session.data.redis.namespace", "spring:session"))
        .isEqualTo("spring:session");
  }

  @Test
  void check_bothNamespacesDiffer_failsNamingBoth() {
    assertThatThrownBy(() -> check("spring.session.data.redis.namespace", "a",
        "lazysession.namespace", "b"))
        .isInstanceOf(LazySessionConfigurationException.class)
        .hasMessageContaining("spring.session.data.redis.namespace")
        .hasMessageContaining("lazysession.namespace");
  }

  @Test
  void check_flushModeOnSave_isAccepted() {
    assertThat(check("spring.session.data.redis.flush-mode", "on_save")).isEqualTo("lazysession");
  }

  @Test
  void flushMode_immediate_isImmediate() {
    assertThat(SpringSessionRedisProperties.flushMode(binder(
        "spring.session.data.redis.flush-mode", "IMMEDIATE"))).isEqualTo(FlushMode.IMMEDIATE);
    assertThat(SpringSessionRedisProperties.flushMode(binder())).isEqualTo(FlushMode.ON_SAVE);
  }

  @Test
  void flushMode_unknown_failsNamingThePropertyAndTheValues() {
    assertThatThrownBy(() -> SpringSessionRedisProperties.flushMode(binder(
        "spring.session.data.redis.flush-mode", "lazy")))
        .isInstanceOfSatisfying(LazySessionConfigurationException.class, e -> {
          assertThat(e.setting()).isEqualTo("spring.session.data.redis.flush-mode");
          assertThat(e.action()).contains("on-save or immediate");
        });
  }

  @Test
  void check_saveModeOnGetAttribute_isAccepted() {
    assertThat(check("spring.session.data.redis.save-mode", "on-get-attribute"))
        .isEqualTo("lazysession");
  }

  @Test
  void check_saveModeAlways_failsNamingTheProperty() {
    assertThatThrownBy(() -> check("spring.session.data.redis.save-mode", "always"))
        .isInstanceOfSatisfying(LazySessionConfigurationException.class,
            e -> assertThat(e.setting()).isEqualTo("spring.session.data.redis.save-mode"));
  }

  @Test
  void check_cleanupCron_failsPointingToCleanupInterval() {
    assertThatThrownBy(() -> check("spring.session.data.redis.cleanup-cron", "0 * * * * *"))
        .hasMessageContaining("lazysession.cleanup-interval");
  }
}
