package io.lazysession.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ClusterHarnessIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.cluster();

  @Test
  void keysInEverySlotRange_areWrittenAndReadThroughTheClusterClient() {
    RedisClusterClient client = RedisClusterClient.create(
        redis.clusterNodes().stream().map(RedisNode::uri).toList());
    try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
      RedisAdvancedClusterCommands<String, String> commands = connection.sync();
      for (int i = 0; i < 30; i++) {
        commands.set("harness:cluster:" + i, "v" + i);
      }
      for (int i = 0; i < 30; i++) {
        assertThat(commands.get("harness:cluster:" + i)).isEqualTo("v" + i);
      }
      List<Long> keysPerPrimary = redis.primaries().stream()
          .map(node -> redis.sync(node, c -> c.dbsize())).toList();
      assertThat(keysPerPrimary).hasSize(3).allMatch(count -> count > 0);
    } finally {
      client.shutdown();
    }
  }
}
