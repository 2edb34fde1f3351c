package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The repository on a Sentinel-managed primary, through a client given the Sentinel URI. */
class SentinelIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.sentinel();

  @Test
  void saveAndFind_throughSentinel_workLikeStandalone() {
    RedisClient client = RedisClient.create(redis.sentinelUri());
    try (LazyRedisSessionRepository repository = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer())
        .namespace(TestRedis.uniqueNamespace("sentinel"))
        .cleanupInterval(Duration.ZERO)
        .build()) {
      LazySession session = repository.createSession();
      ShopFixtures.attributes().forEach(session::setAttribute);
      repository.save(session);

      LazySession loaded = repository.findById(session.getId());
      loaded.setAttribute("currency", "SEK");
      repository.save(loaded);

      Map<String, Object> expected = ShopFixtures.attributes();
      expected.put("currency", "SEK");
      LazySession again = repository.findById(session.getId());
      expected.forEach((name, value) ->
          assertThat((Object) again.getAttribute(name)).as(name).isEqualTo(value));
    } finally {
      client.shutdown();
    }
  }

  @Test
  void trackedReads_throughSentinel_trackThePrimary() {
    RedisClient client = RedisClient.create(redis.sentinelUri());
    String namespace = TestRedis.uniqueNamespace("sentinel-track");
    try (LazyRedisSessionRepository a = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(namespace).cleanupInterval(Duration.ZERO)
        .nearCacheTracking(Duration.ofMillis(400)).build();
        LazyRedisSessionRepository b = LazyRedisSessionRepository.builder(client)
            .serializer(TestRedis.serializer()).namespace(namespace)
            .cleanupInterval(Duration.ZERO).build()) {
      String id = NearCacheTrackingIT.saved(a, "EUR");
      NearCacheTrackingIT.awaitTrustedHit(a, id);

      NearCacheTrackingIT.changeCurrency(b, id, "SEK");
      NearCacheTracking tracking = a.shared().tracking().tracking();
      long written = tracking.nanoTime();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
          .until(() -> tracking.leaseFrom() > written);

      NearCacheTrackingIT.assertSeenByAValidatedCallThenTrusted(a, id, "SEK");
    } finally {
      client.shutdown();
    }
  }

  @Test
  void sessionLimit_throughSentinel_concurrentSignInsLeaveExactlyOne() throws Exception {
    RedisClient clientA = RedisClient.create(redis.sentinelUri());
    RedisClient clientB = RedisClient.create(redis.sentinelUri());
    String namespace = TestRedis.uniqueNamespace("sentinel-limit");
    SessionLimit limit = SessionLimit.evictOldest(1);
    try {
      ConcurrentSignIns.runAndCheck((index, events) -> LazyRedisSessionRepository.builder(
              index == 0 ? clientA : clientB).serializer(TestRedis.serializer())
          .namespace(namespace).cleanupInterval(Duration.ZERO).sessionLimit(limit)
          .eventPublisher(events).build(), Face::servlet, limit);
    } finally {
      clientA.shutdown();
      clientB.shutdown();
    }
  }
}
