package io.lazysession.redis;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * Remembers, as a request attribute, the session that the current web request loaded or created, so
 * that diagnostics (such as which attributes this request inflated) can reach the {@link LazySession}
 * behind Spring Session's {@code HttpSession} wrapper. A no-op outside a Spring web request.
 */
final class CurrentRequest {
  private static final boolean WEB_PRESENT = ClassUtils.isPresent(
      "org.springframework.web.context.request.RequestContextHolder",
      CurrentRequest.class.getClassLoader());

  private CurrentRequest() {}

  static void expose(LazySession session) {
    if (WEB_PRESENT) {
      Web.expose(session);
    }
  }

  static @Nullable LazySession current() {
    return WEB_PRESENT ? Web.current() : null;
  }

  /** Holds the spring-web references, so this class loads without spring-web. */
  private static final class Web {
    static void expose(LazySession session) {
      RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
      if (attributes != null) {
        attributes.setAttribute(LazySession.REQUEST_ATTRIBUTE, session,
            RequestAttributes.SCOPE_REQUEST);
      }
    }

    static @Nullable LazySession current() {
      RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
      return attributes == null ? null : (LazySession) attributes.getAttribute(
          LazySession.REQUEST_ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
    }
  }
}
