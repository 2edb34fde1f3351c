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

  @Test
  void summary_defaults_saysTargetWithoutPasswordNamespaceCodecCompressionNearCacheAndAllowList() {
    RepositoryFactory.Request request = new RepositoryFactory.Request(
        RedisClusterClient.create("redis://127.0.0.1:1"),
        RedisConnectionSettings.urlTarget("redis://ada:s3cret@127.0.0.1:6390",
            "spring.data.redis.url"),
        "lazySessionRedisClient", AttributeSerializer.builder().build(),
        LazySessionProperties.bind(new MockEnvironment()), "lazysession", null,
        Duration.ofMinutes(30), RepositoryFactory.SESSION_TIMEOUT_NAME, event -> { }, List.of());
    try {
      assertThat(RepositoryFactory.summary(request, "enforce", null)).isEqualTo(
          "lazysession stores sessions in Redis at redis://127.0.0.1:6390 "
              + "(spring.data.redis.url), namespace 'lazysession'; codec kryo, compression zstd "
              + "level 3 from 256 bytes, near cache validate (64MB), allow-list enforce, "
              + "session timeout 30m; encryption off");
    } finally {
      request.client().shutdown();
    }
  }

  @Test
  void summary_ownClientNoCompressionTrackedCacheAuditMode_saysSo() {
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment()
        .withProperty("lazysession.compression", "none")
        .withProperty("lazysession.codec", "jdk")
        .withProperty("lazysession.near-cache.mode", "track"));
    RepositoryFactory.Request request = new RepositoryFactory.Request(
        RedisClusterClient.create("redis://127.0.0.1:1"), null, "lazySessionRedisClient",
        properties.serializer(List.of(), null), properties, "shop", null,
        Duration.ofMinutes(10), RepositoryFactory.SESSION_TIMEOUT_NAME, event -> { }, List.of());
    try {
      assertThat(RepositoryFactory.summary(request, "audit", null)).isEqualTo(
          "lazysession stores sessions in Redis at the application's lazySessionRedisClient "
              + "bean, namespace 'shop'; codec jdk, compression none, near cache track (64MB, "
              + "max staleness 500ms), allow-list audit, session timeout 10m; encryption off");
    } finally {
      request.client().shutdown();
    }
  }

  @Test
  void summary_nearCacheOff_saysOff() {
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment()
        .withProperty("lazysession.near-cache.max-bytes", "0"));
    RepositoryFactory.Request request = new RepositoryFactory.Request(
        RedisClusterClient.create("redis://127.0.0.1:1"), null, "lazySessionRedisClient",
        properties.serializer(List.of(), null), properties, "shop", null,
        Duration.ofMinutes(10), RepositoryFactory.SESSION_TIMEOUT_NAME, event -> { }, List.of());
    try {
      assertThat(RepositoryFactory.summary(request, "enforce", null)).contains(", near cache off,");
    } finally {
      request.client().shutdown();
    }
  }
}
