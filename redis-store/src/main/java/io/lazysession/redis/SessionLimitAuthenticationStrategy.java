package io.lazysession.redis;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.time.Duration;
import java.util.Objects;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.authentication.session.SessionAuthenticationStrategy;

/**
 * Spring Security's side of the limit of sessions per principal ({@link SessionLimit}): admits the
 * session of each successful authentication at once, in the same Redis script the save runs, so
 * that a sign-in the limit refuses fails as a failed login (Spring Security's authentication
 * filters then call the failure handler: the login page with {@code ?error}) instead of failing the
 * save at the end of the request. It does nothing unless the limit is
 * {@link SessionLimit.Action#REFUSE_NEW}: with evict-oldest no sign-in fails, and the save that
 * signs in evicts (not earlier, so that a login that fails later ends no other session). The
 * Spring Boot auto-configuration adds it to every {@code HttpSecurity} (whether or not
 * {@value SessionLimit#MAX_PROPERTY} is set); others add it with
 * {@code sessionManagement(s -> s.addSessionAuthenticationStrategy(...))}. Thread-safe.
 *
 * <p>It runs before session fixation protection changes the id; the save that ends the request
 * moves the admission to the new id, keeping its place in the sign-in order.
 */
public final class SessionLimitAuthenticationStrategy implements SessionAuthenticationStrategy {
  private final SessionLimiter limiter;

  /**
   * A strategy for the limit {@code repository} was built with (none: it admits everything).
   */
  public SessionLimitAuthenticationStrategy(LazyRedisSessionRepository repository) {
    this.limiter = Objects.requireNonNull(repository, "repository must not be null").shared()
        .limiter();
  }

  /**
   * Admits the request's session for {@code authentication}'s name.
   *
   * @throws SessionLimitAuthenticationException when the limit refuses the sign-in
   */
  @Override
  public void onAuthentication(Authentication authentication, HttpServletRequest request,
      HttpServletResponse response) {
    SessionLimit limit = limiter.limit();
    if (limit == null || limit.action() != SessionLimit.Action.REFUSE_NEW
        || authentication.getName() == null) {
      return;
    }
    HttpSession session = request.getSession();
    try {
      limiter.admitAndEvict(authentication.getName(), session.getId(), null,
          Duration.ofSeconds(session.getMaxInactiveInterval()));
    } catch (SessionLimitExceededException e) {
      throw SessionLimitAuthenticationException.of(e);
    }
  }
}
