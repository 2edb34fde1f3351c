package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Round trips per request, counted by Redis itself ({@code INFO commandstats}) on a server nothing
 * else uses meanwhile. Each delta is asserted whole: the one command the client sent (FCALL for a
 * find on Redis 7 and later, EVALSHA otherwise) plus the commands the script ran inside Redis.
 */
class CommandCountIT {
  static final String PRINCIPAL =
      org.springframework.session.FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static RedisClient client;
  static StatefulRedisConnection<String, String> statsConnection;
  static CommandStats stats;
  static LazyRedisSessionRepository repository;
  static LazyRedisSessionRepository cachingRepository;
  static final MutableClock clock = MutableClock.startingNow();

  @BeforeAll
  static void start() {
    client = RedisClient.create(redis.uri());
    statsConnection = client.connect();
    stats = new CommandStats(statsConnection.sync());
    repository = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer())
        .namespace(TestRedis.uniqueNamespace("commands"))
        .clock(clock)
        .cleanupInterval(Duration.ZERO)
        .touchInterval(Duration.ofSeconds(30))
        .nearCacheMaxBytes(0)
        .build();
    cachingRepository = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer())
        .namespace(repository.namespace())
        .clock(clock)
        .cleanupInterval(Duration.ZERO)
        .touchInterval(Duration.ofSeconds(30))
        .build();
  }

  @AfterAll
  static void stop() {
    repository.close();
    cachingRepository.close();
    statsConnection.close();
    client.shutdown();
  }

  static String storedSession() {
    LazySession session = repository.createSession();
    ShopFixtures.attributes().forEach(session::setAttribute);
    repository.save(session);
    return session.getId();
  }

  @Test
  void findById_existingSession_isOneScriptCall() {
    String id = storedSession();

    Map<String, Long> delta = stats.during(() -> repository.findById(id));

    assertThat(delta).isEqualTo(Map.of(stats.findCommand(), 1L, "hget", 1L, "hgetall", 1L));
  }

  @Test
  void findById_missingSession_isOneScriptCall() {
    Map<String, Long> delta = stats.during(() -> repository.findById("missing"));

    assertThat(delta).isEqualTo(Map.of(stats.findCommand(), 1L, "hget", 1L));
  }

  @Test
  void save_changedSession_isOneScriptCall() {
    LazySession session = repository.findById(storedSession());
    session.<ShopFixtures.Cart>getAttribute("cart").coupon = "CHANGED"; // in place
    session.setAttribute("visits", 43);
    session.removeAttribute("avatar");

    Map<String, Long> delta = stats.during(() -> repository.save(session));

    // One HMGET reads the metadata field and the format ('#f'), one the pack's fields to check the
    // pack is the one loaded (all three attributes live in it); one HSET writes the metadata with the next
    // version, one the new pack in chunks (the removed attribute leaves with it), OBJECT ENCODING
    // before and after it tells the hash stays compact. One HDEL deletes a field of the removed
    // attribute's name, which another node may have moved there meanwhile.
    assertThat(delta).isEqualTo(Map.of("evalsha", 1L, "hmget", 2L,
        "object|encoding", 2L, "hset", 2L, "hdel", 1L, "pexpire", 1L));
  }

  @Test
  void save_unchangedSessionWithinTouchInterval_sendsNothing() {
    LazySession session = repository.findById(storedSession());
    session.getAttribute("cart");
    session.getAttribute("customer");
    clock.advance(Duration.ofSeconds(10));
    session.setLastAccessedTime(clock.instant());

    Map<String, Long> delta = stats.during(() -> repository.save(session));

    assertThat(delta).isEmpty();
  }

  @Test
  void save_unchangedSessionAfterTouchInterval_isOneScriptCall() {
    LazySession session = repository.findById(storedSession());
    clock.advance(Duration.ofSeconds(31));
    session.setLastAccessedTime(clock.instant());

    Map<String, Long> delta = stats.during(() -> repository.save(session));

    assertThat(delta).isEqualTo(Map.of("evalsha", 1L, "hmget", 1L, "hset", 1L, "pexpire", 1L));
  }

  @Test
  void save_newSessionWithAPrincipal_withoutExpiryEvents_sendsNothingToTheSchedule() {
    try (LazyRedisSessionRepository noEvents = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer())
        .namespace(repository.namespace())
        .clock(clock)
        .expiryEvents(false)
        .build()) {
      LazySession withEvents = repository.createSession();
      withEvents.setAttribute(PRINCIPAL, "alice");
      LazySession without = noEvents.createSession();
      without.setAttribute(PRINCIPAL, "bob");

      Map<String, Long> scheduled = stats.during(() -> repository.save(withEvents));
      Map<String, Long> unscheduled = stats.during(() -> noEvents.save(without));

      assertThat(scheduled).containsEntry("zadd", 1L).containsEntry("sadd", 1L);
      // principal-add.lua before the save script and after it (EXISTS, SADD, then PEXPIRE on the
      // new set, PTTL and a PEXPIRE only if that lengthens it on the existing one), and the create
      // script as with events (EXISTS, OBJECT ENCODING, HSETs, PEXPIRE): nothing on the schedule.
      assertThat(unscheduled).doesNotContainKeys("zadd", "zrem", "zscore")
          .containsEntry("evalsha", 3L).containsEntry("exists", 3L).containsEntry("sadd", 2L)
          .containsEntry("pttl", 1L).containsEntry("hset", scheduled.get("hset"));
      assertThat(unscheduled.get("pexpire")).isBetween(2L, 3L);
      assertThat(unscheduled.keySet()).containsOnly("evalsha", "exists", "sadd", "pttl", "hset",
          "pexpire", "object|encoding");
    }
  }

  @Test
  void findById_nearCacheHoldsCurrentVersion_isOneScriptCallAnsweredInAFewBytes() {
    String id = storedSession();
    cachingRepository.findById(id); // loads and caches
    long bytesBefore = cachingRepository.metrics().bytesRead();

    Map<String, Long> delta = stats.during(() -> cachingRepository.findById(id));

    assertThat(delta).isEqualTo(Map.of(stats.findCommand(), 1L, "hget", 1L));
    assertThat(cachingRepository.metrics().bytesRead() - bytesBefore).isLessThan(64);
    assertThat(cachingRepository.metrics().nearCacheHits()).isPositive();
  }

  @Test
  void findById_nearCacheCopyOutdatedByOtherNode_loadsTheWholeHashInOneCall() {
    String id = storedSession();
    cachingRepository.findById(id);
    LazySession elsewhere = repository.findById(id);
    elsewhere.setAttribute("currency", "JPY");
    repository.save(elsewhere);

    LazySession[] loaded = new LazySession[1];
    Map<String, Long> delta = stats.during(() -> loaded[0] = cachingRepository.findById(id));

    assertThat(delta).isEqualTo(Map.of(stats.findCommand(), 1L, "hget", 1L, "hgetall", 1L));
    assertThat(loaded[0].<String>getAttribute("currency")).isEqualTo("JPY");
  }

  /**
   * The commands of one session's life (create, find, a change, sign-in, sweep) on
   * {@code repository}, step by step.
   */
  static java.util.List<Map<String, Long>> sessionLife(LazyRedisSessionRepository repository) {
    LazySession created = repository.createSession();
    created.setAttribute("csrf", "token");
    java.util.List<Map<String, Long>> steps = new java.util.ArrayList<>();
    steps.add(stats.during(() -> repository.save(created)));
    LazySession[] loaded = new LazySession[1];
    steps.add(stats.during(() -> loaded[0] = repository.findById(created.getId())));
    loaded[0].setAttribute("visits", 1);
    steps.add(stats.during(() -> repository.save(loaded[0])));
    LazySession signingIn = repository.findById(created.getId());
    signingIn.setAttribute(PRINCIPAL, "policy-user");
    steps.add(stats.during(() -> repository.save(signingIn)));
    steps.add(stats.during(() -> repository.deleteById(created.getId())));
    return steps;
  }

  @Test
  void sessionLife_absoluteTimeout_addsNoCommand() {
    try (LazyRedisSessionRepository absolute =
        withPolicy(30, builder -> builder.absoluteTimeout(Duration.ofHours(8)))) {
      assertThat(sessionLife(absolute)).isEqualTo(sessionLife(repository));
    }
  }

  @Test
  void sessionLife_anonymousTimeout_addsOneZaddAtSignIn() {
    try (LazyRedisSessionRepository anonymous =
        withPolicy(5, builder -> builder.anonymousTimeout(Duration.ofMinutes(2)))) {
      java.util.List<Map<String, Long>> withPolicy = sessionLife(anonymous);
      java.util.List<Map<String, Long>> without = sessionLife(repository);

      // The sign-in save stores the longer timeout and moves the session on the expiry schedule.
      Map<String, Long> signIn = new java.util.HashMap<>(without.get(3));
      signIn.merge("zadd", 1L, Long::sum);
      assertThat(withPolicy.get(3)).isEqualTo(signIn);
      withPolicy.remove(3);
      without.remove(3);
      assertThat(withPolicy).isEqualTo(without);
    }
  }

  @Test
  void sessionLife_idRenewalNotYetDue_addsNoCommand() {
    try (LazyRedisSessionRepository renewing = withPolicy(30,
        builder -> builder.idRenewal(Duration.ofMinutes(15), Duration.ofSeconds(10)))) {
      assertThat(sessionLife(renewing)).isEqualTo(sessionLife(repository));
    }
  }

  @Test
  void findById_idRenewalDue_commandsOfOneRenewal() {
    try (LazyRedisSessionRepository renewing = withPolicy(30,
        builder -> builder.idRenewal(Duration.ofMinutes(15), Duration.ofSeconds(10)))) {
      LazySession session = renewing.createSession();
      session.setAttribute(PRINCIPAL, "renewal-user");
      renewing.save(session);
      clock.advance(Duration.ofMinutes(15));

      Map<String, Long> renewal = stats.during(() -> renewing.findById(session.getId()));
      Map<String, Long> miss = stats.during(() -> renewing.findById("no-such-session-id-00"));

      // Sent: the find; the copy: ZADD (schedule), SADD (principal), EVALSHA save.lua; the swap:
      // ZREM (claim), EVALSHA renew.lua; SREM (the old id leaves the principal set). The rest runs
      // in the scripts: find's HGET and HGETALL; save's EXISTS, HSETs, OBJECT ENCODING (pack.lua)
      // and PEXPIRE; renew's HMGET, DEL, HSET and PEXPIRE.
      // Before Redis 7 the find is an EVALSHA too: three in all.
      Map<String, Long> expected = new TreeMap<>(Map.ofEntries(Map.entry("hget", 1L),
          Map.entry("hgetall", 1L), Map.entry("zadd", 1L), Map.entry("sadd", 1L),
          Map.entry("evalsha", 2L), Map.entry("exists", 1L), Map.entry("hset", 5L),
          Map.entry("object|encoding", 2L), Map.entry("pexpire", 2L), Map.entry("zrem", 1L),
          Map.entry("hmget", 1L), Map.entry("del", 1L), Map.entry("srem", 1L)));
      expected.merge(stats.findCommand(), 1L, Long::sum);
      assertThat(renewal).isEqualTo(expected);
      // A miss looks for the alias of a renewed id: one HMGET more.
      assertThat(miss).isEqualTo(Map.of(stats.findCommand(), 1L, "hget", 1L, "hmget", 1L));
    }
  }

  /**
   * A repository on this test's namespace and clock, without near cache nor sweep, touching after
   * {@code touchSeconds}, with {@code policy} set on its builder.
   */
  static LazyRedisSessionRepository withPolicy(int touchSeconds,
      java.util.function.UnaryOperator<LazyRedisSessionRepositoryBuilder> policy) {
    return policy.apply(LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(repository.namespace()).clock(clock)
        .cleanupInterval(Duration.ZERO).touchInterval(Duration.ofSeconds(touchSeconds))
        .nearCacheMaxBytes(0)).build();
  }

  /**
   * What the limit of sessions per principal adds to each step of a session's life (the commands
   * its script runs inside included); {@code roundTrips}: the round trips it adds to the life.
   */
  private static java.util.List<Map<String, Long>> added(SessionLimit limit, long roundTrips) {
    try (LazyRedisSessionRepository limited =
        withPolicy(30, builder -> builder.sessionLimit(limit))) {
      long limitedBefore = limited.metrics().roundTrips();
      java.util.List<Map<String, Long>> withPolicy = sessionLife(limited);
      long limitedTrips = limited.metrics().roundTrips() - limitedBefore;
      long before = repository.metrics().roundTrips();
      java.util.List<Map<String, Long>> without = sessionLife(repository);
      assertThat(limitedTrips - (repository.metrics().roundTrips() - before))
          .as("round trips added").isEqualTo(roundTrips);
      java.util.List<Map<String, Long>> added = new java.util.ArrayList<>();
      for (int step = 0; step < without.size(); step++) {
        Map<String, Long> difference = new java.util.TreeMap<>(withPolicy.get(step));
        without.get(step).forEach((command, count) -> difference.merge(command, -count, Long::sum));
        difference.values().removeIf(count -> count == 0);
        added.add(difference);
      }
      System.out.println("session limit " + limit + " adds, step by step: " + added);
      return added;
    }
  }

  static Stream<Arguments> sessionLimits() {
    return Stream.of(Arguments.of(SessionLimit.refuseNew(1), 1), // the script
        Arguments.of(SessionLimit.evictOldest(1), 2)); // the script, and a ZSCORE after the write
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sessionLimits")
  void sessionLife_sessionLimit_addsTheLimitScriptAtSignInOnly(SessionLimit limit,
      long roundTrips) {
    java.util.List<Map<String, Long>> added = added(limit, roundTrips);

    assertThat(added.get(3)).containsEntry("evalsha", 1L).doesNotContainKey("eval");
    added.remove(3);
    assertThat(added).allMatch(Map::isEmpty);
  }
}
