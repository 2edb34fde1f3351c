package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.events.SessionDestroyedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * The absolute and anonymous timeouts (docs/session-policies.md) on two nodes sharing one Redis and
 * one hand-moved clock, through both faces.
 */
class SessionPoliciesIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final Duration IDLE = Duration.ofMinutes(10);
  static final Duration ABSOLUTE = Duration.ofHours(1);
  static final Duration ANONYMOUS = Duration.ofMinutes(1);
  static final Duration GRACE = Duration.ofMinutes(5);
  static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .defaultMaxInactiveInterval(IDLE).expiryGrace(GRACE)
      .absoluteTimeout(ABSOLUTE).anonymousTimeout(ANONYMOUS));

  static Stream<Function<LazyRedisSessionRepository, Face>> faces() {
    return Stream.of(Face::servlet, Face::reactive);
  }

  private static long pttl(String id) {
    return nodes.raw().pttl(nodes.sessionKey(id));
  }

  private static LazySession signedIn(Face face, String name) {
    LazySession session = face.create();
    session.setAttribute(PRINCIPAL, name);
    face.save(session);
    return session;
  }

  /** Requests on {@code face} every 9 minutes (within the idle timeout) until {@code until}. */
  private static LazySession activeUntil(Face face, String id, Instant until) {
    LazySession loaded = face.find(id);
    while (nodes.clock().instant().plus(Duration.ofMinutes(9)).isBefore(until)) {
      nodes.clock().advance(Duration.ofMinutes(9));
      loaded = face.find(id);
      assertThat(loaded).isNotNull();
      loaded.setLastAccessedTime(nodes.clock().instant());
      face.save(loaded);
    }
    nodes.clock().advance(Duration.between(nodes.clock().instant(), until));
    return face.find(id);
  }

  @ParameterizedTest
  @MethodSource("faces")
  void absoluteTimeout_reachedWhileActive_goneOnBothNodesWithOneExpiredEventAndIndexCleaned(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    Face b = faceOf.apply(nodes.b());
    LazySession created = signedIn(a, "alice");
    String id = created.getId();
    Instant deadline = created.getCreationTime().plus(ABSOLUTE);
    // Active every 9 minutes, alternately on each node: the idle timeout never ends it.
    for (int request = 0; request < 6; request++) {
      nodes.clock().advance(Duration.ofMinutes(9));
      Face face = request % 2 == 0 ? b : a;
      LazySession loaded = face.find(id);
      assertThat(loaded).as("request %s", request).isNotNull();
      loaded.setLastAccessedTime(nodes.clock().instant());
      loaded.setAttribute("step", request);
      face.save(loaded);
      // The hash never outlives the deadline (+ grace), whatever the touch.
      assertThat(pttl(id)).isPositive().isLessThanOrEqualTo(
          Duration.between(nodes.clock().instant(), deadline).plus(GRACE).toMillis());
    }
    a.find(id); // both nodes hold a near-cache copy
    b.find(id);

    nodes.clock().advance(Duration.between(nodes.clock().instant(), deadline));

    assertThat(a.find(id)).isNull();
    assertThat(b.find(id)).isNull();
    assertThat(a.sweep() + b.sweep() + a.sweep()).isEqualTo(1);
    assertThat(nodes.destroyed()).hasSize(1).allMatch(SessionExpiredEvent.class::isInstance)
        .extracting(SessionDestroyedEvent::getSessionId).containsExactly(id);
    assertThat(nodes.raw().exists(nodes.sessionKey(id))).isZero();
    assertThat(a.findByPrincipalName("alice")).isEmpty();
    assertThat(nodes.raw().exists((nodes.namespace() + ":principal:alice").getBytes(UTF_8)))
        .isZero();
  }

  @ParameterizedTest
  @MethodSource("faces")
  void save_loadedBeforeTheAbsoluteDeadlineSavedAfterIt_writesNothing(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    LazySession created = signedIn(a, "bob");
    LazySession loaded = activeUntil(a, created.getId(),
        created.getCreationTime().plus(ABSOLUTE).minusSeconds(1));
    assertThat(loaded).isNotNull();

    nodes.clock().advance(Duration.ofSeconds(1));
    loaded.setAttribute("late", "write");
    loaded.setLastAccessedTime(nodes.clock().instant());
    a.save(loaded);

    assertThat(nodes.raw().hget(nodes.sessionKey(created.getId()), "late".getBytes(UTF_8)))
        .isNull();
    assertThat(a.find(created.getId())).isNull();
    assertThat(a.sweep()).isEqualTo(1);
    assertThat(nodes.destroyed()).hasSize(1).allMatch(SessionExpiredEvent.class::isInstance);
  }

  @ParameterizedTest
  @MethodSource("faces")
  void anonymousTimeout_sessionWithoutPrincipal_expiresOnTheShortTimeout(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    LazySession bot = a.create();
    bot.setAttribute("csrf", "token");
    a.save(bot);

    assertThat(bot.getMaxInactiveInterval()).isEqualTo(ANONYMOUS);
    assertThat(pttl(bot.getId())).isLessThanOrEqualTo(ANONYMOUS.plus(GRACE).toMillis());
    nodes.clock().advance(ANONYMOUS);
    assertThat(faceOf.apply(nodes.b()).find(bot.getId())).isNull();
    assertThat(a.sweep()).isEqualTo(1);
    assertThat(nodes.raw().exists(nodes.sessionKey(bot.getId()))).isZero();
  }

  @ParameterizedTest
  @MethodSource("faces")
  void anonymousTimeout_signingIn_takesTheNormalTimeoutInTheSameSave(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    Face b = faceOf.apply(nodes.b());
    LazySession visitor = a.create();
    a.save(visitor);
    LazySession loaded = b.find(visitor.getId());
    long savesBefore = nodes.b().metrics().saves();

    loaded.setAttribute(PRINCIPAL, "carol");
    b.save(loaded);

    assertThat(nodes.b().metrics().saves()).isEqualTo(savesBefore + 1);
    assertThat(pttl(visitor.getId())).isGreaterThan(ANONYMOUS.plus(GRACE).toMillis());
    nodes.clock().advance(ANONYMOUS.multipliedBy(3));
    LazySession later = a.find(visitor.getId());
    assertThat(later).isNotNull();
    assertThat(later.getMaxInactiveInterval()).isEqualTo(IDLE);
    assertThat(a.findByPrincipalName("carol")).containsOnlyKeys(visitor.getId());
  }

  @ParameterizedTest
  @MethodSource("faces")
  void anonymousTimeout_signingInWithANewId_takesTheNormalTimeoutInTheSameSave(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    LazySession visitor = a.create();
    a.save(visitor);
    LazySession loaded = a.find(visitor.getId());

    String newId = loaded.changeSessionId(); // session fixation protection at sign-in
    loaded.setAttribute(PRINCIPAL, "dave");
    a.save(loaded);

    nodes.clock().advance(ANONYMOUS.multipliedBy(3));
    assertThat(a.find(visitor.getId())).isNull();
    LazySession later = faceOf.apply(nodes.b()).find(newId);
    assertThat(later).isNotNull();
    assertThat(later.getMaxInactiveInterval()).isEqualTo(IDLE);
  }

  @ParameterizedTest
  @MethodSource("faces")
  void deleteById_neverIdleExpiringSessionWhileASweepHoldsTheClaim_reportedOnce(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    LazySession session = a.create();
    session.setMaxInactiveInterval(Duration.ofSeconds(-1)); // scheduled at its absolute deadline
    a.save(session);
    byte[] schedule = (nodes.namespace() + ":expirations").getBytes(UTF_8);
    // A sweep on node B, whose clock is past the deadline, claims the id ...
    assertThat(nodes.raw().zrem(schedule, session.getId().getBytes(UTF_8))).isEqualTo(1);

    a.delete(session.getId()); // ... node A's clock is not: it deletes the session
    nodes.b().shared().expiry().expireAfterClaim(session.getId(),
        nodes.clock().instant().plus(ABSOLUTE).toEpochMilli()); // then the sweep goes on

    assertThat(nodes.destroyed()).singleElement()
        .extracting(SessionDestroyedEvent::getSessionId).isEqualTo(session.getId());
  }

  /** Created anonymous on one node, signed in on the other, in both directions and both faces. */
  @ParameterizedTest
  @MethodSource("faces")
  void anonymousTimeout_createdOnOneNodeSignedInOnTheOther_normalTimeoutForBothNodes(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    Face b = faceOf.apply(nodes.b());
    for (boolean fromA : new boolean[] {true, false}) {
      Face creator = fromA ? a : b;
      Face signer = fromA ? b : a;
      LazySession visitor = creator.create();
      visitor.setAttribute("csrf", "token");
      creator.save(visitor);
      assertThat(creator.find(visitor.getId())).isNotNull(); // the creator holds a cached copy
      LazySession loaded = signer.find(visitor.getId());
      assertThat(loaded.getMaxInactiveInterval()).isEqualTo(ANONYMOUS);

      loaded.setAttribute(PRINCIPAL, fromA ? "hana" : "ivan");
      signer.save(loaded);

      nodes.clock().advance(ANONYMOUS.multipliedBy(2));
      for (Face face : List.of(creator, signer)) {
        LazySession later = face.find(visitor.getId());
        assertThat(later).as("created on %s, read on %s", fromA ? "A" : "B", face).isNotNull();
        assertThat(later.getMaxInactiveInterval()).isEqualTo(IDLE);
      }
      assertThat(pttl(visitor.getId())).isGreaterThan(ANONYMOUS.plus(GRACE).toMillis());
    }
  }

  @Test
  void absoluteTimeout_trackedCopy_isNotServedPastTheDeadline() {
    LazyRedisSessionRepository tracked = nodes.another(nodes.clientA(), new RecordingEventPublisher(),
        builder -> builder.nearCacheTracking(Duration.ofSeconds(30)));
    LazySession session = signedIn(Face.servlet(tracked), "erin");
    NearCacheTrackingIT.awaitTrustedHit(tracked, session.getId());
    nodes.clock().advance(ABSOLUTE);
    long trustedBefore = tracked.metrics().nearCacheTrustedHits();

    assertThat(tracked.findById(session.getId())).isNull();
    assertThat(tracked.metrics().nearCacheTrustedHits()).isEqualTo(trustedBefore + 1);
  }

  @Test
  void absoluteTimeout_nearCachedCopy_isNotServedPastTheDeadline() {
    LazySession session = signedIn(Face.servlet(nodes.a()), "frank");
    assertThat(activeUntil(Face.servlet(nodes.a()), session.getId(),
        session.getCreationTime().plus(ABSOLUTE).minus(Duration.ofMinutes(5)))).isNotNull();
    long hitsBefore = nodes.a().metrics().nearCacheHits();

    nodes.clock().advance(Duration.ofMinutes(5));

    assertThat(nodes.a().findById(session.getId())).isNull();
    assertThat(nodes.a().metrics().nearCacheHits()).isEqualTo(hitsBefore + 1);
  }
}
