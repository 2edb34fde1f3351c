package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Durable saves (WAIT for one replica) on a primary with a replica: all succeed at once. */
class DurableSaveReplicaIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.primaryReplica();

  @Test
  void save_concurrentDurableSavesWithReplica_allSucceed() throws Exception {
    RedisClient client = DurableSaves.client(redis.uri());
    try {
      String namespace = TestRedis.uniqueNamespace("durable-replica");

      List<DurableSaves.Outcome> outcomes = DurableSaves.run(client, namespace);

      assertThat(outcomes).hasSize(DurableSaves.SESSIONS)
          .allSatisfy(outcome -> assertThat(outcome.failure()).isNull());
      assertThat(DurableSaves.storedSteps(client, namespace, outcomes)).containsOnly("payment");
    } finally {
      client.shutdown();
    }
  }
}
