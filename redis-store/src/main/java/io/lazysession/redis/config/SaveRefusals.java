package io.lazysession.redis.config;

import io.lazysession.serializer.SerializationException;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.session.web.http.SessionRepositoryFilter;

/**
 * A servlet request whose session the store refused to save because a value cannot be stored (a
 * class outside the allow-list, a value that is not Serializable or too large: a
 * {@link SerializationException} naming the attribute, the class and the property to set). Without
 * this, the refusal reached the container, which logged it with its stack trace and dispatched to
 * the error page, where Spring Session saved the same session again, failed again, was logged again
 * and left the container's bare 500. Here it is logged once, one WARN line (the stack trace at
 * DEBUG), the request's session is dropped from the request so that the error dispatch does not
 * save it again (what Redis holds is the session as it was before the request), and the response is
 * the application's error page with status 500. Used by {@link SessionStoreUnavailableFilter}.
 * Stateless.
 */
final class SaveRefusals {
  private static final Logger log = LoggerFactory.getLogger(SaveRefusals.class);
  static final int STATUS = 500;
  /**
   * The request attribute in which Spring Session's filter keeps the request's session, which the
   * error dispatch would save again (SessionRepositoryFilter's private CURRENT_SESSION_ATTR, derived
   * as it derives it; SaveRefusalIT fails if it ever differs).
   */
  static final String CURRENT_SESSION_ATTR =
      SessionRepositoryFilter.SESSION_REPOSITORY_ATTR + ".CURRENT_SESSION";

  private SaveRefusals() {}

  /** The store's refusal that caused {@code failure} (itself or a cause), or null. */
  static @Nullable SerializationException refusal(@Nullable Throwable failure) {
    int depth = 0;
    for (Throwable cause = failure; cause != null && depth < 32; cause = cause.getCause()) {
      if (cause instanceof SerializationException refused) {
        return refused;
      }
      depth++;
    }
    return null;
  }

  /** Logs the refusal once and answers with the error page; the response is not committed. */
  static void respond(HttpServletRequest request, HttpServletResponse response,
      SerializationException refusal, Throwable failure) throws IOException {
    log.warn("lazysession did not save the session of {} {}, which ends with the error page: {}",
        request.getMethod(), request.getRequestURI(), refusal.getMessage());
    log.debug("The refused save of {} {}", request.getMethod(), request.getRequestURI(), failure);
    request.removeAttribute(CURRENT_SESSION_ATTR);
    request.setAttribute(RequestDispatcher.ERROR_EXCEPTION, failure);
    response.reset();
    response.sendError(STATUS);
  }
}
