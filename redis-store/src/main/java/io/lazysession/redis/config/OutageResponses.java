package io.lazysession.redis.config;

import io.lazysession.redis.SessionStoreUnavailableException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * What a request that needs its session gets while Redis is unavailable, the same on both web
 * stacks ({@link SessionStoreUnavailableFilter}, {@link SessionStoreUnavailableWebFilter}): 503
 * Service Unavailable, {@code Retry-After: 1} (the session store reconnects within about a second
 * of Redis coming back), {@code Cache-Control: no-store}, and a short plain-text body. The session
 * cookie is left alone, so that the user's session is there again once Redis is. Stateless.
 */
final class OutageResponses {
  static final int STATUS = 503;
  static final String RETRY_AFTER_SECONDS = "1";
  static final String CONTENT_TYPE = "text/plain;charset=UTF-8";
  static final byte[] BODY = ("Service unavailable: the session store (Redis) cannot be reached. "
      + "Please retry in a moment.\n").getBytes(StandardCharsets.UTF_8);

  private OutageResponses() {}

  /**
   * The {@link SessionStoreUnavailableException} that caused {@code failure} (the failure itself,
   * or a cause of it: Spring MVC and containers wrap what a handler throws), or null.
   */
  static @Nullable SessionStoreUnavailableException unavailable(@Nullable Throwable failure) {
    int depth = 0;
    for (Throwable cause = failure; cause != null && depth < 32; cause = cause.getCause()) {
      if (cause instanceof SessionStoreUnavailableException unavailable) {
        return unavailable;
      }
      depth++;
    }
    return null;
  }
}
