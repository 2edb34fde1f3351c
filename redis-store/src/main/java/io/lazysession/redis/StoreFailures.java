package io.lazysession.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Turns Lettuce exceptions into the store's own: {@link SessionStoreUnavailableException} when Redis
 * is unreachable, slow or (for now) unable to serve, {@link SessionStoreException} for any other error
 * answer. Stateless.
 */
final class StoreFailures {
  /**
   * Error answers that mean "not now" rather than "never": failover, loading, Cluster down, and
   * memory full under {@code maxmemory-policy noeviction} (sessions expiring free it).
   */
  private static final List<String> TRANSIENT_ERRORS = List.of("READONLY", "LOADING", "MASTERDOWN",
      "CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK", "NOREPLICAS", "BUSY", "OOM");

  private StoreFailures() {}

  /** Runs a call to Redis, turning Lettuce's exceptions into the store's own. */
  static <T> T translated(String operation, @Nullable String sessionId, Supplier<T> call) {
    try {
      return call.get();
    } catch (RedisException e) {
      throw translate(operation, sessionId, e);
    }
  }

  static SessionStoreException translate(String operation, @Nullable String sessionId,
      RedisException failure) {
    String message = failure.getMessage() == null ? failure.getClass().getSimpleName()
        : failure.getMessage();
    if (failure instanceof RedisCommandExecutionException && !isTransient(message)) {
      return new SessionStoreException(operation, sessionId, "Redis answered: " + message,
          failure);
    }
    return new SessionStoreUnavailableException(operation, sessionId,
        "Redis is unavailable (" + failure.getClass().getSimpleName() + ": " + message + ")",
        failure);
  }

  /** True for an error answer that a failover or a topology change explains. */
  static boolean isTransient(String message) {
    for (String prefix : TRANSIENT_ERRORS) {
      if (message.startsWith(prefix + " ") || message.equals(prefix)) {
        return true;
      }
    }
    return false;
  }

  static boolean isMoved(RedisException failure) {
    return failure instanceof RedisCommandExecutionException && failure.getMessage() != null
        && (failure.getMessage().startsWith("MOVED ") || failure.getMessage().startsWith("ASK "));
  }
}
