package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.config.ClientsFromProperties;
import io.lazysession.testing.RedisNode;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.cluster.RedisClusterClient;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.session.FindByIndexNameSessionRepository;

/**
 * The reactive face on a Redis Cluster (three primaries), next to a servlet node: commands are
 * routed by the slot of their key through Lettuce's reactive cluster API, and an id change moves a
 * session between slots.
 */
class ReactiveClusterIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.cluster();

  static RedisClusterClient clientA;
  static RedisClusterClient clientB;

  @BeforeAll
  static void connect() {
    Map<String, String> properties = Map.of(
        "spring.data.redis.cluster.nodes", redis.clusterNodes().stream()
            .map(node -> node.host() + ":" + node.port()).collect(Collectors.joining(",")),
        "spring.data.redis.timeout", "1s");
    clientA = (RedisClusterClient) ClientsFromProperties.create(properties);
    clientB = (RedisClusterClient) ClientsFromProperties.create(properties);
  }

  @AfterAll
  static void shutdown() {
    clientA.shutdown();
    clientB.shutdown();
  }

  @Test
  void sessions_createdAndMovedReactively_spreadOverPrimariesAndAreReadByTheServletNode() {
    String namespace = TestRedis.uniqueNamespace("reactive-cluster");
    try (LazyRedisSessionRepository servlet = ClusterIT.node(clientA, namespace).build();
        LazyRedisSessionRepository behindReactive = ClusterIT.node(clientB, namespace).build()) {
      LazyReactiveRedisSessionRepository reactive =
          LazyReactiveRedisSessionRepository.of(behindReactive);
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        LazySession session = reactive.createSession().block();
        session.setAttribute("number", i);
        session.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "alice");
        reactive.save(session).block();
        LazySession loaded = reactive.findById(session.getId()).block();
        String newId = loaded.changeSessionId();
        reactive.save(loaded).block();
        ids.add(newId);
      }

      Set<RedisNode> holding = new HashSet<>();
      for (RedisNode primary : redis.primaries()) {
        if (!ClusterIT.sessionKeys(primary, namespace).isEmpty()) {
          holding.add(primary);
        }
      }
      assertThat(holding).hasSize(3);
      for (int i = 0; i < ids.size(); i++) {
        assertThat((Integer) servlet.findById(ids.get(i)).getAttribute("number")).isEqualTo(i);
      }
      assertThat(reactive.findByPrincipalName("alice").block()).containsOnlyKeys(ids);
      reactive.deleteById(ids.get(0)).block();
      assertThat(servlet.findById(ids.get(0))).isNull();
    }
  }
}
