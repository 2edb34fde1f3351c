package io.lazysession.redis;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * Remembers, as a request attribute, the session that the current web request loaded or created, so
 * that diagnostics (such as which attributes this request inflated) can reach the {@link LazySession}
 * behind Spring Session's {@code HttpSession} wrapper. A no-op outside a Spring web request.
 *
 * <p>The request's own session is the first one it loads (Spring Session's filter looks up the
 * request's cookie before anything else runs) or the one it creates; sessions the request looks up
 * afterwards (by principal name, or by id on behalf of another user) are not exposed.
 */
final class CurrentRequest {
  private static final boolean WEB_PRESENT = ClassUtils.isPresent(
      "org.springframework.web.context.request.RequestContextHolder",
      CurrentRequest.class.getClassLoader());

  private CurrentRequest() {}

  /** Exposes a session this request created: it is the request's session from now on. */
  static void expose(LazySession session) {
    if (WEB_PRESENT) {
      Web.expose(session, true);
    }
  }

  /** Exposes a session this request loaded, unless the request already has one. */
  static void exposeIfAbsent(LazySession session) {
    if (WEB_PRESENT) {
      Web.expose(session, false);
    }
  }

  static @Nullable LazySession current() {
    return WEB_PRESENT ? Web.current() : null;
  }

  /** Holds the spring-web references, so this class loads without spring-web. */
  private static final class Web {
    static void expose(LazySession session, boolean replace) {
      RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
      if (attributes != null && (replace || attributes.getAttribute(LazySession.REQUEST_ATTRIBUTE,
          RequestAttributes.SCOPE_REQUEST) == null)) {
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
