package io.lazysession.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * How many replicas must acknowledge a save within {@code timeout} (Redis WAIT); 0: do not wait.
 * Immutable.
 */
record Durability(int replicas, Duration timeout) {
  Durability {
    if (replicas < 0) {
      throw new IllegalArgumentException("durability replicas must be >= 0, was " + replicas);
    }
    Objects.requireNonNull(timeout, "durability timeout must not be null");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("durability timeout must be > 0 (WAIT 0 waits "
          + "forever), was " + timeout);
    }
  }

  boolean on() {
    return replicas > 0;
  }
}
