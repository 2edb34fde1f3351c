package io.lazysession.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.sample.SampleNode.Browser;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** With no spring.data.redis.* set, the sample starts an embedded Redis and keeps its sessions there. */
class EmbeddedRedisIT {

  @Test
  void noRedisConfigured_startsEmbeddedRedis_andStoresTheSessionThere() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Browser browser = new Browser();
    try (SampleNode node = SampleNode.start("sample.embedded-redis.port=" + port)) {
      HttpResponse<String> page = browser.get(node, "/");
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).contains("Catalog");
      String sessionId = SampleNode.find(page.body(), "id=\"session-id\">([^<]+)<");

      RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        assertThat(connection.sync().exists("lazysession:s:{" + sessionId + "}")).isEqualTo(1L);
      } finally {
        client.shutdown();
      }
    }
  }
}
