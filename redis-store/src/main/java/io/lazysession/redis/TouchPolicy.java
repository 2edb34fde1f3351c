package io.lazysession.redis;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * When a request that changed nothing still writes the session's last-access time: once the stored
 * one is a touch interval old. Immutable, so thread-safe.
 */
final class TouchPolicy {
  private final @Nullable Duration configured;
  private final Duration defaultMaxInactive;
  private final Duration defaultInterval;

  /**
   * @param configured the configured touch interval, or null for the default (1% of the timeout)
   * @param defaultMaxInactive the timeout of new sessions
   */
  /**
   * Checks a configured touch interval against the default timeout: not shorter, sessions would
   * expire while in use.
   */
  static void check(@Nullable Duration configured, Duration defaultMaxInactive) {
    if (configured != null && !defaultMaxInactive.isNegative()
        && configured.compareTo(defaultMaxInactive) >= 0) {
      throw new IllegalArgumentException("touchInterval (" + configured + ") must be shorter "
          + "than defaultMaxInactiveInterval (" + defaultMaxInactive + "), or sessions "
          + "expire while in use");
    }
  }

  TouchPolicy(@Nullable Duration configured, Duration defaultMaxInactive) {
    this.configured = configured;
    this.defaultMaxInactive = defaultMaxInactive;
    this.defaultInterval = intervalFor(configured, defaultMaxInactive);
  }

  /** The touch interval of a session with the default timeout. */
  Duration defaultInterval() {
    return defaultInterval;
  }

  /** Whether a save of {@code session} must write its last-access time although nothing changed. */
  boolean isDue(LazySession session) {
    Duration maxInactive = session.getMaxInactiveInterval();
    // Nearly every session has the default timeout: its interval is worked out once.
    Duration interval = maxInactive.equals(defaultMaxInactive) ? defaultInterval
        : intervalFor(configured, maxInactive);
    return !session.getLastAccessedTime()
        .isBefore(session.storedLastAccessedTime().plus(interval))
        && session.getLastAccessedTime().isAfter(session.storedLastAccessedTime());
  }

  static Duration defaultInterval(Duration maxInactive) {
    if (maxInactive.isNegative() || maxInactive.isZero()) {
      return LazyRedisSessionRepository.MAX_DEFAULT_TOUCH_INTERVAL;
    }
    Duration onePercent = dividedBy(maxInactive, 100);
    return onePercent.compareTo(LazyRedisSessionRepository.MAX_DEFAULT_TOUCH_INTERVAL) > 0
        ? LazyRedisSessionRepository.MAX_DEFAULT_TOUCH_INTERVAL : onePercent;
  }

  /**
   * The touch interval of a session with {@code maxInactive}: without a configured one, 1% of the
   * session's own timeout, at most 60 s; a configured one is capped at a tenth of the session's
   * timeout, so that a session with a shorter timeout of its own is still touched by read-only
   * requests well before it expires.
   */
  static Duration intervalFor(@Nullable Duration configured, Duration maxInactive) {
    if (configured == null) {
      return defaultInterval(maxInactive);
    }
    if (maxInactive.isNegative() || maxInactive.isZero()) {
      return configured;
    }
    Duration cap = dividedBy(maxInactive, 10);
    return configured.compareTo(cap) > 0 ? cap : configured;
  }

  /**
   * {@code duration.dividedBy(divisor)} for a positive duration and divisor, in long arithmetic when
   * its nanoseconds fit a long (about 292 years), where {@link Duration#dividedBy(long)} goes
   * through {@code BigDecimal}.
   */
  static Duration dividedBy(Duration duration, long divisor) {
    if (duration.getSeconds() < Long.MAX_VALUE / 1_000_000_000L) {
      return Duration.ofNanos(duration.toNanos() / divisor);
    }
    return duration.dividedBy(divisor);
  }
}
