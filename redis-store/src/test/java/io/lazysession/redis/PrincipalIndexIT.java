package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.session.FindByIndexNameSessionRepository;

/**
 * The principal index under races between nodes: a lookup never drops the entry of a session being
 * created or moved to a new id, and only finds a session under the principal its hash stores.
 */
class PrincipalIndexIT {
  static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  byte[] principalKey(String name) {
    return (nodes.namespace() + ":principal:" + name).getBytes(UTF_8);
  }

  /** Node A on a clock that runs a lookup on node B at the n-th reading during the next call. */
  LazyRedisSessionRepository writerWithHook(HookedClock clock) {
    return nodes.another(nodes.clientA(), nodes.eventsA(), builder -> builder.clock(clock));
  }

  @Test
  void findByPrincipalName_whileTheCreateIsInFlight_keepsTheIndexEntry() {
    HookedClock clock = new HookedClock(nodes.clock());
    LazyRedisSessionRepository writer = writerWithHook(clock);
    LazySession session = writer.createSession();
    session.setAttribute(PRINCIPAL, "alice");
    Map<String, LazySession> during = new LinkedHashMap<>();
    // The save script's arguments are the first clock reading of a create: by then the index
    // entry is written and the hash is not.
    clock.onRead(1, () -> during.putAll(nodes.b().findByPrincipalName("alice")));

    writer.save(session);

    assertThat(during).isEmpty();
    assertThat(nodes.b().findByPrincipalName("alice")).containsOnlyKeys(session.getId());
  }

  @Test
  void findByPrincipalName_whileTheCreateOfANeverExpiringSessionIsInFlight_keepsTheIndexEntry() {
    HookedClock clock = new HookedClock(nodes.clock());
    LazyRedisSessionRepository writer = writerWithHook(clock);
    LazySession session = writer.createSession();
    session.setMaxInactiveInterval(Duration.ofSeconds(-1));
    session.setAttribute(PRINCIPAL, "alice");
    Map<String, LazySession> during = new LinkedHashMap<>();
    // Readings: the in-flight mark on the schedule, then the save script's arguments (by then the
    // index entry is written and the hash is not).
    clock.onRead(2, () -> during.putAll(nodes.b().findByPrincipalName("alice")));

    writer.save(session);

    assertThat(during).isEmpty();
    assertThat(nodes.b().findByPrincipalName("alice")).containsOnlyKeys(session.getId());
    nodes.clock().advance(ExpirySweeper.IN_FLIGHT.plusSeconds(1));
    nodes.a().cleanUpExpiredSessions();
    assertThat(nodes.b().findById(session.getId())).as("never expires").isNotNull();
    assertThat(nodes.b().findByPrincipalName("alice")).containsOnlyKeys(session.getId());
  }

  @Test
  void findByPrincipalName_whileTheIdChanges_keepsTheNewIdsEntry() {
    HookedClock clock = new HookedClock(nodes.clock());
    LazyRedisSessionRepository writer = writerWithHook(clock);
    LazySession created = writer.createSession();
    created.setAttribute(PRINCIPAL, "alice");
    writer.save(created);
    LazySession session = writer.findById(created.getId());
    String newId = session.changeSessionId();
    // Readings: the old id's delete, then the new id's create script.
    clock.onRead(2, () -> nodes.b().findByPrincipalName("alice"));

    writer.save(session);

    assertThat(nodes.b().findByPrincipalName("alice")).containsOnlyKeys(newId);
  }

  @Test
  void findByPrincipalName_twoRequestsSetDifferentPrincipals_findsOnlyTheStoredOne() {
    LazySession created = nodes.a().createSession();
    created.setAttribute(PRINCIPAL, "alice");
    nodes.a().save(created);
    String id = created.getId();
    LazySession first = nodes.a().findById(id);
    LazySession second = nodes.b().findById(id);
    first.setAttribute(PRINCIPAL, "bob");
    second.setAttribute(PRINCIPAL, "carol");

    nodes.a().save(first);
    nodes.b().save(second);

    assertThat(nodes.a().findByPrincipalName("carol")).containsOnlyKeys(id);
    assertThat(nodes.a().findByPrincipalName("bob")).isEmpty();
    assertThat(nodes.a().findByPrincipalName("alice")).isEmpty();
    assertThat(nodes.raw().sismember(principalKey("bob"), id.getBytes(UTF_8))).isFalse();
    assertThat(nodes.raw().sismember(principalKey("carol"), id.getBytes(UTF_8))).isTrue();
  }

  /**
   * A tombstone among the recent admissions (an id the limit of sessions per principal evicted or
   * found dead) is not a sign-in in flight: the entry of that id, whose hash is missing and which is
   * off the schedule, is removed at once (it was kept for up to two minutes). An admission that is
   * no tombstone still keeps it.
   */
  @Test
  void findByPrincipalName_entryOfAnEvictedId_isRemovedAtOnceDespiteItsTombstone() {
    seedTombstoneAndAdmission();
    assertThat(nodes.a().findByPrincipalName("alice")).isEmpty();
    assertThat(nodes.raw().smembers(principalKey("alice")))
        .extracting(member -> new String(member, UTF_8)).containsExactly("signing-in");

    seedTombstoneAndAdmission();
    assertThat(LazyReactiveRedisSessionRepository.of(nodes.b()).findByPrincipalName("alice")
        .block()).isEmpty();
    assertThat(nodes.raw().smembers(principalKey("alice")))
        .extracting(member -> new String(member, UTF_8)).containsExactly("signing-in");
  }

  /** Entries for two missing hashes: an evicted id (a tombstone), an id being signed in. */
  private void seedTombstoneAndAdmission() {
    byte[] admissions = SessionLimiter.admissionsKey(principalKey("alice"));
    String now = Long.toString(nodes.clock().millis());
    nodes.raw().sadd(principalKey("alice"), "evicted".getBytes(UTF_8),
        "signing-in".getBytes(UTF_8));
    nodes.raw().hset(admissions, "evicted".getBytes(UTF_8), (now + "!").getBytes(UTF_8));
    nodes.raw().hset(admissions, "signing-in".getBytes(UTF_8), now.getBytes(UTF_8));
  }

  @Test
  void findByPrincipalName_entryOfAGoneSession_isRemoved() {
    nodes.raw().sadd(principalKey("alice"), "gone".getBytes(UTF_8));

    assertThat(nodes.a().findByPrincipalName("alice")).isEmpty();
    assertThat(nodes.raw().exists(principalKey("alice"))).isZero();
  }
}
