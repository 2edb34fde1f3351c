package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.events.SessionDeletedEvent;

/**
 * The limit of sessions per principal (docs/session-policies.md) on one Redis, two nodes each with
 * a client of its own, through both faces.
 */
class SessionLimitIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static TestRedis.TwoClients clients;
  private static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;

  @BeforeAll
  static void connect() {
    clients = TestRedis.TwoClients.open(redis.uri());
  }

  @AfterAll
  static void shutdown() {
    clients.close();
  }

  static Stream<Arguments> limits() {
    List<Arguments> arguments = new ArrayList<>();
    for (Function<LazyRedisSessionRepository, Face> face :
        List.<Function<LazyRedisSessionRepository, Face>>of(Face::servlet, Face::reactive)) {
      for (int max : new int[] {1, 2}) {
        arguments.add(Arguments.of(face, SessionLimit.evictOldest(max)));
        arguments.add(Arguments.of(face, SessionLimit.refuseNew(max)));
      }
    }
    return arguments.stream();
  }

  private static LazyRedisSessionRepository node(io.lettuce.core.RedisClient client,
      String namespace, SessionLimit limit, RecordingEventPublisher events) {
    return LazyRedisSessionRepository.builder(client).serializer(TestRedis.serializer())
        .namespace(namespace).sessionLimit(limit).eventPublisher(events)
        .cleanupInterval(java.time.Duration.ZERO).build();
  }

  @ParameterizedTest(name = "{1} {0}")
  @MethodSource("limits")
  void save_concurrentSignInsOverTwoNodes_leaveExactlyTheLimit(
      Function<LazyRedisSessionRepository, Face> faceOf, SessionLimit limit) throws Exception {
    String namespace = TestRedis.uniqueNamespace("limit");
    ConcurrentSignIns.runAndCheck((index, events) ->
        node(index == 0 ? clients.a() : clients.b(), namespace, limit, events), faceOf, limit);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("oneSession")
  void save_concurrentSignInsWithoutExpiryEvents_leaveExactlyTheLimit(SessionLimit limit)
      throws Exception {
    String namespace = TestRedis.uniqueNamespace("limit-no-events");
    ConcurrentSignIns.runAndCheck((index, events) -> withoutExpiryEvents(
        index == 0 ? clients.a() : clients.b(), namespace, limit, events), Face::servlet, limit);
  }

  private static LazyRedisSessionRepository withoutExpiryEvents(io.lettuce.core.RedisClient client,
      String namespace, SessionLimit limit, RecordingEventPublisher events) {
    return LazyRedisSessionRepository.builder(client).serializer(TestRedis.serializer())
        .namespace(namespace).sessionLimit(limit).eventPublisher(events).expiryEvents(false)
        .build();
  }

  /**
   * Without expiry events, a sign-in (first) that a newer one (second) evicts after its admission,
   * before its hash exists, and whose writer then adds its index entry again: a third sign-in's
   * script joins that entry to the sign-in order as the oldest and finds no hash for it; first's
   * hash is written, first checks the order, and then the third sign-in drops it as missing for
   * long (joined ids count as signed in long ago), without deleting it. First must still end:
   * exactly one session of the user lives on, and each other one is reported deleted once.
   */
  @Test
  void save_evictedSignInBackInTheSetBeforeItsWrite_deletesItself() throws Exception {
    SessionLimit limit = SessionLimit.evictOldest(1);
    String namespace = TestRedis.uniqueNamespace("limit-no-events");
    RecordingEventPublisher events = new RecordingEventPublisher();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (LazyRedisSessionRepository a = withoutExpiryEvents(clients.a(), namespace, limit, events);
        LazyRedisSessionRepository b = withoutExpiryEvents(clients.b(), namespace, limit, events)) {
      List<LazySession> sessions = new ArrayList<>();
      for (LazyRedisSessionRepository node : List.of(a, b, b)) {
        LazySession session = node.createSession();
        session.setAttribute(PRINCIPAL, "gus");
        sessions.add(session);
      }
      LazySession first = sessions.get(0);
      CountDownLatch write = new CountDownLatch(1);
      Future<?> firstSaved = savedUntilAdmitted(a, first, thread, write);
      b.save(sessions.get(1)); // evicts first: no hash yet, nothing to delete
      // What first's writer does next, before its script: the index entry (an add after the eviction)
      a.shared().principals().add("gus", first.getId(), first.getMaxInactiveInterval());
      b.shared().limiter().onChecked(() -> { // third looked: first has no hash
        write.countDown();
        getQuietly(firstSaved);
      });
      b.save(sessions.get(2));
      firstSaved.get(30, TimeUnit.SECONDS);

      List<String> live = sessions.stream().map(LazySession::getId)
          .filter(id -> b.findById(id) != null).toList();
      assertThat(live).as("live sessions of the user").containsExactly(sessions.get(2).getId());
      assertThat(events.ofType(SessionDeletedEvent.class)).map(SessionDeletedEvent::getSessionId)
          .containsExactlyInAnyOrder(first.getId(), sessions.get(1).getId());
    } finally {
      thread.shutdownNow();
    }
  }

  /**
   * An id change of a session that signed in long ago keeps its sign-in time in the order; while
   * it is written, its new id has no hash yet. Another sign-in of the same user that finds the user
   * at the limit then must count it as in flight (admitted a moment ago), not as a session gone for
   * long: else it drops the new id from the order, which the writer's index entry joins again later
   * as the oldest sign-in, the first one evict-oldest takes.
   */
  @ParameterizedTest(name = "expiry events {0}")
  @ValueSource(booleans = {true, false})
  void save_idChangeInFlightOfASessionSignedInLongAgo_stillCountsAgainstTheLimit(
      boolean expiryEvents) throws Exception {
    SessionLimit limit = SessionLimit.refuseNew(1);
    String namespace = TestRedis.uniqueNamespace("limit-id-change");
    RecordingEventPublisher events = new RecordingEventPublisher();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (LazyRedisSessionRepository a = expiryEvents ? node(clients.a(), namespace, limit, events)
            : withoutExpiryEvents(clients.a(), namespace, limit, events);
        LazyRedisSessionRepository b = expiryEvents ? node(clients.b(), namespace, limit, events)
            : withoutExpiryEvents(clients.b(), namespace, limit, events)) {
      LazySession session = a.createSession();
      session.setAttribute(PRINCIPAL, "fay");
      a.save(session);
      SessionKeys keys = a.shared().store().keys();
      byte[] order = SessionLimiter.orderKey(keys.principal("fay", session.getId()));
      byte[] member = keys.member(session.getId());
      Double signedIn = clients.raw().zscore(order, member);
      assertThat(signedIn).as("sign-in time").isNotNull();
      clients.raw().zadd(order, signedIn - 120_000, member); // as a sign-in two minutes ago
      LazySession loaded = a.findById(session.getId());
      String newId = loaded.changeSessionId();
      CountDownLatch write = new CountDownLatch(1);
      Future<?> changed = savedUntilAdmitted(a, loaded, thread, write);
      LazySession other = b.createSession();
      other.setAttribute(PRINCIPAL, "fay");
      try {
        assertThatThrownBy(() -> b.save(other)).isInstanceOf(SessionLimitExceededException.class);
      } finally {
        write.countDown();
      }
      changed.get(30, TimeUnit.SECONDS);

      assertThat(b.findById(newId)).isNotNull();
      assertThat(b.findByPrincipalName("fay").keySet()).containsExactly(newId);
      assertThat(clients.raw().zscore(order, keys.member(newId))).as("sign-in time kept")
          .isEqualTo(signedIn - 120_000);
    } finally {
      thread.shutdownNow();
    }
  }

  /**
   * While a signed-in session moves to a new id, its old id (still in the set, with its hash) and
   * its new one (admitted, no hash yet) are one session: another sign-in of the same user counts it
   * once, so a sign-in within the limit is admitted and evicts nobody.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("withinTheLimit")
  void save_signInWhileAnotherSessionChangesItsId_countsThatSessionOnce(SessionLimit limit,
      int othersBefore) throws Exception {
    String namespace = TestRedis.uniqueNamespace("limit-pair");
    RecordingEventPublisher events = new RecordingEventPublisher();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (LazyRedisSessionRepository a = node(clients.a(), namespace, limit, events);
        LazyRedisSessionRepository b = node(clients.b(), namespace, limit, events)) {
      List<String> live = new ArrayList<>();
      for (int i = 0; i < othersBefore; i++) {
        LazySession other = b.createSession();
        other.setAttribute(PRINCIPAL, "hal");
        b.save(other);
        live.add(other.getId());
      }
      LazySession session = a.createSession();
      session.setAttribute(PRINCIPAL, "hal");
      a.save(session);
      LazySession loaded = a.findById(session.getId());
      String newId = loaded.changeSessionId();
      CountDownLatch write = new CountDownLatch(1);
      Future<?> changed = savedUntilAdmitted(a, loaded, thread, write);
      LazySession signIn = b.createSession();
      signIn.setAttribute(PRINCIPAL, "hal");
      try {
        b.save(signIn);
      } finally {
        write.countDown();
      }
      changed.get(30, TimeUnit.SECONDS);
      live.add(newId);
      live.add(signIn.getId());

      assertThat(b.findByPrincipalName("hal").keySet()).containsExactlyInAnyOrderElementsOf(live);
      assertThat(events.ofType(SessionDeletedEvent.class)).isEmpty();
    } finally {
      thread.shutdownNow();
    }
  }

  /**
   * Two requests of one user at once: one renews the session (its new id admitted, its copy not yet
   * written), the other changes the session's id. That is the session moving on, not a sign-in
   * beyond the limit, whichever of its ids the order holds meanwhile.
   */
  @Test
  void admit_idChangeWhileTheSameSessionIsRenewed_isNotCountedAgainstItself() {
    try (LazyRedisSessionRepository a = node(clients.a(), TestRedis.uniqueNamespace("limit-own"),
        SessionLimit.refuseNew(2), new RecordingEventPublisher())) {
      signedIn(a, "ivy");
      String session = signedIn(a, "ivy");
      SessionLimiter limiter = a.shared().limiter();
      Duration timeout = a.defaultMaxInactiveInterval();
      limiter.move("ivy", a.createSession().getId(), session, timeout); // the renewal

      assertThat(limiter.admit("ivy", a.createSession().getId(), session, timeout))
          .as("evicted by the id change").isEmpty();
    }
  }

  /** Two renewals of one session at once (two nodes): another sign-in counts that session once. */
  @Test
  void admit_signInWhileAnotherSessionIsRenewedTwiceAtOnce_countsItOnce() {
    try (LazyRedisSessionRepository a = node(clients.a(), TestRedis.uniqueNamespace("limit-2x"),
        SessionLimit.refuseNew(2), new RecordingEventPublisher())) {
      String session = signedIn(a, "kim");
      SessionLimiter limiter = a.shared().limiter();
      Duration timeout = a.defaultMaxInactiveInterval();
      limiter.move("kim", a.createSession().getId(), session, timeout);
      limiter.move("kim", a.createSession().getId(), session, timeout);

      assertThat(limiter.admit("kim", a.createSession().getId(), null, timeout)).isEmpty();
    }
  }

  /**
   * Two renewals of one session at once (two nodes): evicting that session takes it under every id
   * it is known by, the old one and both new ones.
   */
  @Test
  void admit_evictingASessionRenewedTwiceAtOnce_removesAllOfItsIds() {
    try (LazyRedisSessionRepository a = node(clients.a(), TestRedis.uniqueNamespace("limit-twice"),
        SessionLimit.evictOldest(1), new RecordingEventPublisher())) {
      String session = signedIn(a, "jo");
      SessionLimiter limiter = a.shared().limiter();
      Duration timeout = a.defaultMaxInactiveInterval();
      String renewed = a.createSession().getId();
      String renewedElsewhere = a.createSession().getId();
      limiter.move("jo", renewed, session, timeout);
      limiter.move("jo", renewedElsewhere, session, timeout);
      String signIn = a.createSession().getId();

      assertThat(limiter.admit("jo", signIn, null, timeout))
          .containsExactlyInAnyOrder(session, renewed, renewedElsewhere);
      SessionKeys keys = a.shared().store().keys();
      byte[] set = keys.principal("jo", signIn);
      assertThat(clients.raw().smembers(set)).containsExactly(keys.member(signIn));
      assertThat(clients.raw().zrange(SessionLimiter.orderKey(set), 0, -1))
          .containsExactly(keys.member(signIn));
    }
  }

  /**
   * An anonymous session signing in with an id change whose save never happens (refused, or Redis
   * failed): the anonymous session lives on as it was, and is not the signed-in session that a later
   * sign-in evicts.
   */
  @Test
  void admit_evictingASignInWhoseIdChangeWasNeverWritten_leavesTheAnonymousSession() {
    try (LazyRedisSessionRepository a = node(clients.a(), TestRedis.uniqueNamespace("limit-anon"),
        SessionLimit.evictOldest(1), new RecordingEventPublisher())) {
      LazySession anonymous = a.createSession();
      anonymous.setAttribute("cart", "tea");
      a.save(anonymous);
      SessionLimiter limiter = a.shared().limiter();
      Duration timeout = a.defaultMaxInactiveInterval();
      String neverWritten = a.createSession().getId();
      limiter.admit("lee", neverWritten, anonymous.getId(), timeout); // its save then failed

      assertThat(limiter.admit("lee", a.createSession().getId(), null, timeout))
          .containsExactly(neverWritten);
      assertThat(a.findById(anonymous.getId())).as("the anonymous session").isNotNull();
    }
  }

  /**
   * A sign-in on A evicts a session while B is changing that session's id (B loaded it before the
   * eviction; its save comes after the admission, before A deletes the evicted hash). B's admission
   * must not count the new id as one more sign-in: it would evict the session that just signed in
   * (evict-oldest) to make room for a session that is gone, whose id change then renames the hash
   * A is about to delete. The move from an evicted id is answered as gone: B writes nothing.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("faces")
  void save_idChangeOfASessionEvictedMeanwhile_writesNothingAndEvictsNobody(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    RecordingEventPublisher events = new RecordingEventPublisher();
    String namespace = TestRedis.uniqueNamespace("limit-gone");
    try (LazyRedisSessionRepository a = node(clients.a(), namespace, SessionLimit.evictOldest(1),
            events);
        LazyRedisSessionRepository b = node(clients.b(), namespace, SessionLimit.evictOldest(1),
            new RecordingEventPublisher())) {
      Face onB = faceOf.apply(b);
      String evicted = signedIn(a, "max");
      LazySession loaded = onB.find(evicted);
      LazySession signIn = a.createSession();
      signIn.setAttribute(PRINCIPAL, "max");
      Duration timeout = a.defaultMaxInactiveInterval();
      assertThat(a.shared().limiter().admit("max", signIn.getId(), null, timeout))
          .as("the sign-in's admission, before it deletes what it evicts").containsExactly(evicted);

      String newId = loaded.changeSessionId();
      onB.save(loaded);

      assertThat(a.findById(newId)).as("the evicted session under its new id").isNull();
      SessionKeys keys = a.shared().store().keys();
      byte[] set = keys.principal("max", signIn.getId());
      assertThat(clients.raw().smembers(set)).containsExactly(keys.member(signIn.getId()));
      assertThat(clients.raw().zrange(SessionLimiter.orderKey(set), 0, -1))
          .containsExactly(keys.member(signIn.getId()));
      a.shared().expiry().evict(evicted); // the rest of the sign-in's save
      a.save(signIn);
      assertThat(a.findByPrincipalName("max").keySet()).containsExactly(signIn.getId());
      assertThat(events.ofType(SessionDeletedEvent.class)).extracting(e -> e.getSessionId())
          .containsExactly(evicted);
    }
  }

  private static String signedIn(LazyRedisSessionRepository node, String principal) {
    LazySession session = node.createSession();
    session.setAttribute(PRINCIPAL, principal);
    node.save(session);
    return session.getId();
  }

  /** A limit, and how many other sessions the user has, so that one more sign-in fits. */
  static Stream<Arguments> withinTheLimit() {
    return Stream.of(Arguments.of(SessionLimit.refuseNew(2), 0),
        Arguments.of(SessionLimit.evictOldest(2), 0), Arguments.of(SessionLimit.evictOldest(3), 1),
        Arguments.of(SessionLimit.refuseNew(3), 1));
  }

  /**
   * Without expiry events nothing marks a sign-in in flight on the schedule: a lookup of the user's
   * sessions (an admin page, a "sign out everywhere") that meets its id before its hash exists
   * must still keep the entry, for the limit's next run takes an id out of the sign-in order once
   * it is out of the set, and the sign-in, out of the order after its write, would delete itself
   * although the user is within the limit.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("faces")
  void findByPrincipalName_duringASignInWithoutExpiryEvents_keepsItAdmitted(
      Function<LazyRedisSessionRepository, Face> faceOf) throws Exception {
    SessionLimit limit = SessionLimit.evictOldest(2);
    String namespace = TestRedis.uniqueNamespace("limit-lookup");
    RecordingEventPublisher events = new RecordingEventPublisher();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (LazyRedisSessionRepository a = withoutExpiryEvents(clients.a(), namespace, limit, events);
        LazyRedisSessionRepository b = withoutExpiryEvents(clients.b(), namespace, limit, events)) {
      LazySession first = a.createSession();
      first.setAttribute(PRINCIPAL, "gil");
      CountDownLatch write = new CountDownLatch(1);
      Future<?> firstSaved = savedUntilAdmitted(a, first, thread, write);
      try {
        assertThat(faceOf.apply(b).findByPrincipalName("gil")).isEmpty(); // no hash yet
        LazySession second = b.createSession();
        second.setAttribute(PRINCIPAL, "gil");
        b.save(second); // within the limit of two
      } finally {
        write.countDown();
      }
      firstSaved.get(30, TimeUnit.SECONDS);

      assertThat(b.findById(first.getId())).as("the first sign-in").isNotNull();
      assertThat(faceOf.apply(b).findByPrincipalName("gil")).hasSize(2);
      assertThat(events.ofType(SessionDeletedEvent.class)).isEmpty();
    } finally {
      thread.shutdownNow();
    }
  }

  /**
   * A session already stored (anonymous) signs in: its admission puts its id in the set and the
   * sign-in order before its hash stores the principal. A lookup of the user's sessions (an admin
   * page, Spring Security's session registry) meeting it in between must keep its entry: removed,
   * another sign-in's script takes the id out of the order, and the sign-in, out of the order after
   * its write, deletes itself although the user is within the limit.
   */
  @ParameterizedTest(name = "{0}, expiry events {1}")
  @MethodSource("facesAndExpiryEvents")
  void findByPrincipalName_duringTheSignInOfAStoredSession_keepsItAdmitted(
      Function<LazyRedisSessionRepository, Face> faceOf, boolean expiryEvents) throws Exception {
    SessionLimit limit = SessionLimit.evictOldest(2);
    String namespace = TestRedis.uniqueNamespace("limit-lookup-stored");
    RecordingEventPublisher events = new RecordingEventPublisher();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (LazyRedisSessionRepository a = node(clients.a(), namespace, limit, events, expiryEvents);
        LazyRedisSessionRepository b = node(clients.b(), namespace, limit, events, expiryEvents)) {
      LazySession first = storedSigningIn(a, "hank");
      CountDownLatch write = new CountDownLatch(1);
      Future<?> firstSaved = savedUntilAdmitted(a, first, thread, write);
      try {
        assertThat(faceOf.apply(b).findByPrincipalName("hank")).isEmpty(); // no principal yet
        signedIn(b, "hank"); // within the limit of two
      } finally {
        write.countDown();
      }
      firstSaved.get(30, TimeUnit.SECONDS);

      assertThat(b.findById(first.getId())).as("the first sign-in").isNotNull();
      assertThat(faceOf.apply(b).findByPrincipalName("hank")).hasSize(2);
      assertThat(events.ofType(SessionDeletedEvent.class)).isEmpty();
    } finally {
      thread.shutdownNow();
    }
  }

  /**
   * The same lookup with refuse-new and a limit of one: had it removed the entry of the sign-in in
   * flight, a second sign-in's script would find the user with no session and admit it, and the
   * first one's write would follow: two live sessions for a limit of one.
   */
  @ParameterizedTest(name = "{0}, expiry events {1}")
  @MethodSource("facesAndExpiryEvents")
  void save_signInWhileALookupMeetsAnotherSignInInFlight_isRefused(
      Function<LazyRedisSessionRepository, Face> faceOf, boolean expiryEvents) throws Exception {
    SessionLimit limit = SessionLimit.refuseNew(1);
    String namespace = TestRedis.uniqueNamespace("limit-lookup-refuse");
    RecordingEventPublisher events = new RecordingEventPublisher();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (LazyRedisSessionRepository a = node(clients.a(), namespace, limit, events, expiryEvents);
        LazyRedisSessionRepository b = node(clients.b(), namespace, limit, events, expiryEvents)) {
      LazySession first = storedSigningIn(a, "ida");
      CountDownLatch write = new CountDownLatch(1);
      Future<?> firstSaved = savedUntilAdmitted(a, first, thread, write);
      LazySession second = b.createSession();
      second.setAttribute(PRINCIPAL, "ida");
      try {
        assertThat(faceOf.apply(b).findByPrincipalName("ida")).isEmpty(); // no principal yet
        assertThatThrownBy(() -> b.save(second))
            .isInstanceOf(SessionLimitExceededException.class);
      } finally {
        write.countDown();
      }
      firstSaved.get(30, TimeUnit.SECONDS);

      assertThat(faceOf.apply(b).findByPrincipalName("ida").keySet())
          .containsExactly(first.getId());
    } finally {
      thread.shutdownNow();
    }
  }

  /**
   * An id change of a session that signed in long ago, at its most exposed point: the old hash is
   * taken, the new one not written yet, and a lookup meets both ids then. The new id keeps the old
   * sign-in time (older than the in-flight minute), but the recent admissions name it with the id
   * it replaces: the lookup keeps its entry, and another sign-in's script counts it as in flight,
   * one session with the old id, so refuse-new still refuses a sign-in beyond a limit of one;
   * also when the id change comes between that sign-in's first call, which saw only the old id,
   * and its check of the ids, which finds the old hash gone.
   */
  @ParameterizedTest(name = "expiry events {0}, during the check {1}")
  @MethodSource("expiryEventsAndMoments")
  void save_signInWhileALongSignedInSessionChangesItsIdAfterItsHashIsTaken_isRefused(
      boolean expiryEvents, boolean duringTheCheck) {
    SessionLimit limit = SessionLimit.refuseNew(1);
    String namespace = TestRedis.uniqueNamespace("limit-id-change-taken");
    RecordingEventPublisher events = new RecordingEventPublisher();
    HookedClock clock = new HookedClock(java.time.Clock.systemUTC());
    try (LazyRedisSessionRepository a = node(clients.a(), namespace, limit, events, expiryEvents);
        LazyRedisSessionRepository b = LazyRedisSessionRepository.builder(clients.b())
            .serializer(TestRedis.serializer()).namespace(namespace).sessionLimit(limit)
            .eventPublisher(events).expiryEvents(expiryEvents).cleanupInterval(Duration.ZERO)
            .clock(clock).build()) {
      String session = signedIn(a, "jan");
      SessionKeys keys = a.shared().store().keys();
      byte[] order = SessionLimiter.orderKey(keys.principal("jan", session));
      Double signedIn = clients.raw().zscore(order, keys.member(session));
      assertThat(signedIn).as("sign-in time").isNotNull();
      clients.raw().zadd(order, signedIn - 120_000, keys.member(session)); // two minutes ago
      String newId = a.createSession().getId();
      Duration timeout = a.defaultMaxInactiveInterval();
      Runnable idChange = () -> { // what its save does before it writes the new hash
        assertThat(a.shared().limiter().admitAndEvict("jan", newId, session, timeout)).isTrue();
        assertThat(a.shared().expiry().claimAndTake(session)).as("the old hash").isNotNull();
        assertThat(a.findByPrincipalName("jan")).isEmpty(); // neither id has a hash now
      };
      String signIn = b.createSession().getId();
      java.util.concurrent.atomic.AtomicBoolean changed =
          new java.util.concurrent.atomic.AtomicBoolean();
      if (duringTheCheck) {
        // The limiter reads the clock first when it checks the ids of a first call's answer.
        clock.onRead(1, () -> {
          idChange.run();
          changed.set(true);
        });
      } else {
        idChange.run();
        changed.set(true);
      }

      assertThatThrownBy(() -> b.shared().limiter().admit("jan", signIn, null, timeout))
          .isInstanceOf(SessionLimitExceededException.class);
      assertThat(changed).as("the id change ran").isTrue();
      assertThat(clients.raw().zscore(order, keys.member(newId))).as("sign-in time kept")
          .isEqualTo(signedIn - 120_000);
    }
  }

  static Stream<Arguments> expiryEventsAndMoments() {
    return Stream.of(Arguments.of(true, false), Arguments.of(false, false),
        Arguments.of(true, true), Arguments.of(false, true));
  }

  /** A stored anonymous session, loaded again and given a principal: its next save signs it in. */
  private static LazySession storedSigningIn(LazyRedisSessionRepository node, String principal) {
    LazySession anonymous = node.createSession();
    anonymous.setAttribute("cart", "tea");
    node.save(anonymous);
    LazySession loaded = node.findById(anonymous.getId());
    loaded.setAttribute(PRINCIPAL, principal);
    return loaded;
  }

  private static LazyRedisSessionRepository node(io.lettuce.core.RedisClient client,
      String namespace, SessionLimit limit, RecordingEventPublisher events, boolean expiryEvents) {
    return expiryEvents ? node(client, namespace, limit, events)
        : withoutExpiryEvents(client, namespace, limit, events);
  }

  static Stream<Arguments> facesAndExpiryEvents() {
    return faces().flatMap(face -> Stream.of(Arguments.of(face, true), Arguments.of(face, false)));
  }

  static Stream<Function<LazyRedisSessionRepository, Face>> faces() {
    return Stream.of(Face::servlet, Face::reactive);
  }

  /**
   * Starts {@code node.save(session)} on {@code thread} and returns once the limit admitted it,
   * before anything of it is written; the save goes on when {@code write} counts down.
   */
  private static Future<?> savedUntilAdmitted(LazyRedisSessionRepository node,
      LazySession session, ExecutorService thread, CountDownLatch write)
      throws InterruptedException {
    CountDownLatch admitted = new CountDownLatch(1);
    node.shared().limiter().onAdmitted(() -> {
      admitted.countDown();
      awaitQuietly(write);
    });
    Future<?> saved = thread.submit(() -> node.save(session));
    assertThat(admitted.await(30, TimeUnit.SECONDS)).isTrue();
    return saved;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void getQuietly(Future<?> future) {
    try {
      future.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static Stream<SessionLimit> oneSession() {
    return Stream.of(SessionLimit.evictOldest(1), SessionLimit.refuseNew(1));
  }

  @Test
  void save_signInBeyondTheLimit_evictsTheOldestWithItsAttributesInTheEvent() {
    RecordingEventPublisher events = new RecordingEventPublisher();
    try (LazyRedisSessionRepository a = node(clients.a(), TestRedis.uniqueNamespace("limit"),
        SessionLimit.evictOldest(2), events)) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        LazySession session = a.createSession();
        session.setAttribute("device", "device-" + i);
        session.setAttribute(PRINCIPAL, "bob");
        a.save(session);
        ids.add(session.getId());
      }

      assertThat(a.findById(ids.get(0))).isNull();
      assertThat(a.findByPrincipalName("bob").keySet()).containsExactlyInAnyOrder(ids.get(1),
          ids.get(2));
      List<SessionDeletedEvent> deleted = events.ofType(SessionDeletedEvent.class);
      assertThat(deleted).hasSize(1);
      assertThat(deleted.get(0).getSessionId()).isEqualTo(ids.get(0));
      assertThat(deleted.get(0).getSession().<String>getAttribute("device")).isEqualTo("device-0");
    }
  }

  @Test
  void save_signInAfterSignOutOrDelete_isNotCountedAgainstTheLimit() {
    try (LazyRedisSessionRepository a = node(clients.a(), TestRedis.uniqueNamespace("limit"),
        SessionLimit.refuseNew(1), new RecordingEventPublisher())) {
      LazySession first = a.createSession();
      first.setAttribute(PRINCIPAL, "cy");
      a.save(first);
      LazySession refused = a.createSession();
      refused.setAttribute(PRINCIPAL, "cy");
      assertThatThrownBy(() -> a.save(refused)).isInstanceOf(SessionLimitExceededException.class)
          .hasMessageContaining("'cy' already has 1 live session(s)")
          .hasMessageContaining("lazysession.max-sessions-per-principal=1")
          .hasMessageContaining("lazysession.max-sessions-action=refuse-new");
      assertThat(a.findById(refused.getId())).as("nothing written").isNull();

      a.deleteById(first.getId()); // sign-out with invalidation
      a.save(refused);
      LazySession signedOut = a.findById(refused.getId());
      signedOut.removeAttribute(PRINCIPAL); // sign-out without invalidation
      a.save(signedOut);
      LazySession third = a.createSession();
      third.setAttribute(PRINCIPAL, "cy");
      a.save(third);

      assertThat(a.findByPrincipalName("cy").keySet()).containsExactly(third.getId());
    }
  }

  @Test
  void save_idChangeOfASignedInSession_keepsItsPlaceAndEvictsNobody() {
    RecordingEventPublisher events = new RecordingEventPublisher();
    try (LazyRedisSessionRepository a = node(clients.a(), TestRedis.uniqueNamespace("limit"),
        SessionLimit.evictOldest(1), events)) {
      LazySession session = a.createSession();
      session.setAttribute(PRINCIPAL, "dee");
      a.save(session);
      LazySession loaded = a.findById(session.getId());
      String newId = loaded.changeSessionId();
      a.save(loaded);

      assertThat(a.findById(newId)).isNotNull();
      assertThat(a.findByPrincipalName("dee").keySet()).containsExactly(newId);
      assertThat(events.ofType(SessionDeletedEvent.class)).isEmpty();
    }
  }

  @Test
  void findById_sessionEvictedOnAnotherNode_isNotServedFromNearCachesNorTrackedReads() {
    String namespace = TestRedis.uniqueNamespace("limit-cache");
    SessionLimit limit = SessionLimit.evictOldest(1);
    try (LazyRedisSessionRepository evicting = node(clients.a(), namespace, limit,
            new RecordingEventPublisher());
        LazyRedisSessionRepository validating = node(clients.b(), namespace, limit,
            new RecordingEventPublisher());
        LazyRedisSessionRepository tracked = LazyRedisSessionRepository.builder(clients.b())
            .serializer(TestRedis.serializer()).namespace(namespace).sessionLimit(limit)
            .cleanupInterval(java.time.Duration.ZERO)
            .nearCacheTracking(java.time.Duration.ofMillis(500)).build()) {
      LazySession first = validating.createSession();
      first.setAttribute(PRINCIPAL, "eve");
      validating.save(first);
      String id = first.getId();
      NearCacheTrackingIT.awaitTrustedHit(tracked, id); // a copy served with no call at all
      assertThat(validating.findById(id)).isNotNull(); // a copy Redis confirms

      LazySession second = evicting.createSession();
      second.setAttribute(PRINCIPAL, "eve");
      evicting.save(second);

      assertThat(validating.findById(id)).isNull();
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(tracked.findById(id)).isNull());
    }
  }

  @Test
  void save_otherSessionsExpiredButNotSwept_areNotCounted() {
    MutableClock clock = MutableClock.startingNow();
    try (LazyRedisSessionRepository a = LazyRedisSessionRepository.builder(clients.a())
        .serializer(TestRedis.serializer()).namespace(TestRedis.uniqueNamespace("limit"))
        .sessionLimit(SessionLimit.refuseNew(1)).cleanupInterval(java.time.Duration.ZERO)
        .clock(clock).build()) {
      LazySession first = a.createSession();
      first.setAttribute(PRINCIPAL, "fay");
      a.save(first);
      clock.advance(LazyRedisSessionRepository.DEFAULT_MAX_INACTIVE_INTERVAL);

      LazySession second = a.createSession();
      second.setAttribute(PRINCIPAL, "fay");
      a.save(second);

      assertThat(a.findByPrincipalName("fay").keySet()).containsExactly(second.getId());
    }
  }
}
