package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

class RepositoryFactoryTest {
  @Test
  void sessionTimeout_bareNumber_isSecondsAsInSpringBoot() {
    Duration timeout = RepositoryFactory.sessionTimeout(new MockEnvironment()
        .withProperty("spring.session.timeout", "1800"));

    assertThat(timeout).isEqualTo(Duration.ofMinutes(30));
  }

  @Test
  void sessionTimeout_servletTimeoutBareNumber_isSeconds() {
    Duration timeout = RepositoryFactory.sessionTimeout(new MockEnvironment()
        .withProperty("server.servlet.session.timeout", "900"));

    assertThat(timeout).isEqualTo(Duration.ofMinutes(15));
  }

  @Test
  void sessionTimeout_withUnit_keepsTheUnit() {
    Duration timeout = RepositoryFactory.sessionTimeout(new MockEnvironment()
        .withProperty("spring.session.timeout", "45m")
        .withProperty("server.servlet.session.timeout", "10m"));

    assertThat(timeout).isEqualTo(Duration.ofMinutes(45));
  }

  @Test
  void sessionTimeout_nothingSet_isThirtyMinutes() {
    assertThat(RepositoryFactory.sessionTimeout(new MockEnvironment()))
        .isEqualTo(Duration.ofMinutes(30));
  }
}
