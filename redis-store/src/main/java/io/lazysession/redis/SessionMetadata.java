package io.lazysession.redis;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.session.MapSession;

/**
 * The metadata of a stored session as a script or HMGET returned it; a value the hash lacked (or held
 * in a form this version cannot read) is null. Immutable.
 *
 * @param creation creation time, epoch milliseconds
 * @param lastAccess last access time, epoch milliseconds
 * @param maxInactiveSeconds max inactive interval in seconds; negative: never expires
 * @param principal the principal name, if any
 */
record SessionMetadata(@Nullable Long creation, @Nullable Long lastAccess,
    @Nullable Long maxInactiveSeconds, @Nullable String principal) {

  static final SessionMetadata NONE = new SessionMetadata(null, null, null, null);

  /** Whether the session can expire and both values that tell when are known. */
  boolean expires() {
    return lastAccess != null && maxInactiveSeconds != null && maxInactiveSeconds >= 0;
  }

  /** When the session expires, epoch milliseconds; only meaningful when {@link #expires()}. */
  long dueMillis() {
    return dueMillis(lastAccess == null ? 0 : lastAccess,
        maxInactiveSeconds == null ? 0 : maxInactiveSeconds);
  }

  /** When a session last accessed at {@code lastAccess} (ms) expires, for a timeout in seconds. */
  static long dueMillis(long lastAccess, long maxInactiveSeconds) {
    return lastAccess + maxInactiveSeconds * 1000;
  }

  /** A session without attributes carrying this metadata: the times of destroyed-session events. */
  MapSession toMapSession(String id) {
    MapSession session = new MapSession(id);
    if (creation != null) {
      session.setCreationTime(Instant.ofEpochMilli(creation));
    }
    if (lastAccess != null) {
      session.setLastAccessedTime(Instant.ofEpochMilli(lastAccess));
    }
    if (maxInactiveSeconds != null) {
      session.setMaxInactiveInterval(Duration.ofSeconds(maxInactiveSeconds));
    }
    return session;
  }
}
