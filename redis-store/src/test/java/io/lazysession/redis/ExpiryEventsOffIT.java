package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionDestroyedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * Expiry events off ({@code expiryEvents(false)}): no expiry schedule is written nor swept, expired
 * sessions are reported by nobody and dropped by Redis, deletes are still reported, and the
 * principal sets expire by themselves without losing a live session. Both nodes sweep in the
 * background as far as their cleanup interval goes.
 */
class ExpiryEventsOffIT {
  static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
  static final Duration MAX_INACTIVE = Duration.ofMinutes(10);
  static final Duration GRACE = Duration.ofMinutes(5);

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .defaultMaxInactiveInterval(MAX_INACTIVE)
      .expiryGrace(GRACE)
      .cleanupInterval(Duration.ofMillis(20))
      .expiryEvents(false));

  byte[] expirations() {
    return (nodes.namespace() + ":expirations").getBytes(UTF_8);
  }

  byte[] principalKey(String name) {
    return (nodes.namespace() + ":principal:" + name).getBytes(UTF_8);
  }

  LazySession saved(LazyRedisSessionRepository node, String principal) {
    LazySession session = node.createSession();
    session.setAttribute("cart", "two books");
    if (principal != null) {
      session.setAttribute(PRINCIPAL, principal);
    }
    node.save(session);
    return session;
  }

  @Test
  void save_everyKindOfWrite_neverCreatesTheSchedule() {
    LazySession session = saved(nodes.a(), "alice");
    String id = session.getId();
    nodes.clock().advance(Duration.ofMinutes(1));
    LazySession touched = nodes.b().findById(id);
    touched.setLastAccessedTime(nodes.clock().instant());
    nodes.b().save(touched); // a touch: the due time moves
    LazySession changed = nodes.a().findById(id);
    changed.setMaxInactiveInterval(Duration.ofMinutes(20));
    changed.setAttribute(PRINCIPAL, "bob");
    nodes.a().save(changed);
    LazySession moved = nodes.b().findById(id);
    String newId = moved.changeSessionId();
    nodes.b().save(moved);
    LazySession never = nodes.a().createSession();
    never.setMaxInactiveInterval(Duration.ofSeconds(-1));
    nodes.a().save(never);
    nodes.a().deleteById(never.getId());

    assertThat(nodes.raw().exists(expirations())).isZero();
    assertThat(nodes.b().findByPrincipalName("bob")).containsOnlyKeys(newId);
  }

  @Test
  void expiredSession_firesNoEventAndRedisDropsItsHash() {
    LazySession session = nodes.a().createSession();
    session.setMaxInactiveInterval(Duration.ofSeconds(1));
    nodes.a().save(session);
    nodes.restartB(builder -> builder.expiryGrace(Duration.ZERO));
    LazySession shortLived = nodes.b().createSession();
    shortLived.setMaxInactiveInterval(Duration.ofSeconds(1));
    nodes.b().save(shortLived);

    nodes.clock().advance(Duration.ofSeconds(2));

    assertThat(nodes.a().findById(session.getId())).isNull();
    assertThat(nodes.a().cleanUpExpiredSessions()).isZero();
    assertThat(nodes.b().cleanUpExpiredSessions()).isZero();
    assertThat(nodes.raw().pttl(nodes.sessionKey(session.getId())))
        .as("the hash expires by its TTL (timeout + grace)").isPositive()
        .isLessThanOrEqualTo(Duration.ofSeconds(1).plus(GRACE).toMillis());
    await().atMost(Duration.ofSeconds(30))
        .until(() -> nodes.raw().exists(nodes.sessionKey(shortLived.getId())) == 0);
    assertThat(nodes.destroyed()).isEmpty();
    assertThat(nodes.raw().exists(expirations())).isZero();
  }

  @Test
  void deleteById_liveSession_isReportedAsDeletedOnce() {
    LazySession session = saved(nodes.a(), "alice");

    nodes.b().deleteById(session.getId());
    nodes.a().deleteById(session.getId());

    assertThat(nodes.destroyed()).singleElement().isInstanceOf(SessionDeletedEvent.class)
        .extracting(SessionDestroyedEvent::getSessionId).isEqualTo(session.getId());
    assertThat(nodes.raw().exists(principalKey("alice"))).isZero();
  }

  @Test
  void deleteAndSweep_scheduleANodeWithEventsOnWrote_isLeftAlone() {
    LazySession session = saved(nodes.a(), null);
    nodes.raw().zadd(expirations(), 1, "gone".getBytes(UTF_8));
    nodes.raw().zadd(expirations(), 2, session.getId().getBytes(UTF_8));

    nodes.b().deleteById(session.getId());
    assertThat(nodes.a().cleanUpExpiredSessions()).isZero();

    assertThat(nodes.raw().zrange(expirations(), 0, -1)).extracting(String::new)
        .containsExactly("gone", session.getId());
    assertThat(nodes.destroyed()).singleElement().isInstanceOf(SessionDeletedEvent.class);
  }

  @Test
  void save_withPrincipal_givesTheSetATtlOfTwiceTheTimeoutPlusGrace() {
    saved(nodes.a(), "alice");

    assertThat(nodes.raw().pttl(principalKey("alice"))).isPositive()
        .isGreaterThan(MAX_INACTIVE.plus(GRACE).toMillis())
        .isLessThanOrEqualTo(MAX_INACTIVE.multipliedBy(2).plus(GRACE).toMillis());
  }

  @Test
  void save_sessionsWithDifferentTimeouts_theSetLivesAsLongAsTheLongest() {
    LazySession longer = nodes.a().createSession();
    longer.setMaxInactiveInterval(Duration.ofHours(1));
    longer.setAttribute(PRINCIPAL, "alice");
    nodes.a().save(longer);
    saved(nodes.b(), "alice");

    assertThat(nodes.raw().pttl(principalKey("alice")))
        .isGreaterThan(Duration.ofHours(2).toMillis());
  }

  @Test
  void save_sessionThatNeverExpires_leavesTheSetWithoutTtl() {
    saved(nodes.a(), "alice");
    LazySession never = nodes.b().createSession();
    never.setMaxInactiveInterval(Duration.ofSeconds(-1));
    never.setAttribute(PRINCIPAL, "alice");
    nodes.b().save(never);
    saved(nodes.a(), "alice");

    assertThat(nodes.raw().pttl(principalKey("alice"))).isEqualTo(-1);
    assertThat(nodes.a().findByPrincipalName("alice")).hasSize(3);
  }

  @Test
  void save_touchesAcrossATimeout_keepTheSetAlive() {
    LazySession session = saved(nodes.a(), "alice");
    // As if the set's TTL had run down: only a save that renews it lets it outlive the session.
    nodes.raw().pexpire(principalKey("alice"), 60_000);

    for (int i = 0; i < 2; i++) {
      nodes.clock().advance(MAX_INACTIVE.multipliedBy(6).dividedBy(10));
      LazySession touched = nodes.b().findById(session.getId());
      touched.setLastAccessedTime(nodes.clock().instant());
      nodes.b().save(touched);
    }

    assertThat(nodes.raw().pttl(principalKey("alice")))
        .isGreaterThan(MAX_INACTIVE.plus(GRACE).toMillis());
    assertThat(nodes.a().findByPrincipalName("alice")).containsOnlyKeys(session.getId());
  }

  @Test
  void findByPrincipalName_expiredSession_isNotReturnedAndItsEntryGoesWithItsHash() {
    LazySession expired = saved(nodes.a(), "alice");
    nodes.clock().advance(MAX_INACTIVE.plusSeconds(1));
    LazySession live = saved(nodes.b(), "alice");

    assertThat(nodes.a().findByPrincipalName("alice")).containsOnlyKeys(live.getId());
    nodes.raw().del(nodes.sessionKey(expired.getId())); // as its TTL does
    assertThat(nodes.b().findByPrincipalName("alice")).containsOnlyKeys(live.getId());

    assertThat(nodes.raw().smembers(principalKey("alice"))).extracting(String::new)
        .containsExactly(live.getId());
    assertThat(nodes.raw().pttl(principalKey("alice"))).isPositive();
    assertThat(nodes.destroyed()).isEmpty();
  }

  @Test
  void findByPrincipalName_whileTheCreateIsInFlight_theEntryComesBack() {
    HookedClock clock = new HookedClock(nodes.clock());
    LazyRedisSessionRepository writer =
        nodes.another(nodes.clientA(), nodes.eventsA(), builder -> builder.clock(clock));
    LazySession session = writer.createSession();
    session.setAttribute(PRINCIPAL, "alice");
    Map<String, LazySession> during = new LinkedHashMap<>();
    // The save script's arguments are the first clock reading of a create: by then the index
    // entry is written and the hash is not, and no schedule says the write is in flight.
    clock.onRead(1, () -> during.putAll(nodes.b().findByPrincipalName("alice")));

    writer.save(session);

    assertThat(during).isEmpty();
    assertThat(nodes.b().findByPrincipalName("alice")).containsOnlyKeys(session.getId());
    assertThat(nodes.raw().pttl(principalKey("alice"))).isPositive();
  }

  @Test
  void rollingSwitch_nodeWithEventsOn_reportsWhatItScheduledOnce() {
    LazyRedisSessionRepository on = nodes.restartA(builder -> builder.expiryEvents(true)
        .cleanupInterval(Duration.ZERO));
    LazySession session = saved(on, "alice");
    nodes.clock().advance(Duration.ofMinutes(5));
    LazySession touched = nodes.b().findById(session.getId());
    touched.setLastAccessedTime(nodes.clock().instant());
    nodes.b().save(touched); // the node with events off leaves the scheduled due time as it was

    nodes.clock().advance(Duration.ofMinutes(6)); // past the scheduled due time, not the new one
    assertThat(on.cleanUpExpiredSessions()).isZero();
    assertThat(nodes.b().findById(session.getId())).isNotNull();
    nodes.clock().advance(Duration.ofMinutes(5));
    assertThat(on.cleanUpExpiredSessions()).isEqualTo(1);
    assertThat(nodes.b().cleanUpExpiredSessions()).isZero();

    assertThat(nodes.destroyed()).singleElement().isInstanceOf(SessionExpiredEvent.class)
        .extracting(SessionDestroyedEvent::getSessionId).isEqualTo(session.getId());
    assertThat(nodes.b().findByPrincipalName("alice")).isEmpty();
  }

  @Test
  void reactive_savesTouchesAndDeletes_asTheServletRepository() {
    LazyReactiveRedisSessionRepository reactive = LazyReactiveRedisSessionRepository.of(nodes.b());
    LazySession session = reactive.createSession().block();
    session.setAttribute(PRINCIPAL, "alice");
    reactive.save(session).block();
    assertThat(nodes.raw().pttl(principalKey("alice"))).isPositive();
    nodes.raw().pexpire(principalKey("alice"), 60_000);
    for (int i = 0; i < 2; i++) {
      nodes.clock().advance(MAX_INACTIVE.multipliedBy(6).dividedBy(10));
      LazySession touched = reactive.findById(session.getId()).block();
      touched.setLastAccessedTime(nodes.clock().instant());
      reactive.save(touched).block();
    }
    assertThat(nodes.raw().pttl(principalKey("alice")))
        .isGreaterThan(MAX_INACTIVE.plus(GRACE).toMillis());
    LazySession moved = reactive.findById(session.getId()).block();
    String newId = moved.changeSessionId();
    reactive.save(moved).block();
    LazySession expiring = reactive.createSession().block();
    reactive.save(expiring).block();

    reactive.deleteById(newId).block();
    nodes.clock().advance(MAX_INACTIVE.plusSeconds(1));

    assertThat(reactive.findById(expiring.getId()).blockOptional()).isEmpty();
    assertThat(reactive.cleanUpExpiredSessions().block()).isZero();
    assertThat(nodes.raw().exists(expirations())).isZero();
    assertThat(nodes.destroyed()).singleElement().isInstanceOf(SessionDeletedEvent.class)
        .extracting(SessionDestroyedEvent::getSessionId).isEqualTo(newId);
    assertThat(reactive.findByPrincipalName("alice").block()).isEmpty();
  }

  // Across nodes: a save from a copy loaded before another node set the principal still keeps the
  // principal's set alive; what a node with events on does with the delete of a session that a node
  // without them created; a hash without a readable timeout never leaves a set without a TTL.

  /** Moves the clock to just after the start of the next period of MAX_INACTIVE. */
  void toNextPeriod() {
    long now = nodes.clock().millis();
    long t = MAX_INACTIVE.toMillis();
    nodes.clock().advance(Duration.ofMillis((Math.floorDiv(now, t) + 1) * t - now + 1));
  }

  /**
   * The set's TTL is renewed by the save that moves the last access into a new period of MAX_INACTIVE; that
   * save may come from a copy loaded before another node signed the user in (no principal in it).
   */
  @Test
  void save_copyLoadedBeforeTheSignIn_crossesAPeriod_addsToThePrincipalRedisHolds() {
    toNextPeriod();
    nodes.clock().advance(Duration.ofMinutes(1));
    LazySession created = nodes.a().createSession();
    created.setAttribute("cart", "two books");
    nodes.a().save(created);
    String id = created.getId();
    LazySession staleOnA = nodes.a().findById(id); // loaded before the sign-in: no principal
    LazySession onB = nodes.b().findById(id);
    onB.setAttribute(PRINCIPAL, "alice"); // sign-in without an id change
    nodes.b().save(onB);
    // What the set's TTL would have done by the end of the next period, had it not been renewed.
    nodes.raw().del(principalKey("alice"));

    toNextPeriod();
    staleOnA.setLastAccessedTime(nodes.clock().instant());
    staleOnA.setAttribute("cart", "three books");
    nodes.a().save(staleOnA);

    assertThat(nodes.raw().smembers(principalKey("alice")))
        .containsExactly(id.getBytes(UTF_8));
    assertThat(nodes.raw().pttl(principalKey("alice")))
        .isGreaterThan(2 * MAX_INACTIVE.toMillis());
    assertThat(nodes.b().findByPrincipalName("alice")).containsOnlyKeys(id);
  }

  /** As above, the stale copy saved through the reactive repository. */
  @Test
  void reactiveSave_copyLoadedBeforeTheSignIn_crossesAPeriod_addsToThePrincipalRedisHolds() {
    LazyReactiveRedisSessionRepository reactiveA = LazyReactiveRedisSessionRepository.of(nodes.a());
    toNextPeriod();
    nodes.clock().advance(Duration.ofMinutes(1));
    LazySession created = reactiveA.createSession().block();
    created.setAttribute("cart", "two books");
    reactiveA.save(created).block();
    String id = created.getId();
    LazySession staleOnA = reactiveA.findById(id).block(); // loaded before the sign-in
    LazySession onB = nodes.b().findById(id);
    onB.setAttribute(PRINCIPAL, "carol");
    nodes.b().save(onB);
    nodes.raw().del(principalKey("carol"));

    toNextPeriod();
    staleOnA.setLastAccessedTime(nodes.clock().instant());
    staleOnA.setAttribute("cart", "three books");
    reactiveA.save(staleOnA).block();

    assertThat(nodes.raw().smembers(principalKey("carol")))
        .containsExactly(id.getBytes(UTF_8));
    assertThat(nodes.raw().pttl(principalKey("carol"))).isGreaterThan(2 * MAX_INACTIVE.toMillis());
  }

  /**
   * A session created with events off and deleted (a logout) by a node with events on: deleted and
   * reported as deleted, once (the call that deletes a live hash reports it, claim or not).
   */
  @Test
  void delete_onANodeWithEvents_ofASessionCreatedWithout_deletesItAndReportsItOnce() {
    LazySession created = nodes.b().createSession(); // b: events off
    created.setAttribute("cart", "two books");
    nodes.b().save(created);
    LazyRedisSessionRepository on = nodes.restartA(builder -> builder.expiryEvents(true));

    on.deleteById(created.getId());
    on.cleanUpExpiredSessions();

    assertThat(nodes.raw().exists(nodes.sessionKey(created.getId()))).isZero();
    assertThat(nodes.destroyed()).singleElement().isInstanceOf(SessionDeletedEvent.class)
        .extracting(SessionDestroyedEvent::getSessionId).isEqualTo(created.getId());
  }

  @Test
  void findByPrincipalName_hashWithoutATimeout_entryRemovedAndTheSetKeepsItsTtl() {
    LazySession created = nodes.a().createSession();
    created.setAttribute(PRINCIPAL, "bob");
    nodes.a().save(created);
    byte[] key = nodes.sessionKey(created.getId());
    nodes.raw().hdel(key, "#".getBytes(UTF_8)); // incomplete: counts as missing

    assertThat(nodes.b().findByPrincipalName("bob")).isEmpty();

    assertThat(nodes.raw().smembers(principalKey("bob"))).isEmpty();
    assertThat(nodes.raw().pttl(principalKey("bob"))).isNotEqualTo(-1L);
  }
}
