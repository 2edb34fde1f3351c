package io.lazysession.redis;

import org.springframework.security.web.authentication.session.SessionAuthenticationException;

/**
 * The limit of sessions per principal refused a sign-in at authentication
 * ({@link SessionLimitAuthenticationStrategy}; on WebFlux {@link SessionLimitWebFilter}): Spring
 * Security's {@link SessionAuthenticationException}, which its authentication filters answer with
 * the failure handler (the login page with {@code ?error}). The message is the store's
 * ({@link SessionLimitExceededException}): the principal, the limit and the properties. The failure
 * handler keeps it in the session (Spring Security's last exception): every lazysession node
 * allows it to decode, with no setting. Immutable.
 */
public class SessionLimitAuthenticationException extends SessionAuthenticationException {
  private static final long serialVersionUID = 1L;

  /** A refusal saying {@code message}. Public, as Kryo rebuilds exceptions through it. */
  public SessionLimitAuthenticationException(String message) {
    super(message);
  }
}
