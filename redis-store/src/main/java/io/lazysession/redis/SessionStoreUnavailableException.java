package io.lazysession.redis;

import org.jspecify.annotations.Nullable;

/**
 * Redis could not be reached, did not answer within the command timeout, or cannot serve the command
 * right now (loading, read-only replica during a failover, Cluster down). The request fails instead of
 * waiting: commands are not queued while disconnected, so no request thread hangs and no buffer grows.
 * The connection reconnects by itself; later requests succeed once Redis is back, without a restart.
 *
 * <p>Whether a failed {@code save} was applied is unknown (a timeout can strike after Redis executed
 * the script); the near cache drops its copy of the session either way. Immutable, so thread-safe.
 */
public class SessionStoreUnavailableException extends SessionStoreException {
  private static final long serialVersionUID = 1L;

  public SessionStoreUnavailableException(String operation, @Nullable String sessionId,
      String message, @Nullable Throwable cause) {
    super(operation, sessionId, message, cause);
  }
}
