package io.lazysession.redis;

import java.util.Objects;

/**
 * At most {@code maxSessions} live sessions per principal name, decided atomically in Redis for
 * all nodes (docs/session-policies.md); what happens to a sign-in beyond it is {@code action}.
 * Immutable, thread-safe. Given to {@link LazyRedisSessionRepositoryBuilder#sessionLimit}; none by
 * default.
 *
 * @param maxSessions how many live sessions one principal may have, 1 or more
 * @param action what a sign-in beyond the limit does
 */
public record SessionLimit(int maxSessions, Action action) {
  /** Property of {@link #maxSessions}. */
  public static final String MAX_PROPERTY = "lazysession.max-sessions-per-principal";
  /** Property of {@link #action}. */
  public static final String ACTION_PROPERTY = "lazysession.max-sessions-action";

  /** What a sign-in beyond the limit does. */
  public enum Action {
    /**
     * The new session signs in; the principal's other sessions that signed in first end (deleted,
     * one {@code SessionDeletedEvent} each) until the limit holds.
     */
    EVICT_OLDEST,
    /**
     * The sign-in fails: the save refuses with {@link SessionLimitExceededException}, writing
     * nothing; with Spring Security, {@link SessionLimitAuthenticationStrategy} refuses it at
     * authentication (the login failure page).
     */
    REFUSE_NEW
  }

  /**
   * Checks the limit.
   *
   * @throws IllegalArgumentException naming the property when {@code maxSessions} is below 1
   */
  public SessionLimit {
    Objects.requireNonNull(action, ACTION_PROPERTY + " must not be null");
    if (maxSessions < 1) {
      throw new IllegalArgumentException(MAX_PROPERTY + " must be at least 1, was " + maxSessions);
    }
  }

  /** A limit of {@code maxSessions} that evicts the oldest session. */
  public static SessionLimit evictOldest(int maxSessions) {
    return new SessionLimit(maxSessions, Action.EVICT_OLDEST);
  }

  /** A limit of {@code maxSessions} that refuses new sign-ins. */
  public static SessionLimit refuseNew(int maxSessions) {
    return new SessionLimit(maxSessions, Action.REFUSE_NEW);
  }
}
