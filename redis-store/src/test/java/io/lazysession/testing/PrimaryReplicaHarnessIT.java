package io.lazysession.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PrimaryReplicaHarnessIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.primaryReplica();

  @Test
  void write_onPrimary_isReadFromReplica() {
    RedisNode replica = redis.replicas().get(0);
    redis.sync(redis.primary(), commands -> commands.set("harness:replicated", "value"));

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      String replicated = redis.sync(replica, commands -> commands.get("harness:replicated"));
      assertThat(replicated).isEqualTo("value");
    });
    String role = redis.sync(replica, commands -> commands.info("replication"));
    assertThat(role).contains("role:slave");
    Long acknowledged = redis.sync(redis.primary(), commands -> commands.waitForReplication(1, 2000));
    assertThat(acknowledged).isEqualTo(1L);
  }
}
