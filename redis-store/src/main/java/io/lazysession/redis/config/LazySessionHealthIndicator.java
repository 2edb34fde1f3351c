package io.lazysession.redis.config;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.SessionStoreUnavailableException;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code lazysession} health contribution: UP when the session store's own connection answers.
 * It looks up a session id that is never issued (one small script call on the store's connection,
 * the same path as every request), so it checks what requests use, not another client's
 * connection. DOWN while Redis is unavailable, with the reason as the {@code error} detail and no
 * log line of its own (the store logs each outage once). Thread-safe.
 */
class LazySessionHealthIndicator extends AbstractHealthIndicator {
  /**
   * Never a real session's id, neither a UUID nor a default id (22 base64url characters): the
   * {@code ':'} is in neither alphabet.
   */
  static final String PROBE_ID = "lazysession:health-probe";

  private final LazyRedisSessionRepository repository;
  private final String where;

  LazySessionHealthIndicator(LazyRedisSessionRepository repository, String where) {
    super("lazysession health check failed");
    this.repository = repository;
    this.where = where;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    builder.withDetail("namespace", repository.namespace()).withDetail("redis", where)
        .withDetail("encryption", !repository.encrypts() ? "off"
            : repository.acceptsUnprotectedValues() ? "on, accepting unprotected values" : "on");
    try {
      repository.findById(PROBE_ID);
    } catch (SessionStoreUnavailableException e) {
      // Not builder.down(e), which Spring Boot logs with its stack trace at every probe: the
      // session store logs the outage once.
      builder.down().withDetail("error", e.getClass().getName() + ": " + e.getMessage());
      return;
    }
    builder.up();
  }
}
