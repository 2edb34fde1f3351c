package io.lazysession.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.server.WebSession;
import reactor.core.publisher.Mono;

/**
 * Spring Security WebFlux's side of the limit of sessions per principal ({@link SessionLimit}): the
 * reactive twin of {@link SessionLimitAuthenticationStrategy}, a twin because WebFlux security has
 * no session authentication strategy. A sign-in the limit refuses fails as a failed login: Spring
 * Security's {@code AuthenticationWebFilter} answers the {@link SessionLimitAuthenticationException}
 * with its failure handler (the login page with {@code ?error}) instead of the request failing with
 * {@link SessionLimitExceededException}. It does nothing unless the limit is
 * {@link SessionLimit.Action#REFUSE_NEW}, for the reason the strategy gives. The Spring Boot
 * auto-configuration defines it as a bean whenever Spring Security's WebFlux support is on the class
 * path, {@code @EnableLazyWebSession} when its limit is set; others define it themselves. Thread-safe.
 *
 * <p>Design note: a WebFlux sign-in that keeps its security context in the session
 * ({@code WebSessionServerSecurityContextRepository}) puts the context into the session and then
 * changes the session id (fixation protection), inside the authentication filter's failure
 * handling; Spring Session's {@code WebSession} saves the session as it changes the id, and that
 * save admits the sign-in (the limit's script, on a worker thread), as any save that sets a
 * principal does. This filter, ordered before Spring Security's, hands the exchanges a session whose
 * {@code changeSessionId} turns that save's refusal into the authentication exception and takes the
 * refused security context out of the session, so that the save at the end of the request keeps the
 * session signed out (under its new id). No command is added: the admission is the save's.
 */
public final class SessionLimitWebFilter implements WebFilter, Ordered {
  /** Before Spring Security's {@code WebFilterChainProxy} (-100), after the outage filter. */
  public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

  private final SessionLimiter limiter;

  /** A filter for the limit {@code repository} was built with (none: it admits everything). */
  public SessionLimitWebFilter(LazyRedisSessionRepository repository) {
    this.limiter = Objects.requireNonNull(repository, "repository must not be null").shared()
        .limiter();
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    SessionLimit limit = limiter.limit();
    if (limit == null || limit.action() != SessionLimit.Action.REFUSE_NEW) {
      return chain.filter(exchange);
    }
    return chain.filter(new ServerWebExchangeDecorator(exchange) {
      @Override
      public Mono<WebSession> getSession() {
        return super.getSession().map(RefusalReportingSession::new);
      }
    });
  }

  @Override
  public int getOrder() {
    return ORDER;
  }

  /** A session whose id change reports a refusal of the limit as a failed authentication. */
  private static final class RefusalReportingSession implements WebSession {
    private final WebSession session;

    RefusalReportingSession(WebSession session) {
      this.session = session;
    }

    @Override
    public Mono<Void> changeSessionId() {
      return session.changeSessionId().onErrorMap(SessionLimitExceededException.class, refused -> {
        session.getAttributes().remove(LazySession.SPRING_SECURITY_CONTEXT);
        return SessionLimitAuthenticationException.of(refused);
      });
    }

    @Override
    public String getId() {
      return session.getId();
    }

    @Override
    public Map<String, Object> getAttributes() {
      return session.getAttributes();
    }

    @Override
    public void start() {
      session.start();
    }

    @Override
    public boolean isStarted() {
      return session.isStarted();
    }

    @Override
    public Mono<Void> invalidate() {
      return session.invalidate();
    }

    @Override
    public Mono<Void> save() {
      return session.save();
    }

    @Override
    public boolean isExpired() {
      return session.isExpired();
    }

    @Override
    public Instant getCreationTime() {
      return session.getCreationTime();
    }

    @Override
    public Instant getLastAccessTime() {
      return session.getLastAccessTime();
    }

    @Override
    public void setMaxIdleTime(Duration maxIdleTime) {
      session.setMaxIdleTime(maxIdleTime);
    }

    @Override
    public Duration getMaxIdleTime() {
      return session.getMaxIdleTime();
    }
  }
}
