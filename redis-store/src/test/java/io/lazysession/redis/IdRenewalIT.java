package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.session.FindByIndexNameSessionRepository;

/**
 * Id renewal (docs/session-policies.md) on two nodes sharing one Redis and one hand-moved clock,
 * through both faces: the new id after the interval, the old id within and after the grace,
 * requests in flight, two nodes renewing at once, near cache and tracked reads.
 */
class IdRenewalIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final Duration IDLE = Duration.ofHours(1);
  static final Duration INTERVAL = Duration.ofMinutes(15);
  static final Duration GRACE = Duration.ofSeconds(10);
  static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .defaultMaxInactiveInterval(IDLE).idRenewal(INTERVAL, GRACE));

  static Stream<Function<LazyRedisSessionRepository, Face>> faces() {
    return Stream.of(Face::servlet, Face::reactive);
  }

  private static LazySession signedIn(Face face, String name) {
    LazySession session = face.create();
    session.setAttribute(PRINCIPAL, name);
    session.setAttribute("cart", "3 books");
    face.save(session);
    return session;
  }

  private static byte[] key(String id) {
    return nodes.sessionKey(id);
  }

  private static String field(String id, String field) {
    byte[] value = nodes.raw().hget(key(id), field.getBytes(UTF_8));
    return value == null ? null : new String(value, UTF_8);
  }

  @ParameterizedTest
  @MethodSource("faces")
  void findById_afterTheInterval_signedInSessionMovesToANewIdWithEverything(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    LazySession created = signedIn(a, "alice");
    String oldId = created.getId();
    nodes.clock().advance(INTERVAL.minusSeconds(1));
    assertThat(a.find(oldId).getId()).as("before the interval").isEqualTo(oldId);
    nodes.clock().advance(Duration.ofSeconds(1));

    LazySession renewed = a.find(oldId);

    String newId = renewed.getId();
    assertThat(newId).isNotEqualTo(oldId);
    assertThat((String) renewed.getAttribute("cart")).isEqualTo("3 books");
    assertThat(renewed.getCreationTime()).isEqualTo(created.getCreationTime());
    assertThat(a.findByPrincipalName("alice")).containsOnlyKeys(newId);
    // The old key is an alias for the grace, the new hash records when its id was issued.
    assertThat(field(oldId, "#>")).isEqualTo(newId);
    assertThat(nodes.raw().pttl(key(oldId))).isPositive().isLessThanOrEqualTo(GRACE.toMillis());
    assertThat(field(newId, "#r")).isEqualTo(Long.toString(nodes.clock().millis()));
    // The next renewal counts from this one, not from the creation.
    nodes.clock().advance(INTERVAL.minusSeconds(1));
    assertThat(faceOf.apply(nodes.b()).find(newId).getId()).isEqualTo(newId);
    nodes.clock().advance(Duration.ofSeconds(1));
    assertThat(faceOf.apply(nodes.b()).find(newId).getId()).isNotEqualTo(newId);
  }

  @ParameterizedTest
  @MethodSource("faces")
  void findById_anonymousSession_keepsItsId(Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    LazySession visitor = a.create();
    visitor.setAttribute("csrf", "token");
    a.save(visitor);
    nodes.clock().advance(INTERVAL.multipliedBy(2));

    assertThat(a.find(visitor.getId()).getId()).isEqualTo(visitor.getId());
  }

  @ParameterizedTest
  @MethodSource("faces")
  void oldIdWithinTheGrace_reachesTheSessionAndItsWritesLandInIt(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    Face b = faceOf.apply(nodes.b());
    String oldId = signedIn(a, "bob").getId();
    LazySession inFlight = b.find(oldId); // a request on node B loaded it before the renewal
    nodes.clock().advance(INTERVAL);
    String newId = a.find(oldId).getId();

    inFlight.setAttribute("inFlight", "kept");
    b.save(inFlight);
    nodes.clock().advance(GRACE.minusSeconds(1));
    LazySession late = b.find(oldId); // a request sent with the old cookie, within the grace
    late.setAttribute("late", "kept too");
    b.save(late);

    assertThat(inFlight.getId()).isEqualTo(newId);
    assertThat(late.getId()).isEqualTo(newId);
    LazySession current = a.find(newId);
    assertThat((String) current.getAttribute("inFlight")).isEqualTo("kept");
    assertThat((String) current.getAttribute("late")).isEqualTo("kept too");
    assertThat((String) current.getAttribute("cart")).isEqualTo("3 books");
    assertThat(a.findByPrincipalName("bob")).containsOnlyKeys(newId);
  }

  @ParameterizedTest
  @MethodSource("faces")
  void oldIdAfterTheGrace_findsNothingAndWritesNothing(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    Face b = faceOf.apply(nodes.b());
    String oldId = signedIn(a, "carol").getId();
    LazySession inFlight = b.find(oldId);
    nodes.clock().advance(INTERVAL);
    String newId = a.find(oldId).getId();
    nodes.clock().advance(GRACE);

    inFlight.setAttribute("tooLate", "lost");
    b.save(inFlight);

    assertThat(b.find(oldId)).isNull();
    assertThat(a.find(oldId)).isNull();
    assertThat((String) a.find(newId).getAttribute("tooLate")).isNull();
    assertThat(nodes.raw().exists(key(newId))).isEqualTo(1);
  }

  @ParameterizedTest
  @MethodSource("faces")
  void twoNodesRenewingAtOnce_oneSessionOneNewId(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    String oldId = signedIn(a, "dave").getId();
    a.find(oldId); // both nodes hold a near-cache copy
    HookedClock hooked = new HookedClock(nodes.clock());
    Face b = faceOf.apply(nodes.another(nodes.clientB(), nodes.eventsB(),
        builder -> builder.clock(hooked)));
    b.find(oldId);
    nodes.clock().advance(INTERVAL);
    AtomicReference<String> renewedOnA = new AtomicReference<>();
    // B has loaded the session and found it due (its second clock reading): A renews it then.
    hooked.onRead(2, () -> renewedOnA.set(a.find(oldId).getId()));

    LazySession onB = b.find(oldId);

    assertThat(renewedOnA.get()).isNotNull().isNotEqualTo(oldId);
    assertThat(onB.getId()).isEqualTo(renewedOnA.get());
    assertThat(a.findByPrincipalName("dave")).containsOnlyKeys(renewedOnA.get());
    // Nothing but the old id's alias and the one session: B's copy is gone.
    java.util.List<String> keys = new java.util.ArrayList<>();
    io.lettuce.core.ScanIterator.scan(nodes.raw(),
            io.lettuce.core.KeyScanArgs.Builder.matches(nodes.namespace() + ":s:*"))
        .forEachRemaining(k -> keys.add(new String(k, UTF_8)));
    assertThat(keys)
        .containsExactlyInAnyOrder(nodes.namespace() + ":s:{" + oldId + "}",
            nodes.namespace() + ":s:{" + renewedOnA.get() + "}");
    assertThat(nodes.destroyed()).isEmpty();
  }

  @Test
  void manyRequestsOnTwoNodesAtOnce_allGetTheSameNewId() throws Exception {
    String oldId = signedIn(Face.servlet(nodes.a()), "erin").getId();
    nodes.clock().advance(INTERVAL);
    java.util.List<java.util.concurrent.Callable<String>> requests = new java.util.ArrayList<>();
    for (int i = 0; i < 16; i++) {
      LazyRedisSessionRepository node = i % 2 == 0 ? nodes.a() : nodes.b();
      requests.add(() -> node.findById(oldId).getId());
    }
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      java.util.Set<String> ids = new java.util.HashSet<>();
      for (var future : pool.invokeAll(requests)) {
        ids.add(future.get());
      }
      assertThat(ids).hasSize(1).doesNotContain(oldId);
      assertThat(nodes.a().findByPrincipalName("erin")).containsOnlyKeys(ids);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void nearCachedAndTrackedCopiesOfTheOldId_followTheSessionToItsNewId() {
    LazyRedisSessionRepository tracked = nodes.another(nodes.clientA(),
        new RecordingEventPublisher(), builder -> builder.nearCacheTracking(Duration.ofSeconds(30)));
    String oldId = signedIn(Face.servlet(nodes.a()), "frank").getId();
    LazySession inFlight = NearCacheTrackingIT.awaitTrustedHit(tracked, oldId);
    nodes.b().findById(oldId); // B holds a (validated) near-cache copy
    nodes.clock().advance(INTERVAL);
    String newId = nodes.a().findById(oldId).getId();

    inFlight.setAttribute("fromTracked", "kept");
    tracked.save(inFlight);
    LazySession onB = nodes.b().findById(oldId);

    assertThat(inFlight.getId()).isEqualTo(newId);
    assertThat(onB.getId()).isEqualTo(newId);
    assertThat((String) onB.getAttribute("fromTracked")).isEqualTo("kept");
    await().atMost(Duration.ofSeconds(30))
        .until(() -> newId.equals(tracked.findById(oldId).getId()));
    assertThat(nodes.a().findByPrincipalName("frank")).containsOnlyKeys(newId);
  }

  @Test
  void changeSessionId_atSignIn_restartsTheRenewalInterval() {
    LazyRedisSessionRepository a = nodes.a();
    LazySession visitor = a.createSession();
    a.save(visitor);
    nodes.clock().advance(INTERVAL);
    LazySession loaded = a.findById(visitor.getId());
    String signedInId = loaded.changeSessionId(); // session fixation protection
    loaded.setAttribute(PRINCIPAL, "gina");
    a.save(loaded);

    nodes.clock().advance(INTERVAL.minusSeconds(1));
    assertThat(nodes.b().findById(signedInId).getId()).isEqualTo(signedInId);
    assertThat(a.findById(visitor.getId())).isNull(); // no alias for a fixation change
    assertThat(Map.of("r", field(signedInId, "#r"))).isNotEmpty();
  }
}
