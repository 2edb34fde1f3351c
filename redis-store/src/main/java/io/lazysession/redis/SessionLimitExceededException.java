package io.lazysession.redis;

/**
 * A sign-in was refused because its principal already has as many live sessions as
 * {@value SessionLimit#MAX_PROPERTY} allows, and {@value SessionLimit#ACTION_PROPERTY} is
 * {@code refuse-new}; nothing of the save that signed in was written. Immutable.
 */
public class SessionLimitExceededException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String principalName;
  private final int maxSessions;

  SessionLimitExceededException(String principalName, int maxSessions) {
    super("'" + principalName + "' already has " + maxSessions + " live session(s), the most "
        + SessionLimit.MAX_PROPERTY + "=" + maxSessions + " allows, and "
        + SessionLimit.ACTION_PROPERTY + "=refuse-new refuses another: sign out of one first, "
        + "or raise the limit, or set " + SessionLimit.ACTION_PROPERTY + "=evict-oldest");
    this.principalName = principalName;
    this.maxSessions = maxSessions;
  }

  /** The principal name that has too many sessions. */
  public String principalName() {
    return principalName;
  }

  /** The limit: {@value SessionLimit#MAX_PROPERTY}. */
  public int maxSessions() {
    return maxSessions;
  }
}
