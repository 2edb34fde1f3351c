package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tracked reads on a real Redis: a trusted hit sends nothing (Redis's own command counters), another
 * node's write is seen once a lease renewal that began after it was answered, a lapsed lease and a
 * killed tracking connection fall back to validated calls, and Redis setups where tracking cannot
 * work are refused at startup. No timing is asserted: conditions are awaited with a deadline.
 */
class NearCacheTrackingIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private static final Duration BOUND = Duration.ofMillis(400);
  private static final Duration DEADLINE = Duration.ofSeconds(20);

  static RedisClient client;
  static StatefulRedisConnection<String, String> adminConnection;
  static RedisCommands<String, String> admin;
  /**
   * For writes that carry a save's mark: open from the start, since the mark is this node's own
   * only for the bound from when it was made, and connecting on a loaded machine can take longer.
   */
  static StatefulRedisConnection<byte[], byte[]> rawConnection;
  static CommandStats commandStats;

  @BeforeAll
  static void start() {
    client = RedisClient.create(redis.uri());
    adminConnection = client.connect();
    admin = adminConnection.sync();
    rawConnection = client.connect(ByteArrayCodec.INSTANCE);
    commandStats = new CommandStats(admin);
  }

  @AfterAll
  static void stop() {
    adminConnection.close();
    rawConnection.close();
    client.shutdown();
  }

  static LazyRedisSessionRepositoryBuilder node(String namespace) {
    return LazyRedisSessionRepository.builder(client).serializer(TestRedis.serializer())
        .namespace(namespace).cleanupInterval(Duration.ZERO);
  }

  static LazyRedisSessionRepository tracked(String namespace) {
    return node(namespace).nearCacheTracking(BOUND).build();
  }

  static TrackingConnection tracking(LazyRedisSessionRepository repository) {
    TrackingConnection tracking = repository.shared().tracking();
    assertThat(tracking).isNotNull();
    return tracking;
  }

  /** Finds {@code id} until a find is a trusted hit (the first ones are confirmed by Redis). */
  static LazySession awaitTrustedHit(LazyRedisSessionRepository repository, String id) {
    LazySession[] found = new LazySession[1];
    await().atMost(DEADLINE).until(() -> {
      long before = repository.metrics().nearCacheTrustedHits();
      found[0] = repository.findById(id);
      return repository.metrics().nearCacheTrustedHits() == before + 1;
    });
    return found[0];
  }

  /** The commands Redis ran during {@code action}, without the tracking connection's renewals. */
  static Map<String, Long> commandsDuring(Runnable action) {
    Map<String, Long> commands = new TreeMap<>(commandStats.during(action));
    commands.remove("ping");
    commands.remove("role");
    return commands;
  }

  static String saved(LazyRedisSessionRepository repository, String currency) {
    LazySession session = repository.createSession();
    session.setAttribute("currency", currency);
    repository.save(session);
    return session.getId();
  }

  static void changeCurrency(LazyRedisSessionRepository node, String id, String currency) {
    LazySession session = node.findById(id);
    session.setAttribute("currency", currency);
    node.save(session);
  }

  /** The next find is confirmed by Redis and sees {@code currency}; later ones are trusted again. */
  static void assertSeenByAValidatedCallThenTrusted(LazyRedisSessionRepository node, String id,
      String currency) {
    long trustedBefore = node.metrics().nearCacheTrustedHits();
    assertThat(node.findById(id).<String>getAttribute("currency")).isEqualTo(currency);
    assertThat(node.metrics().nearCacheTrustedHits()).isEqualTo(trustedBefore);
    assertThat(awaitTrustedHit(node, id).<String>getAttribute("currency")).isEqualTo(currency);
  }

  @Test
  void findById_trustedHit_sendsNoCommandToRedis() {
    try (LazyRedisSessionRepository node = tracked(TestRedis.uniqueNamespace("track-zero"))) {
      String id = saved(node, "EUR");
      awaitTrustedHit(node, id);
      RepositoryMetrics before = node.metrics();

      Map<String, Long> commands = commandsDuring(() -> {
        for (int i = 0; i < 20; i++) {
          assertThat(node.findById(id).<String>getAttribute("currency")).isEqualTo("EUR");
        }
      });

      assertThat(commands).isEmpty();
      RepositoryMetrics after = node.metrics();
      assertThat(after.nearCacheTrustedHits()).isEqualTo(before.nearCacheTrustedHits() + 20);
      assertThat(after.roundTrips()).isEqualTo(before.roundTrips());
      assertThat(after.loads()).isEqualTo(before.loads());
    }
  }

  /**
   * {@code b} changes a session {@code a} holds a trusted copy of: {@code a} sees it by a validated
   * call once a lease begun after the write is answered, then trusts its copy again.
   */
  static void assertAnotherNodesWriteSeenOnceALeaseBegunAfterIt(LazyRedisSessionRepository a,
      LazyRedisSessionRepository b) {
      String id = saved(a, "EUR");
      awaitTrustedHit(a, id);

      changeCurrency(b, id, "CHF");
      NearCacheTracking tracking = tracking(a).tracking();
      long written = tracking.nanoTime();
      await().atMost(DEADLINE).until(() -> tracking.leaseFrom() > written);

      assertSeenByAValidatedCallThenTrusted(a, id, "CHF");
  }

  @Test
  void findById_anotherNodesWrite_seenOnceALeaseBegunAfterItIsAnswered() {
    String namespace = TestRedis.uniqueNamespace("track-other");
    try (LazyRedisSessionRepository a = tracked(namespace);
        LazyRedisSessionRepository b = node(namespace).build()) {
      assertAnotherNodesWriteSeenOnceALeaseBegunAfterIt(a, b);
    }
  }

  @Test
  void findById_anotherNodesWriteWithKeyedNames_seenOnceALeaseBegunAfterItIsAnswered() {
    String namespace = TestRedis.uniqueNamespace("track-keyed");
    byte[] secret = new byte[EncryptionKey.SECRET_BYTES];
    new java.util.Random(3).nextBytes(secret);
    SessionEncryption keys = SessionEncryption.builder()
        .keys(java.util.List.of(EncryptionKey.of("k1", secret))).build();
    try (LazyRedisSessionRepository a = node(namespace).encryption(keys)
        .nearCacheTracking(BOUND).build();
        LazyRedisSessionRepository b = node(namespace).encryption(keys).build()) {
      assertAnotherNodesWriteSeenOnceALeaseBegunAfterIt(a, b);
    }
  }

  @Test
  void findById_leaseOlderThanTheBound_confirmedByRedisAgain() {
    try (LazyRedisSessionRepository node = tracked(TestRedis.uniqueNamespace("track-lapse"))) {
      String id = saved(node, "EUR");
      awaitTrustedHit(node, id);
      TrackingConnection tracking = tracking(node);
      tracking.pauseRenewals(true);
      await().atMost(DEADLINE).until(() -> !tracking.tracking().leaseValid());
      RepositoryMetrics before = node.metrics();

      Map<String, Long> commands = commandsDuring(() -> {
        for (int i = 0; i < 5; i++) {
          assertThat(node.findById(id).<String>getAttribute("currency")).isEqualTo("EUR");
        }
      });

      assertThat(commands).containsEntry(commandStats.findCommand(), 5L);
      assertThat(node.metrics().nearCacheTrustedHits()).isEqualTo(before.nearCacheTrustedHits());
      assertThat(node.metrics().nearCacheHits()).isEqualTo(before.nearCacheHits() + 5);
      tracking.pauseRenewals(false);
      awaitTrustedHit(node, id);
    }
  }

  @Test
  void findById_trackingConnectionKilled_confirmedByRedisUntilTrackingIsBack() {
    String namespace = TestRedis.uniqueNamespace("track-kill");
    try (LazyRedisSessionRepository a = tracked(namespace);
        LazyRedisSessionRepository b = node(namespace).build()) {
      String id = saved(a, "EUR");
      awaitTrustedHit(a, id);
      NearCacheTracking tracking = tracking(a).tracking();
      long generation = tracking.generation();

      admin.clientKill(KillArgs.Builder.id(trackingConnectionId()));
      await().atMost(DEADLINE).until(() -> tracking.generation() != generation);
      // Written while this node may not be tracking: it must still see it.
      changeCurrency(b, id, "CHF");

      assertSeenByAValidatedCallThenTrusted(a, id, "CHF");
      assertThat(trackingConnectionId()).as("reconnected, tracking again").isPositive();
    }
  }

  @Test
  void findById_trustedHitOfAnExpiredSession_returnsNull() {
    MutableClock clock = MutableClock.startingNow();
    try (LazyRedisSessionRepository node = node(TestRedis.uniqueNamespace("track-expiry"))
        .clock(clock).nearCacheTracking(BOUND).build()) {
      LazySession session = node.createSession();
      session.setMaxInactiveInterval(Duration.ofMinutes(1));
      node.save(session);
      awaitTrustedHit(node, session.getId());
      clock.advance(Duration.ofMinutes(2));
      long trustedBefore = node.metrics().nearCacheTrustedHits();

      assertThat(node.findById(session.getId())).isNull();
      assertThat(node.metrics().nearCacheTrustedHits()).isEqualTo(trustedBefore + 1);
    }
  }

  @Test
  void save_afterATrustedHitWhoseTouchIsDue_writesTheAccessTime() {
    MutableClock clock = MutableClock.startingNow();
    try (LazyRedisSessionRepository node = node(TestRedis.uniqueNamespace("track-touch"))
        .clock(clock).touchInterval(Duration.ofSeconds(10)).nearCacheTracking(BOUND).build()) {
      LazySession session = node.createSession();
      node.save(session);
      awaitTrustedHit(node, session.getId());
      clock.advance(Duration.ofSeconds(11));
      LazySession hit = awaitTrustedHit(node, session.getId());
      hit.setLastAccessedTime(clock.instant());
      long savesBefore = node.metrics().saves();

      node.save(hit);

      assertThat(node.metrics().saves()).isEqualTo(savesBefore + 1);
    }
  }

  @Test
  void build_resp2Client_refusedNamingTheProperty() {
    RedisClient resp2 = RedisClient.create(redis.uri());
    resp2.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build());
    try {
      assertThatThrownBy(() -> LazyRedisSessionRepository.builder(resp2)
          .serializer(TestRedis.serializer()).nearCacheTracking(BOUND).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lazysession.near-cache.mode=track")
          .hasMessageContaining("RESP3");
    } finally {
      resp2.shutdown();
    }
  }

  @Test
  void build_aclRefusingClientTracking_refusedNamingTheProperty() {
    // ACL rules for one subcommand ("-client|tracking") arrived with Redis 7.
    redis.assumeAtLeast(7, 0, "ACL rules that take one subcommand away (-client|tracking)");
    admin.aclSetuser("no-tracking", io.lettuce.core.AclSetuserArgs.Builder.on()
        .addPassword("secret").allKeys().allChannels().allCommands()
        .removeCommand(io.lettuce.core.protocol.CommandType.CLIENT,
            io.lettuce.core.protocol.CommandKeyword.TRACKING));
    RedisClient limited = RedisClient.create(RedisURI.builder(redis.uri())
        .withAuthentication("no-tracking", "secret").build());
    try {
      assertThatThrownBy(() -> LazyRedisSessionRepository.builder(limited)
          .serializer(TestRedis.serializer()).nearCacheTracking(BOUND).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lazysession.near-cache.mode=track")
          .hasMessageContaining("CLIENT TRACKING");
    } finally {
      limited.shutdown();
      admin.aclDeluser("no-tracking");
    }
  }

  @Test
  void reactiveFace_ofATrackedRepository_refusedNamingTheProperty() {
    try (LazyRedisSessionRepository node = tracked(TestRedis.uniqueNamespace("track-reactive"))) {
      assertThatThrownBy(() -> LazyReactiveRedisSessionRepository.of(node))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lazysession.near-cache.mode=validate");
    }
  }

  // ---- A save's own invalidation (its mark: <hash>:w:<writer>) ------------------------------------
  // A change on a tracked node is one round trip: the save's own copy is trusted by the next request,
  // because the push for the save names the node's mark and no other writer's. Pushes are awaited
  // through the lease (a renewal sent after the write was answered), never through a sleep.

  @Test
  void save_onATrackedNode_nextChangeIsOneRoundTripWithATrustedFind() {
    try (LazyRedisSessionRepository node = tracked(TestRedis.uniqueNamespace("track-own"))) {
      String id = saved(node, "EUR");
      awaitTrustedHit(node, id);
      int[] change = {0};
      changeCurrency(node, id, "C0"); // from here on, each change finds what the one before saved
      // A lease renewal late under load costs a validated find now and then: awaited, not asserted
      // for every change. Before saves were marked, no change after a change was one round trip.
      await().atMost(DEADLINE).until(() -> {
        RepositoryMetrics before = node.metrics();
        changeCurrency(node, id, "C" + (++change[0]));
        RepositoryMetrics after = node.metrics();
        return after.roundTrips() - before.roundTrips() == 1
            && after.nearCacheTrustedHits() == before.nearCacheTrustedHits() + 1;
      });
      assertThat(node.findById(id).<String>getAttribute("currency")).isEqualTo("C" + change[0]);
    }
  }

  @Test
  void save_anotherNodesChangeRightAfterThisNodesSave_isSeen() {
    String namespace = TestRedis.uniqueNamespace("track-own-other");
    try (LazyRedisSessionRepository node = tracked(namespace);
        LazyRedisSessionRepository other = tracked(namespace)) {
      String id = saved(node, "EUR");
      awaitTrustedHit(node, id);
      for (int i = 1; i <= 20; i++) {
        changeCurrency(node, id, "mine-" + i); // its own copy is trusted from here
        changeCurrency(other, id, "theirs-" + i);
        awaitLeaseRenewedAfterNow(node); // by then the push of the other node's save was read

        assertThat(node.findById(id).<String>getAttribute("currency")).isEqualTo("theirs-" + i);
      }
    }
  }

  /** Waits until a lease renewal sent after now was answered: pushes sent before it were read. */
  static void awaitLeaseRenewedAfterNow(LazyRedisSessionRepository node) {
    NearCacheTracking tracking = tracking(node).tracking();
    long now = tracking.nanoTime();
    await().atMost(DEADLINE).until(() -> tracking.leaseFrom() > now);
  }

  @Test
  void invalidation_theHashWithThisNodesMarkOnly_isThisNodesOwnAndNotCounted() {
    // A mark is the node's own for the staleness bound from when it was made: a bound of seconds,
    // so that a loaded machine's delay between the mark and its push does not make it another's.
    String namespace = TestRedis.uniqueNamespace("track-mark");
    try (LazyRedisSessionRepository node =
        node(namespace).nearCacheTracking(Duration.ofSeconds(5)).build()) {
      String id = saved(node, "EUR");
      awaitTrustedHit(node, id);
      byte[][] keys = node.shared().store().keys().saveKeys(id);

      writeAndAwaitItsPush(node, keys[0], List.of(keys[1]));

      assertTrustedHit(node, id, true);
    }
  }

  @Test
  void invalidation_theHashWithThisNodesMarkAndAnothersInOnePush_isCounted() {
    try (LazyRedisSessionRepository node = tracked(TestRedis.uniqueNamespace("track-mark2"))) {
      String id = saved(node, "EUR");
      awaitTrustedHit(node, id);
      byte[][] keys = node.shared().store().keys().saveKeys(id);
      byte[] anotherMark = SessionKeys.markKey(keys[0], "another-node.1");

      writeAndAwaitItsPush(node, keys[0], List.of(keys[1], anotherMark));

      assertTrustedHit(node, id, false);
    }
  }

  @Test
  void invalidation_theHashWithoutAnyMark_isCounted() {
    try (LazyRedisSessionRepository node = tracked(TestRedis.uniqueNamespace("track-nomark"))) {
      String id = saved(node, "EUR");
      awaitTrustedHit(node, id);
      byte[][] keys = node.shared().store().keys().saveKeys(id);

      writeAndAwaitItsPush(node, keys[0], List.of());

      assertTrustedHit(node, id, false);
    }
  }

  /** Whether the next find of {@code id} is a trusted hit (sends nothing) or asks Redis. */
  private static void assertTrustedHit(LazyRedisSessionRepository node, String id,
      boolean trusted) {
    long before = node.metrics().nearCacheTrustedHits();
    assertThat(node.findById(id).<String>getAttribute("currency")).isEqualTo("EUR");
    assertThat(node.metrics().nearCacheTrustedHits()).isEqualTo(before + (trusted ? 1 : 0));
  }

  /**
   * Writes and restores a probe field of {@code hash} and writes and deletes {@code marks}, in one
   * script (so one push names them all, as for a save), then waits until a lease renewal sent
   * after it was answered: by then the node has read the push.
   */
  private static void writeAndAwaitItsPush(LazyRedisSessionRepository node, byte[] hash,
      List<byte[]> marks) {
    List<byte[]> keys = new ArrayList<>();
    keys.add(hash);
    keys.addAll(marks);
    String script = "redis.call('HSET', KEYS[1], '~probe', '1') redis.call('HDEL', KEYS[1], "
        + "'~probe') for i = 2, #KEYS do redis.call('SET', KEYS[i], '') "
        + "redis.call('DEL', KEYS[i]) end return 1";
    rawConnection.sync().eval(script, ScriptOutputType.INTEGER, keys.toArray(new byte[0][]));
    awaitLeaseRenewedAfterNow(node);
  }

  /** The id of the tracking connection in CLIENT LIST (by its client name); 0 when absent. */
  static long trackingConnectionId() {
    return Arrays.stream(admin.clientList().split("\n"))
        .filter(line -> line.contains(" name=" + TrackingConnection.CLIENT_NAME + " "))
        .mapToLong(NearCacheResetIT::id).findFirst().orElse(0);
  }
}
