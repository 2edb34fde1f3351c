package io.lazysession.redis;

import java.time.Duration;

/**
 * A save was applied by the primary, but fewer replicas than the configured
 * {@linkplain LazyRedisSessionRepositoryBuilder#durability durability} acknowledged it within the
 * timeout. The change is not rolled back: it may still reach the replicas, or it may be lost if the
 * primary fails before they copy it. The application decides (retry, tell the user, carry on).
 * Immutable, so thread-safe.
 */
public class SessionNotReplicatedException extends SessionStoreException {
  private static final long serialVersionUID = 1L;

  private final int required;
  private final long acknowledged;

  public SessionNotReplicatedException(String operation, String sessionId, int required,
      long acknowledged) {
    this(operation, sessionId, required, acknowledged, "the durability timeout");
  }

  /**
   * @param timeout how long the save waited for the replicas (the durability timeout)
   */
  public SessionNotReplicatedException(String operation, String sessionId, int required,
      long acknowledged, Duration timeout) {
    this(operation, sessionId, required, acknowledged,
        "the durability timeout of " + timeout.toMillis() + " ms");
  }

  private SessionNotReplicatedException(String operation, String sessionId, int required,
      long acknowledged, String within) {
    super(operation, sessionId, "the primary applied it (the change is kept there), but only "
        + acknowledged + " of the " + required + " required replica(s) acknowledged it within "
        + within + "; it may still reach them, or be lost if the primary fails first", null);
    this.required = required;
    this.acknowledged = acknowledged;
  }

  /** How many replicas had to acknowledge the write. */
  public int required() {
    return required;
  }

  /** How many did, within the timeout. */
  public long acknowledged() {
    return acknowledged;
  }
}
