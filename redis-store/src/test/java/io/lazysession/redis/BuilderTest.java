package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The builder's fail-fast checks; none of these connect to Redis. */
class BuilderTest {
  static final RedisClient client = RedisClient.create("redis://127.0.0.1:1");

  @AfterAll
  static void shutdown() {
    client.shutdown();
  }

  @Test
  void namespace_withBrace_failsNamingTheParameter() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client).namespace("a{b}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("namespace must");
  }

  @Test
  void touchInterval_negative_failsNamingTheParameter() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client)
        .touchInterval(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("touchInterval must");
  }

  @Test
  void defaultMaxInactiveInterval_zero_failsNamingTheParameter() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client)
        .defaultMaxInactiveInterval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("defaultMaxInactiveInterval must");
  }

  @Test
  void cleanupIntervalAndGrace_negative_failNamingTheParameter() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client)
        .cleanupInterval(Duration.ofMillis(-1))).hasMessageStartingWith("cleanupInterval must");
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client)
        .expiryGrace(Duration.ofMillis(-1))).hasMessageStartingWith("expiryGrace must");
  }

  @Test
  void builder_nullClient_failsNamingTheParameter() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder((RedisClient) null))
        .isInstanceOf(NullPointerException.class).hasMessage("client must not be null");
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder((RedisClusterClient) null))
        .isInstanceOf(NullPointerException.class).hasMessage("client must not be null");
  }

  @Test
  void durability_negativeReplicas_failsNamingTheParameter() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client)
        .durability(-1, Duration.ofMillis(100)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("durability replicas must be >= 0, was -1");
  }

  @Test
  void nearCacheTracking_zeroOrNegative_failsNamingTheParameter() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client)
        .nearCacheTracking(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("nearCacheTracking maxStaleness must be > 0, was PT0S");
  }

  @Test
  void nearCacheTracking_onACluster_refusedBeforeConnectingNamingTheProperty() {
    RedisClusterClient cluster = RedisClusterClient.create("redis://127.0.0.1:1");
    try {
      assertThatThrownBy(() -> LazyRedisSessionRepository.builder(cluster)
          .nearCacheTracking(Duration.ofMillis(500)).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lazysession.near-cache.mode=track")
          .hasMessageContaining("Redis Cluster");
    } finally {
      cluster.shutdown();
    }
  }

  @Test
  void nearCacheTracking_withoutNearCache_refusedBeforeConnectingNamingTheProperties() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client).nearCacheMaxBytes(0)
        .nearCacheTracking(Duration.ofMillis(500)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lazysession.near-cache.mode=track")
        .hasMessageContaining("lazysession.near-cache.max-bytes");
  }

  @Test
  void durability_zeroTimeout_failsBecauseWaitZeroWaitsForever() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client)
        .durability(1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("durability timeout must be > 0");
  }

  @Test
  void defaultTouchInterval_isOnePercentOfTimeoutCappedAtOneMinute() {
    assertThat(TouchPolicy.defaultInterval(Duration.ofMinutes(30)))
        .isEqualTo(Duration.ofSeconds(18));
    assertThat(TouchPolicy.defaultInterval(Duration.ofHours(8)))
        .isEqualTo(Duration.ofSeconds(60));
    assertThat(TouchPolicy.defaultInterval(Duration.ofSeconds(-1)))
        .isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void touchIntervalFor_sessionWithShorterTimeout_staysWellBelowItsTimeout() {
    assertThat(TouchPolicy.intervalFor(null, Duration.ofSeconds(60)))
        .isEqualTo(Duration.ofMillis(600));
    assertThat(TouchPolicy.intervalFor(Duration.ofSeconds(10),
        Duration.ofSeconds(60))).isEqualTo(Duration.ofSeconds(6));
    assertThat(TouchPolicy.intervalFor(Duration.ofSeconds(10),
        Duration.ofMinutes(30))).isEqualTo(Duration.ofSeconds(10));
    assertThat(TouchPolicy.intervalFor(Duration.ofSeconds(10),
        Duration.ofSeconds(-1))).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void build_touchIntervalNotShorterThanTimeout_failsNamingBothParameters() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client)
        .defaultMaxInactiveInterval(Duration.ofMinutes(1))
        .touchInterval(Duration.ofMinutes(1))
        .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("touchInterval (PT1M) must be shorter than "
            + "defaultMaxInactiveInterval (PT1M)");
  }

  @Test
  void build_redisUnreachable_failsSayingWhatToCheck() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("lazysession cannot connect to Redis")
        .hasMessageContaining("127.0.0.1");
  }

  @Test
  void build_migrationWithOnlyProtectedValuesAccepted_failsSayingWhatToChange() {
    SessionEncryption protectedOnly = SessionEncryption.builder()
        .keys(EncryptionKey.parseList("k1:" + java.util.Base64.getEncoder()
            .encodeToString(new byte[32])))
        .acceptUnprotected(false).build();

    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client)
        .encryption(protectedOnly).migrateFrom(SpringSessionDataRedis.defaults()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("lazysession.migrate-from")
        .hasMessageContaining("lazysession.encryption.accept-unprotected=false")
        .hasMessageContaining("set accept-unprotected=true until the migration is over");
  }
}
