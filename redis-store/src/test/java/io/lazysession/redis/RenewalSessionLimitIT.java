package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionDestroyedEvent;

/**
 * The limit of sessions per principal together with id renewal, with and without encryption keys:
 * a renewed session keeps its place in the sign-in order under its new id, and the alias its old
 * id leaves is not a session of its own.
 */
class RenewalSessionLimitIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final Duration INTERVAL = Duration.ofMinutes(15);
  static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .defaultMaxInactiveInterval(Duration.ofHours(1))
      .idRenewal(INTERVAL, Duration.ofSeconds(10)));

  private static void configure(boolean keys, SessionLimit limit) {
    nodes.configure(builder -> keys ? builder.sessionLimit(limit)
        .encryption(KeyedNamesIT.k1(false, false)) : builder.sessionLimit(limit));
  }

  private static LazySession signIn(LazyRedisSessionRepository node, String user) {
    LazySession session = node.createSession();
    session.setAttribute(PRINCIPAL, user);
    node.save(session);
    return session;
  }

  /** A session of {@code user} signed in on A and renewed on B: its new id. */
  private static String signedInAndRenewed(String user) {
    String oldId = signIn(nodes.a(), user).getId();
    nodes.clock().advance(INTERVAL);
    String newId = nodes.b().findById(oldId).getId();
    assertThat(newId).isNotEqualTo(oldId);
    return newId;
  }

  private static List<String> deleted() {
    return nodes.destroyed().stream().peek(e -> assertThat(e).isInstanceOf(
        SessionDeletedEvent.class)).map(SessionDestroyedEvent::getSessionId).toList();
  }

  @ParameterizedTest(name = "keys {0}")
  @ValueSource(booleans = {false, true})
  void evictOldest1_signInAfterARenewal_evictsTheRenewedSessionAlone(boolean keys) {
    configure(keys, SessionLimit.evictOldest(1));
    String renewed = signedInAndRenewed("una");

    String second = signIn(nodes.a(), "una").getId();

    assertThat(nodes.a().findById(renewed)).isNull();
    assertThat(nodes.b().findByPrincipalName("una")).containsOnlyKeys(second);
    assertThat(deleted()).containsExactly(renewed);
  }

  @ParameterizedTest(name = "keys {0}")
  @ValueSource(booleans = {false, true})
  void refuseNew1_signInAfterARenewal_isRefused(boolean keys) {
    configure(keys, SessionLimit.refuseNew(1));
    String renewed = signedInAndRenewed("vic");

    LazySession second = nodes.a().createSession();
    second.setAttribute(PRINCIPAL, "vic");
    assertThatThrownBy(() -> nodes.a().save(second))
        .isInstanceOf(SessionLimitExceededException.class);

    assertThat(nodes.a().findById(renewed)).isNotNull();
    assertThat(nodes.b().findByPrincipalName("vic")).containsOnlyKeys(renewed);
    assertThat(deleted()).isEmpty();
  }

  @ParameterizedTest(name = "keys {0}")
  @ValueSource(booleans = {false, true})
  void evictOldest2_renewedSessionKeepsItsPlace_theOldestIsEvicted(boolean keys)
      throws InterruptedException {
    configure(keys, SessionLimit.evictOldest(2));
    String first = signIn(nodes.a(), "wes").getId();
    Thread.sleep(5); // the order counts Redis's milliseconds: the second signs in later
    String second = signIn(nodes.b(), "wes").getId();
    nodes.clock().advance(INTERVAL);
    String renewed = nodes.a().findById(second).getId(); // the later one renewed, the first not
    assertThat(renewed).isNotEqualTo(second);

    String third = signIn(nodes.b(), "wes").getId();

    assertThat(nodes.a().findByPrincipalName("wes")).containsOnlyKeys(renewed, third);
    assertThat(nodes.a().findById(first)).isNull();
    assertThat(deleted()).containsExactly(first);
  }

  /**
   * A renewal of a session that signed in long ago moves it to its new id with its old sign-in
   * time, before the copy under that id is written. Another sign-in at the limit in between must
   * count the new id as in flight (admitted a moment ago): else it takes the new id out of the
   * order, which its writer's index entry joins again as the oldest sign-in, first to be evicted.
   */
  @ParameterizedTest(name = "keys {0}")
  @ValueSource(booleans = {false, true})
  void refuseNew1_signInWhileALongSignedInSessionIsRenewed_isRefusedAndTheRenewedKeepsItsPlace(
      boolean keys) throws Exception {
    configure(keys, SessionLimit.refuseNew(1));
    LazySession session = signIn(nodes.a(), "yul");
    SessionKeys sessionKeys = nodes.a().shared().store().keys();
    byte[] order = SessionLimiter.orderKey(sessionKeys.principal("yul", session.getId()));
    byte[] member = sessionKeys.member(session.getId());
    Double signedIn = nodes.raw().zscore(order, member);
    assertThat(signedIn).as("sign-in time").isNotNull();
    nodes.raw().zadd(order, signedIn - 120_000, member); // as a sign-in two minutes ago
    nodes.clock().advance(INTERVAL);
    CountDownLatch write = new CountDownLatch(1);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      Future<String> renewed = renewedOnBUntilAdmitted(session.getId(), thread, write);
      LazySession second = nodes.a().createSession();
      second.setAttribute(PRINCIPAL, "yul");
      try {
        assertThatThrownBy(() -> nodes.a().save(second))
            .isInstanceOf(SessionLimitExceededException.class);
      } finally {
        write.countDown();
      }
      String newId = renewed.get(30, TimeUnit.SECONDS);

      assertThat(newId).isNotEqualTo(session.getId());
      assertThat(nodes.a().findByPrincipalName("yul")).containsOnlyKeys(newId);
      assertThat(nodes.raw().zscore(order, sessionKeys.member(newId)))
          .as("sign-in time kept (else it joins the order again as the oldest)")
          .isEqualTo(signedIn - 120_000);
      assertThat(deleted()).isEmpty();
    } finally {
      thread.shutdownNow();
    }
  }

  /**
   * While a session is renewed, its old and new ids are both in the sign-in order (the copy under
   * the new id is not written yet): another sign-in counts them as one session.
   */
  @ParameterizedTest(name = "keys {0}")
  @ValueSource(booleans = {false, true})
  void refuseNew2_signInWhileTheOtherSessionIsRenewed_isAdmitted(boolean keys) throws Exception {
    configure(keys, SessionLimit.refuseNew(2));
    LazySession session = signIn(nodes.a(), "zed");
    nodes.clock().advance(INTERVAL);
    CountDownLatch write = new CountDownLatch(1);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      Future<String> renewed = renewedOnBUntilAdmitted(session.getId(), thread, write);
      String second;
      try {
        second = signIn(nodes.a(), "zed").getId();
      } finally {
        write.countDown();
      }
      String newId = renewed.get(30, TimeUnit.SECONDS);

      assertThat(nodes.a().findByPrincipalName("zed")).containsOnlyKeys(newId, second);
      assertThat(deleted()).isEmpty();
    } finally {
      thread.shutdownNow();
    }
  }

  /**
   * A sign-in (an id change) in a request that loaded the session before another request renewed
   * it moves the session from its renewed id, which holds its place in the sign-in order: it stays
   * the oldest, and the next sign-in beyond the limit evicts it, not a younger session.
   */
  @ParameterizedTest(name = "keys {0}")
  @ValueSource(booleans = {false, true})
  void evictOldest2_idChangeLoadedBeforeARenewal_keepsTheSessionsPlace(boolean keys)
      throws InterruptedException {
    configure(keys, SessionLimit.evictOldest(2));
    String first = signIn(nodes.a(), "cal").getId();
    LazySession inFlight = nodes.b().findById(first);
    Thread.sleep(5); // the order counts Redis's milliseconds: the second signs in later
    String second = signIn(nodes.a(), "cal").getId();
    nodes.clock().advance(INTERVAL);
    assertThat(nodes.a().findById(first).getId()).as("renewed").isNotEqualTo(first);

    String changed = inFlight.changeSessionId();
    nodes.b().save(inFlight);
    assertThat(nodes.a().findByPrincipalName("cal")).containsOnlyKeys(changed, second);
    Thread.sleep(5);
    String third = signIn(nodes.b(), "cal").getId();

    assertThat(nodes.a().findByPrincipalName("cal")).containsOnlyKeys(second, third);
    assertThat(deleted()).containsExactly(changed);
  }

  /**
   * A sign-in evicts a session just as another node renews it (the renewal loaded it before the
   * eviction and moves it after the admission, before the evicted hash is deleted): the renewal
   * must not carry the session on under a new id, the newest in the order, one over the limit.
   */
  @ParameterizedTest(name = "keys {0}")
  @ValueSource(booleans = {false, true})
  void evictOldest1_renewalOfASessionEvictedMeanwhile_writesNothing(boolean keys) {
    configure(keys, SessionLimit.evictOldest(1));
    String evicted = signIn(nodes.a(), "abe").getId();
    nodes.clock().advance(INTERVAL);
    LazySession signIn = nodes.a().createSession();
    signIn.setAttribute(PRINCIPAL, "abe");
    assertThat(nodes.a().shared().limiter().admit("abe", signIn.getId(), null,
        Duration.ofHours(1))).as("the sign-in's admission, before it deletes what it evicts")
        .containsExactly(evicted);

    assertThat(nodes.b().findById(evicted)).as("renewed while evicted").isNull();

    nodes.a().shared().expiry().evict(evicted); // the rest of the sign-in's save
    nodes.a().save(signIn);
    assertThat(nodes.b().findByPrincipalName("abe")).containsOnlyKeys(signIn.getId());
    assertThat(deleted()).containsExactly(evicted);
  }

  /**
   * Starts a find of {@code id} on B, due for renewal, on {@code thread}, and returns once the limit
   * admitted its new id, before the copy under it is written; the renewal goes on when {@code
   * write} counts down. The future answers the new id.
   */
  private static Future<String> renewedOnBUntilAdmitted(String id, ExecutorService thread,
      CountDownLatch write) throws InterruptedException {
    CountDownLatch admitted = new CountDownLatch(1);
    nodes.b().shared().limiter().onAdmitted(() -> {
      admitted.countDown();
      try {
        assertThat(write.await(30, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    Future<String> renewed = thread.submit(() -> nodes.b().findById(id).getId());
    assertThat(admitted.await(30, TimeUnit.SECONDS)).isTrue();
    return renewed;
  }
}
