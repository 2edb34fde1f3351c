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

  /** Whether a save's answer says it reached enough replicas (or nothing was waited for). */
  boolean replicated(SaveResult result) {
    return result.acknowledged() < 0
        || (result.waitFailure() == null && result.acknowledged() >= replicas);
  }

  /** Whether a write followed by WAIT reached enough replicas. */
  boolean replicated(ReplicaWait.Waited<?> waited) {
    return waited.failure() == null && waited.acknowledged() >= replicas;
  }

  /**
   * Throws when fewer replicas than asked acknowledged a delete ({@code operation}: a sign-out, the
   * removal of the old hash by an id change) of session {@code id} that the primary applied.
   */
  void requireDeleted(String operation, String id, ReplicaWait.Waited<?> waited) {
    if (waited.failure() != null) {
      throw new SessionStoreUnavailableException(operation, id, "the primary applied it, but "
          + "waiting for " + replicas + " replica(s) failed: " + waited.failure().getMessage(),
          waited.failure());
    }
    if (waited.acknowledged() < replicas) {
      throw new SessionNotReplicatedException(operation, id, replicas, waited.acknowledged(),
          timeout);
    }
  }

  /**
   * Throws, for a save of session {@code id} that wrote, when too few replicas acknowledged it:
   * either exception says that the primary applied the change.
   */
  void require(String id, SaveResult result) {
    if (result.waitFailure() != null) {
      throw new SessionStoreUnavailableException("save", id, "the primary applied it (version "
          + result.version() + ", kept there), but waiting for " + replicas
          + " replica(s) failed: " + result.waitFailure().getMessage(), result.waitFailure());
    }
    if (!replicated(result)) {
      throw new SessionNotReplicatedException("save", id, replicas, result.acknowledged(),
          timeout);
    }
  }
}
