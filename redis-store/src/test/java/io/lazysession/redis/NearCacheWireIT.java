package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.FlushMode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.session.FindByIndexNameSessionRepository;

/**
 * The bytes a near-cache hit moves, counted by Redis ({@code INFO stats total_net_input_bytes} and
 * {@code total_net_output_bytes}) around a run of hits on a server nothing else uses meanwhile.
 * Bytes are deterministic, so they are asserted exactly.
 *
 * <p>Method: the request of the closing INFO is counted in its own snapshot and the reply of the
 * opening INFO in the closing one; the first is measured by a run without hits, the second is read
 * in RESP2, where it is exactly {@code $<length>\r\n<body>\r\n}.
 */
class NearCacheWireIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private static final Pattern INPUT = Pattern.compile("total_net_input_bytes:(\\d+)");
  private static final Pattern OUTPUT = Pattern.compile("total_net_output_bytes:(\\d+)");
  private static final int HITS = 50;

  static RedisClient client;
  static RedisClient statsClient;
  static StatefulRedisConnection<String, String> statsConnection;
  static RedisCommands<String, String> stats;
  static CommandStats commandStats;

  @BeforeAll
  static void start() {
    client = RedisClient.create(redis.uri());
    statsClient = RedisClient.create(redis.uri());
    statsClient.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build());
    statsConnection = statsClient.connect();
    stats = statsConnection.sync();
    commandStats = new CommandStats(stats);
  }

  @AfterAll
  static void stop() {
    statsConnection.close();
    statsClient.shutdown();
    client.shutdown();
  }

  @AfterEach
  void removeOtherFunctions() {
    if (redis.version().atLeast(7, 0)) {
      stats.functionFlush(FlushMode.SYNC);
    }
  }

  /** A repository with lazysession's default namespace and ids (22 characters). */
  static LazyRedisSessionRepository repository() {
    return LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer())
        .cleanupInterval(Duration.ZERO)
        .build();
  }

  /** Bytes into and out of Redis per hit: {@link #HITS} finds of a session in the near cache. */
  static long[] bytesPerHit(LazyRedisSessionRepository repository, String id) {
    long infoRequest = traffic(() -> { })[0];
    long[] traffic = traffic(() -> {
      for (int i = 0; i < HITS; i++) {
        repository.findById(id);
      }
    });
    long in = traffic[0] - infoRequest;
    assertThat(in % HITS).as("bytes in, over %s hits", HITS).isZero();
    assertThat(traffic[1] % HITS).as("bytes out, over %s hits", HITS).isZero();
    return new long[] {in / HITS, traffic[1] / HITS};
  }

  /** Bytes into Redis (plus one INFO request) and out of Redis while {@code action} ran. */
  static long[] traffic(Runnable action) {
    String before = stats.info("stats");
    action.run();
    String after = stats.info("stats");
    int beforeBody = before.getBytes(UTF_8).length;
    long beforeReply = 1 + Integer.toString(beforeBody).length() + 2 + beforeBody + 2L;
    return new long[] {counter(INPUT, after) - counter(INPUT, before),
        counter(OUTPUT, after) - counter(OUTPUT, before) - beforeReply};
  }

  static long counter(Pattern pattern, String info) {
    Matcher matcher = pattern.matcher(info);
    assertThat(matcher.find()).as("INFO stats names %s", pattern).isTrue();
    return Long.parseLong(matcher.group(1));
  }

  static int bulk(String text) {
    int length = text.getBytes(UTF_8).length;
    return 1 + Integer.toString(length).length() + 2 + length + 2;
  }

  @Test
  void findById_nearCacheHitOnRedis7_movesUnder90Bytes() {
    redis.assumeAtLeast(7, 0, "Redis functions (FCALL)");
    try (LazyRedisSessionRepository repository = repository()) {
      String id = TestRedis.storeShopSession(repository);
      assertThat(id).hasSize(22); // a UUID would add 14 bytes
      repository.findById(id); // a copy with its metadata (the save's copy lacks them)
      long hitsBefore = repository.metrics().nearCacheHits();

      long[] perHit = bytesPerHit(repository, id);

      // FCALL f 1 <key> <version>: *5, then five bulk strings; the answer :1\r\n. The key is
      // $38\r\n, its 38 characters and \r\n: 45 of the 81 bytes sent.
      String key = "lazysession:s:{" + id + "}";
      assertThat(perHit[0]).isEqualTo(4 + bulk("FCALL") + bulk("f") + bulk("1") + bulk(key)
          + bulk("1"));
      assertThat(perHit[1]).isEqualTo(4);
      assertThat(perHit[0] + perHit[1]).isEqualTo(85);
      assertThat(repository.metrics().nearCacheHits() - hitsBefore).isEqualTo(HITS);
    }
  }

  @Test
  void findById_nearCacheHitBeforeRedis7_isEvalshaAnsweredByABareInteger() {
    redis.assumeBefore(7, 0, "Redis functions (FCALL)");
    try (LazyRedisSessionRepository repository = repository()) {
      String id = TestRedis.storeShopSession(repository);
      repository.findById(id);

      long[] perHit = bytesPerHit(repository, id);

      String key = "lazysession:s:{" + id + "}";
      assertThat(perHit[0]).isEqualTo(4 + bulk("EVALSHA") + bulk(RedisScript.FIND.sha())
          + bulk("1") + bulk(key) + bulk("1"));
      assertThat(perHit[1]).isEqualTo(4);
    }
  }

  @Test
  void findById_copyMadeBySave_isConfirmedBareWithTheMetadataRedisHolds() {
    try (LazyRedisSessionRepository repository = repository();
        LazyRedisSessionRepository uncached = LazyRedisSessionRepository.builder(client)
            .serializer(TestRedis.serializer()).cleanupInterval(Duration.ZERO)
            .nearCacheMaxBytes(0).build()) {
      String id = TestRedis.storeShopSession(repository); // cached by the create

      assertThat(traffic(() -> repository.findById(id))[1]).isEqualTo(4); // :1
      // An update that sends an access time before the stored one (the script keeps the stored
      // one), a new timeout and a principal.
      LazySession first = repository.findById(id);
      Instant stored = first.getLastAccessedTime();
      first.setLastAccessedTime(stored.minusSeconds(5));
      first.setMaxInactiveInterval(Duration.ofMinutes(7));
      first.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "alice");
      repository.save(first);
      assertThatHitMatchesRedis(repository, uncached, id, stored, 42);
      // An update that sends a later access time and keeps the stored timeout.
      LazySession second = repository.findById(id);
      second.setLastAccessedTime(stored.plusSeconds(9));
      second.setAttribute("visits", 43);
      repository.save(second);
      assertThatHitMatchesRedis(repository, uncached, id, stored.plusSeconds(9), 43);
      assertThat(repository.metrics().nearCacheHits()).isEqualTo(5);
    }
  }

  /** The next read of {@code id} is a bare hit whose session is the one a full load reads. */
  private static void assertThatHitMatchesRedis(LazyRedisSessionRepository repository,
      LazyRedisSessionRepository uncached, String id, Instant lastAccess, int visits) {
    LazySession[] hit = new LazySession[1];
    long out = traffic(() -> hit[0] = repository.findById(id))[1];

    assertThat(out).isEqualTo(4); // :1
    LazySession loaded = uncached.findById(id);
    assertThat(hit[0].getLastAccessedTime()).isEqualTo(loaded.getLastAccessedTime())
        .isEqualTo(lastAccess);
    assertThat(hit[0].getMaxInactiveInterval()).isEqualTo(loaded.getMaxInactiveInterval())
        .isEqualTo(Duration.ofMinutes(7));
    assertThat(hit[0].storedPrincipal()).isEqualTo(loaded.storedPrincipal()).isEqualTo("alice");
    assertThat(hit[0].<Integer>getAttribute("visits")).isEqualTo(visits);
  }

  @Test
  void findById_functionFlushedFromRedis_loadsItAgainAndStillAnswers() {
    redis.assumeAtLeast(7, 0, "Redis functions (FCALL)");
    try (LazyRedisSessionRepository repository = repository()) {
      String id = TestRedis.storeShopSession(repository);
      repository.findById(id);
      stats.functionFlush(FlushMode.SYNC);

      LazySession session = repository.findById(id);

      assertThat(session.<Integer>getAttribute("visits")).isEqualTo(42);
      assertThat(repository.metrics().scriptReloads()).isEqualTo(1);
      Map<String, Long> next = commandStats.during(() -> repository.findById(id));
      assertThat(next).containsEntry("fcall", 1L).doesNotContainKey("evalsha");
    }
  }

  @Test
  void findById_functionNameTakenByAnotherLibrary_findsByEvalsha() {
    redis.assumeAtLeast(7, 0, "Redis functions (FCALL)");
    stats.functionLoad("#!lua name=someoneelse\n"
        + "redis.register_function('f', function(keys, args) return 'not ours' end)");
    try (LazyRedisSessionRepository repository = repository()) {
      String id = TestRedis.storeShopSession(repository);
      repository.findById(id);

      LazySession[] found = new LazySession[1];
      Map<String, Long> delta = commandStats.during(() -> found[0] = repository.findById(id));

      assertThat(delta).containsEntry("evalsha", 1L).doesNotContainKey("fcall");
      assertThat(found[0].<Integer>getAttribute("visits")).isEqualTo(42);
    }
  }
}
