package io.lazysession.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SentinelHarnessIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.sentinel();

  @Test
  void connectThroughSentinels_writesAndReadsOnThePrimary() {
    RedisClient client = RedisClient.create(redis.sentinelUri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      connection.sync().set("harness:sentinel", "value");
      assertThat(connection.sync().get("harness:sentinel")).isEqualTo("value");
      assertThat(connection.sync().info("replication")).contains("role:master");
    } finally {
      client.shutdown();
    }
    assertThat(redis.sentinels()).hasSize(3);
  }
}
