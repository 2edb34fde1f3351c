package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lazysession.redis.config.ClientsFromProperties;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redis frozen ({@code docker pause} or SIGSTOP): requests fail with the store's own exception,
 * caused by the command timeout the client was configured with (500 ms), instead of hanging; once
 * Redis answers again the same repository serves again, without a restart. The client is the one the
 * Spring configurations build from {@code spring.data.redis.*}.
 */
class RedisUnavailableIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
  static RedisClient client;
  static LazyRedisSessionRepository repository;

  @BeforeAll
  static void start() {
    redis.assumeFaultInjection();
    client = (RedisClient) ClientsFromProperties.create(Map.of(
        "spring.data.redis.url", redis.url(),
        "spring.data.redis.timeout", COMMAND_TIMEOUT.toMillis() + "ms"));
    repository = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer())
        .namespace(TestRedis.uniqueNamespace("unavailable"))
        .cleanupInterval(Duration.ZERO)
        .build();
  }

  @AfterAll
  static void stop() {
    if (repository != null) {
      repository.close();
      client.shutdown();
    }
  }

  @AfterEach
  void unpause() {
    try {
      redis.primary().unpause();
    } catch (RuntimeException e) {
      // not paused
    }
  }

  static String storedSession() {
    return TestRedis.storeShopSession(repository);
  }

  @Test
  void findByIdAndSave_redisPaused_failWithUnavailableCausedByTheCommandTimeout() {
    String id = storedSession();
    LazySession loaded = repository.findById(id);
    loaded.setAttribute("currency", "NOK");

    redis.primary().pause();
    Throwable findFailure = catchThrowable(() -> repository.findById(id));
    Throwable saveFailure = catchThrowable(() -> repository.save(loaded));
    Throwable deleteFailure = catchThrowable(() -> repository.deleteById(id));
    redis.primary().unpause();

    assertThat(findFailure).isInstanceOf(SessionStoreUnavailableException.class)
        .hasCauseInstanceOf(RedisCommandTimeoutException.class)
        .hasMessageStartingWith("findById of session " + id + " failed");
    assertThat(((SessionStoreException) findFailure).sessionId()).isEqualTo(id);
    assertThat(saveFailure).isInstanceOf(SessionStoreUnavailableException.class)
        .hasCauseInstanceOf(RedisCommandTimeoutException.class);
    assertThat(((SessionStoreException) saveFailure).operation()).isEqualTo("save");
    assertThat(deleteFailure).isInstanceOf(SessionStoreUnavailableException.class)
        .hasCauseInstanceOf(RedisCommandTimeoutException.class);
  }

  @Test
  void findByIdAndSave_redisUnpaused_serveAgainWithoutRestart() {
    String id = storedSession();
    redis.primary().pause();
    assertThat(catchThrowable(() -> repository.findById(id)))
        .isInstanceOf(SessionStoreUnavailableException.class);
    redis.primary().unpause();

    LazySession loaded = repository.findById(id);
    loaded.setAttribute("currency", "DKK");
    repository.save(loaded);

    assertThat(repository.findById(id).<String>getAttribute("currency")).isEqualTo("DKK");
    LazySession created = repository.createSession();
    created.setAttribute("visits", 1);
    repository.save(created);
    assertThat(repository.findById(created.getId()).<Integer>getAttribute("visits")).isEqualTo(1);
  }

  @Test
  void save_failed_dropsTheNearCacheCopy() {
    String id = storedSession();
    LazySession loaded = repository.findById(id); // the cache holds this version
    loaded.setAttribute("currency", "ISK");
    long hitsBefore = repository.metrics().nearCacheHits();

    redis.primary().pause();
    Throwable failure = catchThrowable(() -> repository.save(loaded));
    redis.primary().unpause();
    LazySession reloaded = repository.findById(id);

    assertThat(failure).isInstanceOf(SessionStoreUnavailableException.class);
    // A whole load, not a cache hit: whether the timed-out save ran is unknown, so the copy went.
    assertThat(repository.metrics().nearCacheHits()).isEqualTo(hitsBefore);
    assertThat(reloaded).isNotNull();
  }

  @Test
  void build_redisPausedAndNotRequired_failsEachCallUntilRedisAnswersThenServes()
      throws Exception {
    redis.primary().pause();
    LazyRedisSessionRepository started;
    try {
      started = LazyRedisSessionRepository.builder(client)
          .serializer(TestRedis.serializer())
          .namespace(TestRedis.uniqueNamespace("deferred"))
          .requireRedisAtStartup(false)
          .build();
    } finally {
      redis.primary().unpause();
    }
    try {
      LazySession session = started.createSession();
      session.setAttribute("visits", 1);
      // Bounded: the store retries every 500 ms at most, so this takes about a second.
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (true) {
        try {
          started.save(session);
          break;
        } catch (SessionStoreUnavailableException notYet) {
          assertThat(notYet).hasMessageContaining("save of session " + session.getId());
          assertThat(System.nanoTime()).as("connected within 30 s").isLessThan(deadline);
          Thread.sleep(50);
        }
      }

      assertThat(started.findById(session.getId()).<Integer>getAttribute("visits")).isEqualTo(1);
    } finally {
      started.close();
    }
  }

  @Test
  void build_trackedReadsRedisPausedAndNotRequired_opensTheTrackingConnectionOnceConnected()
      throws Exception {
    redis.primary().pause();
    LazyRedisSessionRepository started;
    try {
      started = LazyRedisSessionRepository.builder(client)
          .serializer(TestRedis.serializer())
          .namespace(TestRedis.uniqueNamespace("deferred-tracking"))
          .nearCacheTracking(Duration.ofMillis(500))
          .requireRedisAtStartup(false)
          .build();
    } finally {
      redis.primary().unpause();
    }
    try {
      // Bounded: the store retries every 500 ms at most.
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      String tracking = " name=" + TrackingConnection.CLIENT_NAME + " ";
      while (redis.sync(redis.primary(), commands -> commands.clientList()).lines()
          .noneMatch(line -> line.contains(tracking))) {
        assertThat(System.nanoTime()).as("tracking open within 30 s").isLessThan(deadline);
        Thread.sleep(50);
      }
      String id = TestRedis.storeShopSession(started);
      assertThat(started.findById(id)).isNotNull();
    } finally {
      started.close();
    }
  }

  @Test
  void build_redisRefusesTheClient_failsEvenWhenNotRequired() {
    // The default user takes any password; a user that does not exist is refused (WRONGPASS).
    RedisClient wrongPassword = (RedisClient) ClientsFromProperties.create(Map.of(
        "spring.data.redis.url", redis.url(), "spring.data.redis.username", "nobody",
        "spring.data.redis.password", "not-the-password"));
    try {
      assertThat(catchThrowable(() -> LazyRedisSessionRepository.builder(wrongPassword)
          .requireRedisAtStartup(false).build()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("lazysession cannot connect to Redis");
    } finally {
      wrongPassword.shutdown();
    }
  }

  @Test
  void cleanUpExpiredSessions_redisPaused_failsWithUnavailable() {
    redis.primary().pause();
    Throwable failure = catchThrowable(repository::cleanUpExpiredSessions);
    redis.primary().unpause();

    assertThat(failure).isInstanceOf(SessionStoreUnavailableException.class)
        .hasCauseInstanceOf(RedisCommandTimeoutException.class);
    assertThat(repository.cleanUpExpiredSessions()).isZero();
  }
}
