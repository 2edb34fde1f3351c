package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lazysession.testing.RedisServerExtension;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpCookie;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.web.http.SessionRepositoryFilter;
import org.springframework.session.web.server.session.SpringSessionWebSessionStore;
import org.springframework.web.server.WebSession;
import org.springframework.web.server.session.DefaultWebSessionManager;

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

  static LazySession signedIn(Face face, String name) {
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

  /**
   * A sign-out in a request that loaded the session before another request renewed it: the
   * request still holds the old id, whose key is now the alias. The session is deleted where it
   * is now; else the user stays signed in under the new id.
   */
  @ParameterizedTest
  @MethodSource("faces")
  void deleteById_ofTheOldIdWithinTheGrace_deletesTheRenewedSession(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    Face b = faceOf.apply(nodes.b());
    String oldId = signedIn(a, "dora").getId();
    LazySession inFlight = b.find(oldId);
    nodes.clock().advance(INTERVAL);
    String newId = a.find(oldId).getId();
    assertThat(newId).isNotEqualTo(oldId);

    b.delete(inFlight.getId());

    assertThat(a.find(newId)).as("the renewed session after the sign-out").isNull();
    assertThat(a.find(oldId)).as("through the alias").isNull();
    assertThat(a.findByPrincipalName("dora")).isEmpty();
    assertThat(nodes.destroyed()).singleElement().satisfies(event -> {
      assertThat(event).isInstanceOf(SessionDeletedEvent.class);
      assertThat(event.getSessionId()).isEqualTo(newId);
    });
  }

  /**
   * An id change (a sign-in, a step-up) in a request that loaded the session before another
   * request renewed it: the session moves from where it is now to the id of the change, with the
   * request's changes and what the renewal carried; neither earlier id reaches it afterwards.
   */
  @ParameterizedTest
  @MethodSource("faces")
  void changeSessionId_ofTheOldIdWithinTheGrace_movesTheRenewedSessionWithTheChanges(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    Face b = faceOf.apply(nodes.b());
    String oldId = signedIn(a, "emil").getId();
    LazySession inFlight = b.find(oldId);
    nodes.clock().advance(INTERVAL);
    String renewedId = a.find(oldId).getId();

    String signInId = inFlight.changeSessionId();
    inFlight.setAttribute("role", "admin");
    b.save(inFlight);

    LazySession moved = a.find(signInId);
    assertThat(moved).as("under the id the sign-in hands out").isNotNull();
    assertThat((String) moved.getAttribute("role")).isEqualTo("admin");
    assertThat((String) moved.getAttribute("cart")).isEqualTo("3 books");
    assertThat(a.find(renewedId)).as("the renewed id").isNull();
    assertThat(a.find(oldId)).as("the old id, through the alias").isNull();
    assertThat(a.findByPrincipalName("emil")).containsOnlyKeys(signInId);
    assertThat(nodes.destroyed()).isEmpty();
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

  /**
   * Another request saves the session under its old id at every step of a renewal on node B (each
   * clock reading of B's findById in turn): its change is never lost, there is one session, and at
   * some step (between the copy and the swap) the renewal gives way and the session keeps its id.
   */
  @Test
  void saveOnTheOldIdAtEveryStepOfARenewal_nothingLostAndOneSession() {
    HookedClock hooked = new HookedClock(nodes.clock());
    LazyRedisSessionRepository renewing =
        nodes.another(nodes.clientB(), nodes.eventsB(), builder -> builder.clock(hooked));
    boolean gaveWay = false;
    for (int step = 1; step <= 12; step++) {
      String principal = "kim" + step;
      String oldId = signedIn(Face.servlet(nodes.a()), principal).getId();
      LazySession other = nodes.a().findById(oldId); // loaded before the renewal
      nodes.clock().advance(INTERVAL);
      String value = "step " + step;
      java.util.concurrent.atomic.AtomicBoolean saved = new java.util.concurrent.atomic.AtomicBoolean();
      Runnable save = () -> {
        other.setAttribute("other", value);
        nodes.a().save(other);
        saved.set(true);
      };
      hooked.onRead(step, save);

      LazySession loaded = renewing.findById(oldId);
      hooked.onRead(0, () -> { });
      if (!saved.get()) {
        save.run(); // after the renewal: sent on to the new id
      }

      gaveWay |= loaded.getId().equals(oldId);
      assertThat(nodes.a().findByPrincipalName(principal)).as("step %s", step)
          .containsOnlyKeys(loaded.getId()).allSatisfy((id, session) ->
              assertThat((String) session.getAttribute("other")).isEqualTo(value));
    }
    assertThat(gaveWay).as("some step fell between the copy and the swap").isTrue();
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

  /** One request through Spring Session's servlet filter with {@code cookie} (null: none). */
  private static MockHttpServletResponse request(@Nullable Cookie cookie, Consumer<HttpSession> work)
      throws Exception {
    MockHttpServletRequest request = new MockHttpServletRequest();
    if (cookie != null) {
      request.setCookies(cookie);
    }
    MockHttpServletResponse response = new MockHttpServletResponse();
    new SessionRepositoryFilter<>(nodes.a()).doFilter(request, response,
        (req, res) -> work.accept(((HttpServletRequest) req).getSession()));
    return response;
  }

  private static String idIn(Cookie cookie) {
    return new String(Base64.getDecoder().decode(cookie.getValue()), UTF_8);
  }

  @Test
  void servletFilter_requestAfterTheInterval_setsTheCookieToTheNewId() throws Exception {
    Cookie signedIn = request(null, session -> session.setAttribute(PRINCIPAL, "hana"))
        .getCookie("SESSION");
    String oldId = idIn(signedIn);
    nodes.clock().advance(INTERVAL);

    Cookie renewed = request(signedIn, session -> session.setAttribute("visit", 2))
        .getCookie("SESSION");
    AtomicReference<Object> seen = new AtomicReference<>();
    MockHttpServletResponse withOldCookie =
        request(signedIn, session -> seen.set(session.getAttribute("visit")));
    MockHttpServletResponse withNewCookie = request(renewed, session -> { });

    assertThat(renewed).isNotNull();
    String newId = idIn(renewed);
    assertThat(newId).isNotEqualTo(oldId);
    assertThat(renewed.getMaxAge()).isEqualTo(-1); // a session cookie, as the filter writes it
    assertThat(seen.get()).as("the old cookie within the grace").isEqualTo(2);
    assertThat(idIn(withOldCookie.getCookie("SESSION"))).isEqualTo(newId);
    assertThat(withNewCookie.getCookie("SESSION")).as("nothing to move").isNull();
    assertThat(nodes.a().findByPrincipalName("hana")).containsOnlyKeys(newId);
  }

  @Test
  void webSessionManager_exchangeAfterTheInterval_setsTheCookieToTheNewId() {
    SpringSessionWebSessionStore<LazySession> store =
        new SpringSessionWebSessionStore<>(LazyReactiveRedisSessionRepository.of(nodes.a()));
    DefaultWebSessionManager manager = new DefaultWebSessionManager();
    manager.setSessionStore(store);
    MockServerWebExchange first = MockServerWebExchange.from(MockServerHttpRequest.get("/"));
    WebSession created = manager.getSession(first).block();
    created.getAttributes().put(LazySession.REACTIVE_PRINCIPAL_NAME, "ivan");
    first.getResponse().setComplete().block();
    String oldId = first.getResponse().getCookies().getFirst("SESSION").getValue();
    nodes.clock().advance(INTERVAL);

    MockServerWebExchange second = MockServerWebExchange.from(
        MockServerHttpRequest.get("/").cookie(new HttpCookie("SESSION", oldId)));
    WebSession renewed = manager.getSession(second).block();
    renewed.getAttributes().put("visit", 2);
    second.getResponse().setComplete().block();

    String newId = second.getResponse().getCookies().getFirst("SESSION").getValue();
    assertThat(newId).isNotEqualTo(oldId).isEqualTo(renewed.getId());
    assertThat((Integer) nodes.a().findById(newId).getAttribute("visit")).isEqualTo(2);
    assertThat(nodes.a().findById(oldId).getId()).as("within the grace").isEqualTo(newId);
  }
}
