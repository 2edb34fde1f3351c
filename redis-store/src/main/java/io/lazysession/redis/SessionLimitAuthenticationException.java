package io.lazysession.redis;

import org.springframework.security.core.SpringSecurityMessageSource;
import org.springframework.security.web.authentication.session.SessionAuthenticationException;

/**
 * The limit of sessions per principal refused a sign-in at authentication
 * ({@link SessionLimitAuthenticationStrategy}; on WebFlux {@link SessionLimitWebFilter}): Spring
 * Security's {@link SessionAuthenticationException}, which its authentication filters answer with
 * the failure handler (the login page with {@code ?error}). The message is for the user signing
 * in: the limit of sessions was reached ({@link #of}); the store's own exception
 * ({@link SessionLimitExceededException}) names the properties, for the operator. The failure
 * handler keeps it in the session (Spring Security's last exception): every lazysession node
 * allows it to decode, with no setting. Immutable.
 */
public class SessionLimitAuthenticationException extends SessionAuthenticationException {
  private static final long serialVersionUID = 1L;

  /** A refusal saying {@code message}. Public, as Kryo rebuilds exceptions through it. */
  public SessionLimitAuthenticationException(String message) {
    super(message);
  }

  /**
   * The refusal a sign-in page shows for {@code refused}: Spring Security's own words for a limit
   * of sessions, in the request's locale where its messages are translated ("Maximum sessions of 1
   * for this principal exceeded", as its concurrency control says it), never the store's settings:
   * the message reaches the user through the session's last exception.
   */
  static SessionLimitAuthenticationException of(SessionLimitExceededException refused) {
    return new SessionLimitAuthenticationException(SpringSecurityMessageSource.getAccessor()
        .getMessage("ConcurrentSessionControlAuthenticationStrategy.exceededAllowed",
            new Object[] {refused.maxSessions()},
            "Maximum sessions of {0} for this principal exceeded"));
  }
}
