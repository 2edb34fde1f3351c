package io.lazysession.redis;

import io.lettuce.core.RedisException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log line per Redis outage rather than one per failed request: a WARN when the first operation
 * fails because Redis is unavailable ({@link SessionStoreUnavailableException}), an INFO when one
 * succeeds again, with how long it lasted and how many operations failed meanwhile. Every failure in
 * between is still thrown to its caller (a 503 in the web layer), only not logged again. Other
 * failures (a script error) are not outages and are not logged here. One per repository, shared by
 * its servlet and reactive faces and its expiry sweep; thread-safe (a lock-free state flip, so that
 * exactly one thread logs each transition).
 */
final class OutageLog {
  private static final Logger log = LoggerFactory.getLogger(OutageLog.class);
  private static final long AVAILABLE = Long.MIN_VALUE;
  /** The Spring property behind {@code Builder.requireRedisAtStartup}, named in the startup WARN. */
  static final String REQUIRE_REDIS_AT_STARTUP_PROPERTY = "lazysession.require-redis-at-startup";

  /** {@link #AVAILABLE}, or the {@link System#nanoTime} at which the outage began. */
  private final AtomicLong downSince = new AtomicLong(AVAILABLE);
  private final AtomicLong failedMeanwhile = new AtomicLong();

  /** Whether the last operation that reached a verdict found Redis unavailable. */
  boolean isDown() {
    return downSince.get() != AVAILABLE;
  }

  /** Runs a call to Redis: Lettuce's exceptions become the store's own, outages are logged once. */
  <T> T translated(String operation, @Nullable String sessionId, Supplier<T> call) {
    T result;
    try {
      result = call.get();
    } catch (RedisException e) {
      throw translate(operation, sessionId, e);
    }
    available();
    return result;
  }

  /** {@link StoreFailures#translate}, noting an outage when Redis is unavailable. */
  SessionStoreException translate(String operation, @Nullable String sessionId,
      RedisException failure) {
    SessionStoreException translated = StoreFailures.translate(operation, sessionId, failure);
    if (translated instanceof SessionStoreUnavailableException unavailable) {
      unavailable(unavailable);
    }
    return translated;
  }

  /** An operation failed because Redis is unavailable: the WARN line when an outage starts. */
  void unavailable(SessionStoreUnavailableException failure) {
    failedMeanwhile.incrementAndGet();
    if (downSince.compareAndSet(AVAILABLE, System.nanoTime())) {
      log.warn("lazysession: Redis is unavailable; requests that need a session are answered 503 "
          + "until it is back (logged once per outage; the first failure: {})",
          failure.getMessage());
    }
  }

  /**
   * The application starts while Redis cannot be reached: the WARN line of an outage that began
   * before the first request.
   */
  void unavailableAtStartup(String why) {
    if (downSince.compareAndSet(AVAILABLE, System.nanoTime())) {
      log.warn("lazysession: starting without Redis ({}); requests that need a session are "
          + "answered 503 until it is reachable, and the store connects by itself then. Set {}=true "
          + "(Builder.requireRedisAtStartup) to refuse to start instead", why,
          REQUIRE_REDIS_AT_STARTUP_PROPERTY);
    }
  }

  /** An operation succeeded: the INFO line when an outage ends. Cheap when there was none. */
  void available() {
    long since = downSince.get();
    if (since != AVAILABLE && downSince.compareAndSet(since, AVAILABLE)) {
      long failed = failedMeanwhile.getAndSet(0);
      log.info("lazysession: Redis is available again after {} ms ({} operations failed "
          + "meanwhile)", (System.nanoTime() - since) / 1_000_000, failed);
    }
  }
}
