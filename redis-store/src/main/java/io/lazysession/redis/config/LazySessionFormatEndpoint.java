package io.lazysession.redis.config;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.RedisFormatStatus;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The actuator endpoint {@value #ID}: the Redis format of the namespace and the nodes serving it
 * (read), and the step that finalizes a rolling upgrade (write: {@code POST}), as {@link
 * LazyRedisSessionRepository#formatStatus()} and {@link LazyRedisSessionRepository#finalizeFormat()}
 * (docs/versioning.md, "Rolling upgrades"). Expose it as any endpoint ({@code
 * management.endpoints.web.exposure.include=lazysessionformat}), and only to operators: a write
 * changes what every node writes. Thread-safe.
 *
 * <p>Internal: public for lazysession's own packages; not part of the supported API
 * (docs/api.md). The endpoint {@value #ID} itself is supported.
 */
@Endpoint(id = LazySessionFormatEndpoint.ID)
public class LazySessionFormatEndpoint {
  /** The endpoint's id. */
  public static final String ID = "lazysessionformat";

  private final LazyRedisSessionRepository repository;

  LazySessionFormatEndpoint(LazyRedisSessionRepository repository) {
    this.repository = repository;
  }

  /** The namespace's format and its nodes. */
  @ReadOperation
  public RedisFormatStatus format() {
    return repository.formatStatus();
  }

  /**
   * Finalizes the namespace at the newest format every live node reads.
   *
   * @throws IllegalStateException when a live node reads only an older format, naming it
   */
  @WriteOperation
  public RedisFormatStatus finalizeFormat() {
    return repository.finalizeFormat();
  }
}
