package io.lazysession.redis;

import org.jspecify.annotations.Nullable;

/**
 * Redis did not do what the session store asked: the base of the store's own failures. Thrown by
 * {@link LazyRedisSessionRepository} in place of the Lettuce exception, which is kept as the cause.
 * The message names the repository operation and the session id (as the store's log lines do).
 *
 * <p>A plain instance (not a subclass) means Redis answered with an error the store did not expect,
 * such as a script error: retrying will not help. Immutable, so thread-safe.
 */
public class SessionStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String operation;
  private final @Nullable String sessionId;

  /**
   * @param operation the repository method that failed ({@code findById}, {@code save}, ...)
   * @param sessionId the session it was working on, or null when it was not about one session
   */
  public SessionStoreException(String operation, @Nullable String sessionId, String message,
      @Nullable Throwable cause) {
    super(operation + (sessionId == null ? "" : " of session " + sessionId) + " failed: "
        + message, cause);
    this.operation = operation;
    this.sessionId = sessionId;
  }

  /** The repository method that failed: {@code findById}, {@code save}, {@code deleteById}... */
  public String operation() {
    return operation;
  }

  /** The session the operation was about, or null. */
  public @Nullable String sessionId() {
    return sessionId;
  }
}
