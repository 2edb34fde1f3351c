package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.config.ClientsFromProperties;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The limit of sessions per principal on a Redis Cluster: the principal's set and sign-in order
 * share a slot, the sessions live in slots of their own. Two nodes, each with a client of its own;
 * with and without encryption keys (keyed names).
 */
class SessionLimitClusterIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.cluster();

  static RedisClusterClient clientA;
  static RedisClusterClient clientB;

  @BeforeAll
  static void connect() {
    clientA = client();
    clientB = client();
  }

  private static RedisClusterClient client() {
    return (RedisClusterClient) ClientsFromProperties.create(Map.of(
        "spring.data.redis.cluster.nodes", redis.clusterNodes().stream()
            .map(node -> node.host() + ":" + node.port()).collect(Collectors.joining(",")),
        "spring.data.redis.timeout", "5s"));
  }

  @AfterAll
  static void shutdown() {
    clientA.shutdown();
    clientB.shutdown();
  }

  private static LazyRedisSessionRepository node(RedisClusterClient client, String namespace,
      SessionLimit limit, RecordingEventPublisher events, boolean keyed) {
    LazyRedisSessionRepositoryBuilder builder = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(namespace).sessionLimit(limit)
        .eventPublisher(events).cleanupInterval(Duration.ZERO);
    return (keyed ? builder.encryption(KeyedNamesIT.k1(false, false)) : builder).build();
  }

  @ParameterizedTest(name = "{1} {0}")
  @MethodSource("io.lazysession.redis.SessionLimitIT#limits")
  void save_concurrentSignInsOverTwoNodes_leaveExactlyTheLimit(
      Function<LazyRedisSessionRepository, Face> faceOf, SessionLimit limit) throws Exception {
    String namespace = TestRedis.uniqueNamespace("limit-cluster");
    ConcurrentSignIns.runAndCheck((index, events) ->
        node(index == 0 ? clientA : clientB, namespace, limit, events, false), faceOf, limit);
  }

  /** As above with encryption keys: keyed principal sets, their order in the set's slot. */
  @ParameterizedTest(name = "{1} {0}")
  @MethodSource("io.lazysession.redis.SessionLimitIT#limits")
  void save_concurrentSignInsOverTwoNodesWithKeyedNames_leaveExactlyTheLimit(
      Function<LazyRedisSessionRepository, Face> faceOf, SessionLimit limit) throws Exception {
    String namespace = TestRedis.uniqueNamespace("limit-cluster-keyed");
    ConcurrentSignIns.runAndCheck((index, events) ->
        node(index == 0 ? clientA : clientB, namespace, limit, events, true), faceOf, limit);
  }

  @Test
  void orderAndAdmissionKeys_principalNameWithBraces_areInTheSlotOfTheSetUnderTheNamespace() {
    SessionKeys keys = new SessionKeys("ns");
    for (String name : List.of("ann", "{tag}x", "a}b", "}{", "x{}y", "{", "ünï{cödé}")) {
      byte[] set = keys.principal(name);
      int slot = io.lettuce.core.cluster.SlotHash.getSlot(set);
      assertThat(io.lettuce.core.cluster.SlotHash.getSlot(SessionLimiter.orderKey(set)))
          .as(name).isEqualTo(slot);
      assertThat(io.lettuce.core.cluster.SlotHash.getSlot(SessionLimiter.admissionsKey(set)))
          .as(name).isEqualTo(slot);
      for (byte[] key : List.of(SessionLimiter.orderKey(set), SessionLimiter.admissionsKey(set))) {
        assertThat(new String(key, java.nio.charset.StandardCharsets.UTF_8)).as(name)
            .matches("\\{?ns:principal:.*"); // what an ACL key pattern names
      }
    }
  }
}
