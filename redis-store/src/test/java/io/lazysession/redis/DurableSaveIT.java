package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
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
}
