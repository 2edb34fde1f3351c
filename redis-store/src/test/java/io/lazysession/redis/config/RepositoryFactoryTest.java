package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.AttributeSerializer;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
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

  @Test
  void build_trackedNearCacheOnACluster_failsNamingTheProperty() {
    RedisClusterClient cluster = RedisClusterClient.create("redis://127.0.0.1:1");
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment()
        .withProperty("lazysession.near-cache.mode", "track"));
    try {
      assertThatThrownBy(() -> RepositoryFactory.build(new RepositoryFactory.Request(cluster, null,
          "lazySessionRedisClient", AttributeSerializer.builder().build(), properties,
          "lazysession", null, Duration.ofMinutes(30), RepositoryFactory.SESSION_TIMEOUT_NAME,
          event -> { }, List.of())))
          .isInstanceOfSatisfying(LazySessionConfigurationException.class,
              e -> assertThat(e.setting()).isEqualTo("lazysession.near-cache.mode"))
          .hasMessageContaining("Redis Cluster");
    } finally {
      cluster.shutdown();
    }
  }
}
