package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.config.ClientsFromProperties;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Protection of stored values on a Redis Cluster: sessions spread over every slot are sealed, read
 * by another node, and moved to a new key by one {@code reencrypt()} that scans every primary.
 */
class EncryptionClusterIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.cluster();

  static final String K1 = "k1:" + EncryptionIT.secret(1);
  static final String K2 = "k2:" + EncryptionIT.secret(2);

  static RedisClusterClient client;
  final List<LazyRedisSessionRepository> nodes = new ArrayList<>();

  @BeforeAll
  static void connect() {
    client = (RedisClusterClient) ClientsFromProperties.create(Map.of(
        "spring.data.redis.cluster.nodes", redis.clusterNodes().stream()
            .map(node -> node.host() + ":" + node.port()).collect(Collectors.joining(","))));
  }

  @AfterAll
  static void shutdown() {
    client.shutdown();
  }

  @AfterEach
  void close() {
    nodes.forEach(LazyRedisSessionRepository::close);
  }

  LazyRedisSessionRepository node(String namespace, String keys) {
    LazyRedisSessionRepository node = LazyRedisSessionRepository.builder(client)
        .namespace(namespace).cleanupInterval(Duration.ZERO)
        .encryption(SessionEncryption.builder().keys(keys).acceptUnprotected(false).build())
        .build();
    nodes.add(node);
    return node;
  }

  @Test
  void reencrypt_sessionsInEverySlot_movesThemAllToTheNewKey() {
    String namespace = TestRedis.uniqueNamespace("enc-cluster");
    LazyRedisSessionRepository old = node(namespace, K1);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      LazySession session = old.createSession();
      session.setAttribute("note", EncryptionIT.MARKER + i);
      session.setAttribute("report", EncryptionIT.MARKER.repeat(200) + i);
      old.save(session);
      ids.add(session.getId());
    }
    LazyRedisSessionRepository rotated = node(namespace, K2 + "," + K1);

    ReencryptionReport report = rotated.reencrypt();

    assertThat(report.sessions()).isEqualTo(20);
    assertThat(report.rewritten()).isEqualTo(40);
    assertThat(report.remaining()).isZero();
    LazyRedisSessionRepository newOnly = node(namespace, K2);
    for (int i = 0; i < ids.size(); i++) {
      LazySession session = newOnly.findById(ids.get(i));
      assertThat((String) session.getAttribute("note")).isEqualTo(EncryptionIT.MARKER + i);
      assertThat((String) session.getAttribute("report"))
          .isEqualTo(EncryptionIT.MARKER.repeat(200) + i);
    }
    assertThat(newOnly.metrics().rejectedValues()).isZero();
  }
}
