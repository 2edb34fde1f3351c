package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lazysession.redis.config.ClientsFromProperties;
import io.lazysession.testing.RedisNode;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A paused primary (a stalled VM): the Sentinels promote its replica, and the store follows the
 * promotion at once (SentinelSwitch), while the old primary is still paused: its connections to the
 * old primary are dropped and reopened to the new one. Before, they stayed with the paused server,
 * every save timed out until it came back, and it then acknowledged writes for the seconds until the
 * Sentinels demoted it, which its resynchronization discarded (the fault soak's losses,
 * docs/reliability.md).
 */
class SentinelSwitchIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.sentinel();

  private static final Duration FAILOVER = Duration.ofSeconds(30);

  @Test
  void primaryPaused_afterThePromotion_savesReachTheNewPrimaryWhileTheOldIsStillPaused() {
    redis.assumeFaultInjection();
    RedisNode oldPrimary = redis.namedPrimary();
    RedisNode newPrimary = oldPrimary == redis.primary() ? redis.replicas().get(0) : redis.primary();
    RedisClient client = (RedisClient) ClientsFromProperties.create(Map.of(
        "spring.data.redis.sentinel.master", RedisServerExtension.SENTINEL_MASTER,
        "spring.data.redis.sentinel.nodes", redis.sentinels().stream()
            .map(node -> node.host() + ":" + node.port()).collect(Collectors.joining(",")),
        "spring.data.redis.timeout", "500ms"));
    String namespace = TestRedis.uniqueNamespace("switch");
    try (LazyRedisSessionRepository node = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(namespace)
        .cleanupInterval(Duration.ZERO).build()) {
      LazySession session = node.createSession();
      session.setAttribute("step", "before");
      node.save(session);
      String id = session.getId();
      byte[] key = (namespace + ":s:{" + id + "}").getBytes(UTF_8);
      await().atMost(FAILOVER).until(() -> redis.sync(newPrimary, r -> r.exists(
          new String(key, UTF_8))) == 1);

      oldPrimary.pause();
      try {
        await().atMost(FAILOVER).until(() -> redis.namedPrimary() == newPrimary);

        // Saves go on while the old primary stays paused: only a connection to the new one serves.
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
          LazySession loaded = node.findById(id);
          loaded.setAttribute("step", "after");
          node.save(loaded);
          return true;
        });
        String step = node.findById(id).getAttribute("step");
        assertThat(step).isEqualTo("after");
        String replication = redis.sync(newPrimary, r -> r.info("replication"));
        assertThat(replication).contains("role:master");
      } finally {
        oldPrimary.unpause();
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(10));
    }
  }

}
