package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.session.FindByIndexNameSessionRepository;

/**
 * Expiry events off, across nodes: a save from a copy loaded before another node set the principal
 * still keeps the principal's set alive; what a node with events on does with the delete of a
 * session that a node without them created; a hash without a readable timeout never leaves a set
 * without a TTL.
 */
class ExpiryEventsOffNodesIT {
  static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
  static final Duration T = Duration.ofMinutes(10);
  static final Duration GRACE = Duration.ofMinutes(5);

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .defaultMaxInactiveInterval(T).expiryGrace(GRACE).cleanupInterval(Duration.ZERO)
      .expiryEvents(false));

  byte[] principalKey(String name) {
    return (nodes.namespace() + ":principal:" + name).getBytes(UTF_8);
  }

  /** Moves the clock to just after the start of the next period of T. */
  void toNextPeriod() {
    long now = nodes.clock().millis();
    long t = T.toMillis();
    nodes.clock().advance(Duration.ofMillis((Math.floorDiv(now, t) + 1) * t - now + 1));
  }

  /**
   * The set's TTL is renewed by the save that moves the last access into a new period of T; that
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
        .isGreaterThan(2 * T.toMillis());
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
    assertThat(nodes.raw().pttl(principalKey("carol"))).isGreaterThan(2 * T.toMillis());
  }

  /**
   * A session created with events off and deleted (a logout) by a node with events on: deleted, but
   * reported by nobody (documented; reporting it would break exactly-once reporting of a delete
   * racing a sweep, ExpiryIT).
   */
  @Test
  void delete_onANodeWithEvents_ofASessionCreatedWithout_deletesItUnreported() {
    LazySession created = nodes.b().createSession(); // b: events off
    created.setAttribute("cart", "two books");
    nodes.b().save(created);
    LazyRedisSessionRepository on = nodes.restartA(builder -> builder.expiryEvents(true));

    on.deleteById(created.getId());
    on.cleanUpExpiredSessions();

    assertThat(nodes.raw().exists(nodes.sessionKey(created.getId()))).isZero();
    assertThat(nodes.destroyed()).isEmpty();
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
