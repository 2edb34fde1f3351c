package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.session.Session;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionDestroyedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * Deleted and expired events carry the session's attributes as Redis held them, on the servlet and
 * the reactive face, on every path that destroys a session (deleteById, a save of an invalidated
 * session, the expiry sweep): packed and own-field attributes alike, decoded only when a listener
 * reads them, an undecodable one reading as null without breaking the others. Expiry is reached by
 * moving the nodes' clock.
 */
class DestroyedSessionEventsIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final Duration MAX_INACTIVE = Duration.ofMinutes(10);
  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .defaultMaxInactiveInterval(MAX_INACTIVE));

  /** Node A's servlet face, or its reactive face. */
  static Stream<Function<LazyRedisSessionRepository, Face>> faces() {
    return Stream.of(named(Face::servlet, "servlet"), named(Face::reactive, "reactive"));
  }

  private static Function<LazyRedisSessionRepository, Face> named(
      Function<LazyRedisSessionRepository, Face> face, String name) {
    return new Function<>() {
      @Override
      public Face apply(LazyRedisSessionRepository repository) {
        return face.apply(repository);
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  /** Small attributes (they go to the pack) and a large incompressible one (a field of its own). */
  static Map<String, Object> attributes() {
    Map<String, Object> attributes = new LinkedHashMap<>(ShopFixtures.attributes());
    byte[] large = new byte[20_000];
    new Random(7).nextBytes(large);
    attributes.put("large", large);
    attributes.put("a", "alpha");
    return attributes;
  }

  private static String saved(Face face, Map<String, Object> attributes) {
    LazySession session = face.create();
    attributes.forEach(session::setAttribute);
    face.save(session);
    return session.getId();
  }

  private static void assertCarries(Session destroyed, Map<String, Object> attributes) {
    assertThat(destroyed.getAttributeNames()).containsExactlyInAnyOrderElementsOf(
        attributes.keySet());
    attributes.forEach((name, value) ->
        assertThat((Object) destroyed.getAttribute(name)).as(name).isEqualTo(value));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("faces")
  void deleteById_packedAndOwnFieldAttributes_deletedEventCarriesThemAsStored(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face face = faceOf.apply(nodes.a());
    Map<String, Object> attributes = attributes();
    String id = saved(face, attributes);
    assertThat(TestRedis.pack(nodes.raw(), nodes.sessionKey(id))).as("the pack").isNotNull();
    assertThat(nodes.raw().hexists(nodes.sessionKey(id), "large".getBytes(UTF_8))).isTrue();

    face.delete(id);

    List<SessionDeletedEvent> deleted = nodes.eventsA().ofType(SessionDeletedEvent.class);
    assertThat(deleted).hasSize(1);
    assertThat(deleted.get(0).getSessionId()).isEqualTo(id);
    assertCarries(deleted.get(0).getSession(), attributes);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("faces")
  void deleteById_undecodableAttribute_decodedOnlyWhenReadThenNullWhileOthersRead(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face face = faceOf.apply(nodes.a());
    String id = saved(face, Map.of("a", "alpha", "cart", ShopFixtures.attributes().get("cart")));
    nodes.raw().hset(nodes.sessionKey(id), "broken".getBytes(UTF_8),
        new byte[] {(byte) 0xFF, 0x13, 0x37, 0x00, 0x42});
    long failuresBefore = nodes.a().metrics().decodeFailures();
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    Logger logger = (Logger) LoggerFactory.getLogger(DestroyedSession.class);
    logger.addAppender(logs);

    face.delete(id);

    Session destroyed = nodes.eventsA().ofType(SessionDeletedEvent.class).get(0).getSession();
    assertThat(nodes.a().metrics().decodeFailures()).as("nothing decoded before a listener reads")
        .isEqualTo(failuresBefore);
    assertThat((Object) destroyed.getAttribute("broken")).isNull();
    assertThat(nodes.a().metrics().decodeFailures()).isEqualTo(failuresBefore + 1);
    logger.detachAppender(logs);
    assertThat(logs.list).singleElement().satisfies(event -> assertThat(
        event.getFormattedMessage()).contains("Attribute 'broken'", id, "reads as null",
        "deleted or expired session"));
    assertThat((Object) destroyed.getAttribute("a")).isEqualTo("alpha");
    assertThat((Object) destroyed.getAttribute("cart"))
        .isEqualTo(ShopFixtures.attributes().get("cart"));
    assertThat(destroyed.getAttributeNames()).containsExactlyInAnyOrder("a", "cart");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("faces")
  void deleteById_unreadablePack_ownFieldsStillCarried(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face face = faceOf.apply(nodes.a());
    Map<String, Object> attributes = attributes();
    String id = saved(face, attributes);
    nodes.raw().hdel(nodes.sessionKey(id), "#s".getBytes(UTF_8));
    nodes.raw().hset(nodes.sessionKey(id), "#s".getBytes(UTF_8), new byte[] {1, 2, 3, 4, 5});

    face.delete(id);

    Session destroyed = nodes.eventsA().ofType(SessionDeletedEvent.class).get(0).getSession();
    assertThat(destroyed.getAttributeNames()).containsExactly("large");
    assertThat((Object) destroyed.getAttribute("large")).isEqualTo(attributes.get("large"));
    assertThat((Object) destroyed.getAttribute("a")).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("faces")
  void save_sessionInvalidatedByTheDecodeFailurePolicy_deletedEventCarriesItsAttributes(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    nodes.configure(builder -> builder.onDecodeFailure(DecodeFailurePolicy.INVALIDATE_SESSION));
    Face face = faceOf.apply(nodes.a());
    String id = saved(face, Map.of("a", "alpha"));
    nodes.raw().hset(nodes.sessionKey(id), "broken".getBytes(UTF_8), new byte[] {(byte) 0xFF, 1});
    TestRedis.bumpVersion(nodes.raw(), nodes.sessionKey(id));
    LazySession loaded = face.find(id);
    assertThat((Object) loaded.getAttribute("broken")).isNull(); // invalidates the session

    face.save(loaded);

    assertThat(face.find(id)).isNull();
    List<SessionDeletedEvent> deleted = nodes.eventsA().ofType(SessionDeletedEvent.class);
    assertThat(deleted).hasSize(1);
    assertThat((Object) deleted.get(0).getSession().getAttribute("a")).isEqualTo("alpha");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("faces")
  void sweep_expiredSession_listenerReadsTheSecurityContextFromTheEvent(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    List<String> expiredUsers = new CopyOnWriteArrayList<>();
    ApplicationEventPublisher listener = event -> {
      if (event instanceof SessionExpiredEvent expired) {
        SecurityContext context = expired.getSession().getAttribute("SPRING_SECURITY_CONTEXT");
        expiredUsers.add(context == null ? "none" : context.getAuthentication().getName());
      }
    };
    nodes.configure(builder -> builder.eventPublisher(listener));
    Face face = faceOf.apply(nodes.a());
    SecurityContext context = new SecurityContextImpl(UsernamePasswordAuthenticationToken
        .authenticated("alice", null, List.of(new SimpleGrantedAuthority("ROLE_USER"))));
    String id = saved(face, Map.of("SPRING_SECURITY_CONTEXT", context, "a", "alpha"));

    nodes.clock().advance(MAX_INACTIVE);
    int swept = face.sweep();

    assertThat(swept).isEqualTo(1);
    assertThat(expiredUsers).containsExactly("alice");
    assertThat(nodes.raw().exists(nodes.sessionKey(id))).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("faces")
  void sweep_expiredSession_expiredEventCarriesTimesAndAttributes(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face face = faceOf.apply(nodes.a());
    Map<String, Object> attributes = attributes();
    LazySession session = face.create();
    attributes.forEach(session::setAttribute);
    face.save(session);

    nodes.clock().advance(MAX_INACTIVE);
    face.sweep();

    List<SessionDestroyedEvent> destroyed = nodes.destroyed();
    assertThat(destroyed).hasSize(1).allMatch(SessionExpiredEvent.class::isInstance);
    Session expired = destroyed.get(0).getSession();
    assertThat(expired.getId()).isEqualTo(session.getId());
    assertThat(expired.getCreationTime()).isEqualTo(session.getCreationTime());
    assertThat(expired.getLastAccessedTime()).isEqualTo(session.getLastAccessedTime());
    assertThat(expired.getMaxInactiveInterval()).isEqualTo(MAX_INACTIVE);
    assertCarries(expired, attributes);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("faces")
  void changeSessionId_savedUnderTheNewId_publishesNoDestroyedEvent(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face face = faceOf.apply(nodes.a());
    String id = saved(face, Map.of("a", "alpha"));
    LazySession loaded = face.find(id);
    loaded.changeSessionId();

    face.save(loaded);

    assertThat(nodes.destroyed()).isEmpty();
    assertThat(face.find(id)).isNull();
    assertThat((Object) face.find(loaded.getId()).getAttribute("a")).isEqualTo("alpha");
  }

  @Test
  void sweep_attributesForTheEvent_comeInTheSameRoundTripsAsWithoutAPublisher() {
    LazyRedisSessionRepository publishing = nodes.a();
    LazyRedisSessionRepository silent = nodes.another(nodes.clientB(),
        new RecordingEventPublisher(), builder -> builder.eventPublisher(null));
    String first = saved(Face.servlet(publishing), attributes());
    nodes.clock().advance(MAX_INACTIVE);
    long before = publishing.metrics().roundTrips();
    assertThat(publishing.cleanUpExpiredSessions()).isEqualTo(1);
    long withEvents = publishing.metrics().roundTrips() - before;

    String second = saved(Face.servlet(silent), attributes());
    nodes.clock().advance(MAX_INACTIVE);
    before = silent.metrics().roundTrips();
    assertThat(silent.cleanUpExpiredSessions()).isEqualTo(1);
    long withoutEvents = silent.metrics().roundTrips() - before;

    assertThat(withEvents).isEqualTo(withoutEvents);
    assertCarries(nodes.eventsA().ofType(SessionExpiredEvent.class).get(0).getSession(),
        attributes());
    assertThat(first).isNotEqualTo(second);
  }
}
