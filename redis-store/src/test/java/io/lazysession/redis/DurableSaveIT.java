package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Durable saves (WAIT for one replica) on a Redis without replicas: each save waits on a connection
 * of its own, so none queues behind another's WAIT, and each says what happened.
 */
class DurableSaveIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @Test
  void save_concurrentDurableSavesWithoutReplica_eachAppliedAndReportedNotReplicated()
      throws Exception {
    RedisClient client = DurableSaves.client(redis.uri());
    try {
      String namespace = TestRedis.uniqueNamespace("durable-no-replica");

      List<DurableSaves.Outcome> outcomes = DurableSaves.run(client, namespace);

      assertThat(outcomes).hasSize(DurableSaves.SESSIONS).allSatisfy(outcome -> {
        assertThat(outcome.failure()).isInstanceOf(SessionNotReplicatedException.class)
            .hasMessageContaining("primary applied it")
            .hasMessageContaining("0 of the 1 required replica(s)")
            .hasMessageContaining("500 ms");
        assertThat(((SessionNotReplicatedException) outcome.failure()).acknowledged()).isZero();
      });
      assertThat(DurableSaves.storedSteps(client, namespace, outcomes)).containsOnly("payment");
    } finally {
      client.shutdown();
    }
  }

  /**
   * A sign-out with durability on waits for the replicas as a save does: without one, the delete
   * is applied on the primary and reported as not replicated (a failover could bring the session
   * back), not returned as if it were safe.
   */
  @Test
  void deleteById_durableWithoutReplica_deletedOnThePrimaryAndReportedNotReplicated() {
    RedisClient client = DurableSaves.client(redis.uri());
    try (LazyRedisSessionRepository durable = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(TestRedis.uniqueNamespace("durable-delete"))
        .cleanupInterval(Duration.ZERO).durability(1, Duration.ofMillis(200)).build()) {
      LazySession session = durable.createSession();
      session.setAttribute("step", "cart");
      try {
        durable.save(session);
      } catch (SessionNotReplicatedException expected) {
        // applied on the primary, as the test above shows
      }

      assertThatThrownBy(() -> durable.deleteById(session.getId()))
          .isInstanceOf(SessionNotReplicatedException.class)
          .hasMessageContaining("deleteById")
          .hasMessageContaining("0 of the 1 required replica(s)");
      assertThat(durable.findById(session.getId())).isNull();
      durable.deleteById(session.getId()); // nothing left to delete: nothing to wait for
    } finally {
      client.shutdown();
    }
  }

  /**
   * An id renewal with durability on waits for the replicas once its swap is applied, so that the
   * response that hands out the new id follows the replicas: without one, the renewal stands on
   * the primary (the session is reached under its new id, the old id is an alias) and is logged as
   * not replicated, not taken as safe.
   */
  @Test
  void findById_durableRenewalWithoutReplica_renewedOnThePrimaryAndLoggedNotReplicated() {
    RedisClient client = DurableSaves.client(redis.uri());
    MutableClock clock = MutableClock.startingNow();
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs =
        new ch.qos.logback.core.read.ListAppender<>();
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(IdRenewal.class);
    logs.start();
    logger.addAppender(logs);
    try (LazyRedisSessionRepository durable = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(TestRedis.uniqueNamespace("durable-renew"))
        .cleanupInterval(Duration.ZERO).clock(clock)
        .idRenewal(Duration.ofMinutes(15), Duration.ofSeconds(10))
        .durability(1, Duration.ofMillis(200)).build()) {
      LazySession session = durable.createSession();
      session.setAttribute(org.springframework.session.FindByIndexNameSessionRepository
          .PRINCIPAL_NAME_INDEX_NAME, "alice");
      try {
        durable.save(session);
      } catch (SessionNotReplicatedException expected) {
        // applied on the primary
      }
      String oldId = session.getId();
      clock.advance(Duration.ofMinutes(15));

      LazySession renewed = durable.findById(oldId);

      assertThat(renewed.getId()).as("renewed on the primary").isNotEqualTo(oldId);
      assertThat(durable.findById(renewed.getId())).isNotNull();
      assertThat(logs.list).as("the swap's WAIT answered 0 of 1 replicas")
          .anySatisfy(event -> assertThat(event.getFormattedMessage())
              .contains("moved to its renewed id on the primary, but 0 of the 1 required "
                  + "replica(s) acknowledged it"));
    } finally {
      logger.detachAppender(logs);
      client.shutdown();
    }
  }

  @Test
  void save_moreDurableSavesWaitingThanTheBound_theOthersFailAtOnceWritingNothing()
      throws Exception {
    RedisClient client = DurableSaves.client(redis.uri());
    try {
      String namespace = TestRedis.uniqueNamespace("durable-bound");
      int sessions = SessionConnection.MAX_WAIT_CONNECTIONS + 8;

      // Every save that gets a connection holds it for the whole WAIT: no replica ever answers.
      List<DurableSaves.Outcome> outcomes =
          DurableSaves.run(client, namespace, sessions, Duration.ofMillis(1500));

      List<String> steps = DurableSaves.storedSteps(client, namespace, outcomes);
      int notSent = 0;
      for (int i = 0; i < outcomes.size(); i++) {
        SessionStoreException failure = outcomes.get(i).failure();
        if (failure instanceof SessionNotReplicatedException) {
          assertThat(steps.get(i)).isEqualTo("payment");
        } else {
          assertThat(failure).isInstanceOf(SessionStoreUnavailableException.class)
              .hasMessageContaining(SessionConnection.MAX_WAIT_CONNECTIONS
                  + " saves on this node are already waiting for their replicas")
              .hasMessageContaining("this one was not sent, nothing was written");
          assertThat(steps.get(i)).as("a save not sent changed nothing").isEqualTo("cart");
          notSent++;
        }
      }
      assertThat(notSent).as("saves refused beyond the bound").isPositive()
          .isLessThanOrEqualTo(8);
    } finally {
      client.shutdown();
    }
  }
}
