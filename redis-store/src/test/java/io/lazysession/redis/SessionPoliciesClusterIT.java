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
}
