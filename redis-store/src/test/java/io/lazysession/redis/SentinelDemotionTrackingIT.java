package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lazysession.testing.RedisNode;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tracked reads when the primary changes while the tracking connection stays open on the old one.
 * The changes are made by hand (Sentinel itself kills the clients of a primary it demotes): the
 * Sentinels are told to follow the replica, which becomes the primary, while the old primary keeps
 * every client connection, either demoted to a replica that cannot sync (it hears of no write on the
 * new primary, yet answers every command) or left a primary (a split brain, as after a partition).
 * The tracking connection must not keep renewing its lease there: its trusted copies would be served
 * however old. No timing is asserted: conditions are awaited with a deadline.
 */
class SentinelDemotionTrackingIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.sentinel();

  private static final Duration DEADLINE = Duration.ofSeconds(20);

  private RedisNode oldPrimary;
  private RedisNode newPrimary;

  /** The replica of the current primary in sync, replication allowed: as the harness starts them. */
  @BeforeEach
  void heal() {
    redis.assumeFaultInjection();
    oldPrimary = redis.namedPrimary();
    newPrimary = oldPrimary == redis.primary() ? redis.replicas().get(0) : redis.primary();
    for (RedisNode node : List.of(oldPrimary, newPrimary)) {
      acl(node, "+psync", "+sync");
    }
    redis.sync(newPrimary, r -> r.replicaof(oldPrimary.host(), oldPrimary.port()));
    await().atMost(DEADLINE).until(() -> redis.sync(newPrimary, r -> r.info("replication"))
        .contains("master_link_status:up"));
  }

  @Test
  void trackingConnection_onAPrimaryDemotedWithoutDroppingClients_movesToTheNewPrimary() {
    withTrackedNode((a, namespace, id) -> {
      demote(true);
      await().atMost(DEADLINE).until(() -> hasTrackingConnection(newPrimary)
          && !hasTrackingConnection(oldPrimary));

      dropCommandConnections(oldPrimary);
      assertWriteOnTheNewPrimarySeen(a, namespace, id);
      String replication = redis.sync(oldPrimary, r -> r.info("replication"));
      assertThat(replication).as("the demoted server never heard of the writes")
          .contains("role:slave", "master_link_status:down");
    });
  }

  @Test
  void trackedRead_commandConnectionMovedToTheNewPrimary_trackingFollowsAndSeesItsWrites() {
    withTrackedNode((a, namespace, id) -> {
      demote(false);
      dropCommandConnections(oldPrimary);
      await().atMost(DEADLINE).until(() -> hasTrackingConnection(newPrimary));

      assertWriteOnTheNewPrimarySeen(a, namespace, id);
      String replication = redis.sync(oldPrimary, r -> r.info("replication"));
      assertThat(replication).as("the old primary is still a primary").contains("role:master");
    });
  }

  private interface TrackedNodeTest {
    void run(LazyRedisSessionRepository node, String namespace, String id);
  }

  /** A tracked node (through the Sentinels) holding a trusted copy of a session on both servers. */
  private void withTrackedNode(TrackedNodeTest test) {
    RedisClient client = RedisClient.create(redis.sentinelUri());
    String namespace = TestRedis.uniqueNamespace("demotion");
    try (LazyRedisSessionRepository a = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(namespace)
        .cleanupInterval(Duration.ZERO).nearCacheTracking(Duration.ofMillis(400)).build()) {
      String id = NearCacheTrackingIT.saved(a, "EUR");
      NearCacheTrackingIT.awaitTrustedHit(a, id);
      await().atMost(DEADLINE).until(() -> redis.sync(newPrimary, r -> r.keys("*" + id + "*"))
          .size() == 1);
      test.run(a, namespace, id);
    } finally {
      client.shutdown();
    }
  }

  /**
   * Another node (connected through the Sentinels now: to the new primary) writes twice; the tracked
   * node sees each write once a lease renewal that began after it was answered, and then trusts its
   * copy again.
   */
  private void assertWriteOnTheNewPrimarySeen(LazyRedisSessionRepository a, String namespace,
      String id) {
    RedisClient client = RedisClient.create(redis.sentinelUri());
    try (LazyRedisSessionRepository b = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(namespace).cleanupInterval(Duration.ZERO)
        .build()) {
      for (String currency : List.of("SEK", "NOK")) {
        NearCacheTrackingIT.changeCurrency(b, id, currency);
        NearCacheTracking tracking = a.shared().tracking().tracking();
        long written = tracking.nanoTime();
        await().atMost(DEADLINE).until(() -> tracking.leaseFrom() > written);

        assertThat(a.findById(id).<String>getAttribute("currency"))
            .as("a read under a lease renewed after the write").isEqualTo(currency);
        assertThat(NearCacheTrackingIT.awaitTrustedHit(a, id).<String>getAttribute("currency"))
            .as("trusted again").isEqualTo(currency);
      }
    } finally {
      client.shutdown();
    }
  }

  /**
   * The replica becomes the primary and the Sentinels follow it; the old primary keeps its clients
   * and, when {@code demoted}, becomes a replica that cannot sync (PSYNC and SYNC refused to it).
   */
  private void demote(boolean demoted) {
    acl(newPrimary, "-psync", "-sync");
    forEachSentinel(sentinel -> sentinel.remove(RedisServerExtension.SENTINEL_MASTER));
    redis.sync(newPrimary, RedisCommands::replicaofNoOne);
    if (demoted) {
      redis.sync(oldPrimary, r -> r.replicaof(newPrimary.host(), newPrimary.port()));
    }
    forEachSentinel(sentinel -> sentinel.monitor(RedisServerExtension.SENTINEL_MASTER,
        newPrimary.host(), newPrimary.port(), 2));
  }

  private static void forEachSentinel(
      Consumer<io.lettuce.core.sentinel.api.sync.RedisSentinelCommands<String, String>> command) {
    RedisClient client = RedisClient.create();
    try {
      for (RedisNode sentinel : redis.sentinels()) {
        try (StatefulRedisSentinelConnection<String, String> connection =
            client.connectSentinel(sentinel.uri())) {
          command.accept(connection.sync());
        }
      }
    } finally {
      client.shutdown();
    }
  }

  private static void acl(RedisNode node, String... rules) {
    CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("SETUSER")
        .add("default");
    Arrays.stream(rules).forEach(args::add);
    redis.sync(node, r -> r.dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args));
  }

  private static boolean hasTrackingConnection(RedisNode node) {
    return redis.sync(node, r -> r.clientList())
        .contains(" name=" + TrackingConnection.CLIENT_NAME + " ");
  }

  /** Kills every normal client connection of {@code node} except the tracking connection. */
  private static void dropCommandConnections(RedisNode node) {
    List<Long> ids = Arrays.stream(redis.sync(node, r -> r.clientList()).split("\n"))
        .filter(line -> line.contains(" flags=N "))
        .filter(line -> !line.contains(" name=" + TrackingConnection.CLIENT_NAME + " "))
        .map(NearCacheResetIT::id).toList();
    for (long id : ids) {
      redis.sync(node, r -> r.clientKill(KillArgs.Builder.id(id)));
    }
  }
}
