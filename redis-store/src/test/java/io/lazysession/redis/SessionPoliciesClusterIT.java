package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.config.ClientsFromProperties;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.events.SessionDestroyedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * The absolute and anonymous timeouts on a Redis Cluster (the scripts touch one slot each, the
 * schedule and principal sets live in slots of their own), through both faces.
 */
class SessionPoliciesClusterIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.cluster();

  static final Duration IDLE = Duration.ofHours(2);
  static final Duration ABSOLUTE = Duration.ofHours(1);
  static final Duration ANONYMOUS = Duration.ofMinutes(1);
  static RedisClusterClient client;

  @BeforeAll
  static void connect() {
    client = (RedisClusterClient) ClientsFromProperties.create(Map.of(
        "spring.data.redis.cluster.nodes", redis.clusterNodes().stream()
            .map(node -> node.host() + ":" + node.port()).collect(Collectors.joining(",")),
        "spring.data.redis.timeout", "2s"));
  }

  @AfterAll
  static void shutdown() {
    client.shutdown();
  }

  static Stream<Function<LazyRedisSessionRepository, Face>> faces() {
    return Stream.of(Face::servlet, Face::reactive);
  }

  @ParameterizedTest
  @MethodSource("faces")
  void policies_onACluster_expireEachSessionOnceAndCleanTheIndex(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    MutableClock clock = MutableClock.startingNow();
    RecordingEventPublisher events = new RecordingEventPublisher();
    try (LazyRedisSessionRepository repository = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(TestRedis.uniqueNamespace("policies"))
        .cleanupInterval(Duration.ZERO).clock(clock).eventPublisher(events)
        .defaultMaxInactiveInterval(IDLE).absoluteTimeout(ABSOLUTE).anonymousTimeout(ANONYMOUS)
        .build()) {
      Face face = faceOf.apply(repository);
      LazySession bot = face.create();
      face.save(bot);
      LazySession user = face.create();
      user.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "zoe");
      face.save(user);
      assertThat(face.find(user.getId()).getMaxInactiveInterval()).isEqualTo(IDLE);

      clock.advance(ANONYMOUS);
      assertThat(face.find(bot.getId())).isNull();
      assertThat(face.find(user.getId())).isNotNull();
      clock.advance(ABSOLUTE.minus(ANONYMOUS));
      assertThat(face.find(user.getId())).isNull();

      assertThat(face.sweep() + face.sweep()).isEqualTo(2);
      assertThat(events.events).filteredOn(SessionDestroyedEvent.class::isInstance)
          .allMatch(SessionExpiredEvent.class::isInstance)
          .extracting(e -> ((SessionDestroyedEvent) e).getSessionId())
          .containsExactlyInAnyOrder(bot.getId(), user.getId());
      assertThat(face.findByPrincipalName("zoe")).isEmpty();
    }
  }

  @ParameterizedTest
  @MethodSource("faces")
  void idRenewal_onACluster_oneNewIdAcrossSlotsAndTheOldIdForTheGrace(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    MutableClock clock = MutableClock.startingNow();
    HookedClock hooked = new HookedClock(clock);
    Duration interval = Duration.ofMinutes(15);
    Duration grace = Duration.ofSeconds(10);
    String namespace = TestRedis.uniqueNamespace("renewal");
    // Node B has a client of its own, as another JVM would: its event loop is not A's.
    RedisClusterClient clientB = (RedisClusterClient) ClientsFromProperties.create(Map.of(
        "spring.data.redis.cluster.nodes", redis.clusterNodes().stream()
            .map(n -> n.host() + ":" + n.port()).collect(Collectors.joining(","))));
    java.util.function.BiFunction<RedisClusterClient, java.time.Clock, LazyRedisSessionRepository>
        node = (nodeClient, time) -> LazyRedisSessionRepository.builder(nodeClient)
            .serializer(TestRedis.serializer()).namespace(namespace)
            .cleanupInterval(Duration.ZERO).clock(time)
            .defaultMaxInactiveInterval(IDLE).idRenewal(interval, grace).build();
    try (LazyRedisSessionRepository repositoryA = node.apply(client, clock);
        LazyRedisSessionRepository repositoryB = node.apply(clientB, hooked)) {
      Face a = faceOf.apply(repositoryA);
      Face b = faceOf.apply(repositoryB);
      LazySession user = a.create();
      user.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "yan");
      a.save(user);
      String oldId = user.getId();
      LazySession inFlight = a.find(oldId);
      b.find(oldId);
      clock.advance(interval);
      // B loads the session and finds it due (its second clock reading); A renews it then.
      String[] renewedOnA = new String[1];
      hooked.onRead(2, () -> renewedOnA[0] = a.find(oldId).getId());

      String newId = b.find(oldId).getId();
      inFlight.setAttribute("inFlight", "kept");
      a.save(inFlight);

      assertThat(newId).isNotEqualTo(oldId).isEqualTo(renewedOnA[0]);
      assertThat(inFlight.getId()).isEqualTo(newId);
      assertThat((String) b.find(newId).getAttribute("inFlight")).isEqualTo("kept");
      assertThat(b.find(oldId).getId()).as("within the grace").isEqualTo(newId);
      assertThat(a.findByPrincipalName("yan")).containsOnlyKeys(newId);
      clock.advance(grace);
      assertThat(a.find(oldId)).isNull();
      assertThat(a.find(newId)).isNotNull();
    } finally {
      clientB.shutdown();
    }
  }
}
