package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lazysession.redis.config.ClientsFromProperties;
import io.lazysession.testing.RedisNode;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.Session;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * The repository on a Redis Cluster of three primaries with a replica each, through the Cluster client
 * the Spring configurations build from {@code spring.data.redis.cluster.nodes} (fail fast, adaptive
 * and periodic topology refresh). Two nodes: A saves durably (WAIT for the slot's replica), B does not.
 * The last test kills a primary, so it runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.cluster();

  private static final int SESSIONS = 30;
  private static final Duration MAX_FAILOVER_WAIT = Duration.ofSeconds(60);

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

  static LazyRedisSessionRepositoryBuilder node(RedisClusterClient client, String namespace) {
    return LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer())
        .namespace(namespace)
        .cleanupInterval(Duration.ZERO);
  }

  /** The session hashes of a namespace that one node holds. */
  static List<String> sessionKeys(RedisNode node, String namespace) {
    return redis.<List<String>>sync(node, commands -> commands.keys(namespace + ":s:*"));
  }

  static List<String> createSessions(LazyRedisSessionRepository repository, int count) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      LazySession session = repository.createSession();
      ShopFixtures.attributes().forEach(session::setAttribute);
      session.setAttribute("number", i);
      repository.save(session);
      ids.add(session.getId());
    }
    return ids;
  }

  @Test
  @Order(1)
  void sessionLifecycle_spreadOverSlots_worksAcrossNodes() {
    String namespace = TestRedis.uniqueNamespace("cluster");
    try (LazyRedisSessionRepository nodeA = node(clientA, namespace)
            .durability(1, Duration.ofMillis(500)).build();
        LazyRedisSessionRepository nodeB = node(clientB, namespace).build()) {
      List<String> ids = createSessions(nodeA, SESSIONS);

      assertThat(redis.primaries()).allSatisfy(primary -> assertThat(sessionKeys(primary, namespace))
          .as("session hashes on %s", primary).isNotEmpty());
      for (String id : ids) {
        assertThat(nodeB.findById(id).<Integer>getAttribute("visits")).isEqualTo(42);
      }

      String changed = ids.get(0);
      LazySession onB = nodeB.findById(changed);
      onB.setAttribute("currency", "SEK");
      onB.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "alice");
      nodeB.save(onB);
      assertThat(nodeA.findById(changed).<String>getAttribute("currency")).isEqualTo("SEK");
      assertThat(nodeA.findByPrincipalName("alice")).containsOnlyKeys(changed);

      LazySession renamed = nodeA.findById(changed);
      String oldId = renamed.getId();
      String newId = renamed.changeSessionId();
      nodeA.save(renamed);
      assertThat(nodeB.findById(oldId)).isNull();
      assertThat(nodeB.findById(newId).<String>getAttribute("currency")).isEqualTo("SEK");
      assertThat(nodeB.findByPrincipalName("alice")).containsOnlyKeys(newId);

      String deleted = ids.get(1);
      nodeB.deleteById(deleted);
      assertThat(nodeA.findById(deleted)).isNull();
    }
  }

  @Test
  @Order(2)
  void expiry_twoNodesSweeping_reportsEachSessionOnce() {
    String namespace = TestRedis.uniqueNamespace("cluster-expiry");
    MutableClock clock = MutableClock.startingNow();
    RecordingEventPublisher eventsA = new RecordingEventPublisher();
    RecordingEventPublisher eventsB = new RecordingEventPublisher();
    try (LazyRedisSessionRepository nodeA = node(clientA, namespace).clock(clock)
            .defaultMaxInactiveInterval(Duration.ofMinutes(10)).eventPublisher(eventsA).build();
        LazyRedisSessionRepository nodeB = node(clientB, namespace).clock(clock)
            .defaultMaxInactiveInterval(Duration.ofMinutes(10)).eventPublisher(eventsB).build()) {
      List<String> ids = createSessions(nodeA, 12);
      clock.advance(Duration.ofMinutes(11));

      int reported = nodeA.cleanUpExpiredSessions() + nodeB.cleanUpExpiredSessions()
          + nodeA.cleanUpExpiredSessions();

      List<String> expired = Stream.concat(eventsA.ofType(SessionExpiredEvent.class).stream(),
              eventsB.ofType(SessionExpiredEvent.class).stream())
          .map(event -> event.<Session>getSession().getId()).toList();
      assertThat(reported).isEqualTo(ids.size());
      assertThat(expired).containsExactlyInAnyOrderElementsOf(ids);
      assertThat(ids).allSatisfy(id -> assertThat(nodeB.findById(id)).isNull());
      assertThat(redis.primaries().stream()
          .mapToInt(primary -> sessionKeys(primary, namespace).size())
          .sum()).isZero();
    }
  }

  @Test
  @Order(3)
  void primaryKilled_replicaTakesOver_sessionsSurviveAndServiceResumes() throws Exception {
    redis.assumeFaultInjection();
    String namespace = TestRedis.uniqueNamespace("cluster-failover");
    try (LazyRedisSessionRepository nodeA = node(clientA, namespace)
            .durability(1, Duration.ofMillis(500)).build();
        LazyRedisSessionRepository nodeB = node(clientB, namespace).build()) {
      List<String> ids = createSessions(nodeA, SESSIONS); // each acknowledged by its replica
      RedisNode victim = redis.primaries().get(0);
      assertThat(sessionKeys(victim, namespace)).isNotEmpty();

      victim.kill();

      // Until the cluster and the clients' topology views settle, a request may still be sent to
      // the dead primary and be rejected at once; every failure must be the store's own
      // "unavailable" exception, and every session must come back, readable and writable.
      Set<String> served = new HashSet<>();
      Set<String> changed = new HashSet<>();
      int failures = 0;
      long deadline = System.nanoTime() + MAX_FAILOVER_WAIT.toNanos();
      while (changed.size() < ids.size() && System.nanoTime() < deadline) {
        for (String id : ids) {
          if (changed.contains(id)) {
            continue;
          }
          Throwable failure = catchThrowable(() -> {
            LazySession session = nodeB.findById(id);
            assertThat(session).as("session %s after the failover", id).isNotNull();
            assertThat(session.<Integer>getAttribute("number")).isEqualTo(ids.indexOf(id));
            served.add(id);
            session.setAttribute("afterFailover", true);
            nodeB.save(session);
            assertThat(nodeA.findById(id).<Boolean>getAttribute("afterFailover")).isTrue();
          });
          if (failure == null) {
            changed.add(id);
          } else {
            assertThat(failure).isInstanceOf(SessionStoreUnavailableException.class);
            failures++;
          }
        }
        Thread.sleep(100);
      }

      assertThat(served).as("sessions read after the failover (%d failed attempts)", failures)
          .hasSize(ids.size());
      assertThat(changed).as("sessions changed after the failover (%d failed attempts)", failures)
          .hasSize(ids.size());
    }
  }
}
