package io.lazysession.redis.config;

import io.lazysession.redis.micrometer.LazySessionMetrics;
import java.util.List;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The actuator endpoint {@value #ID}: the largest attributes seen on this node, the same ranking
 * that bounds the {@code attribute} tag of {@code lazysession.attribute.stored.bytes}. Expose it as
 * any endpoint ({@code management.endpoints.web.exposure.include=lazysessionsizes}). Thread-safe.
 *
 * <p>Internal: public for lazysession's own packages and for Spring Boot's actuator, which reads it;
 * not part of the supported API (docs/api.md). The endpoint itself, its id and what it answers, is
 * supported; this class is not.
 */
@Endpoint(id = LazySessionSizesEndpoint.ID)
public class LazySessionSizesEndpoint {
  /** The endpoint's id. */
  public static final String ID = "lazysessionsizes";

  private final LazySessionMetrics metrics;
  private final String namespace;

  LazySessionSizesEndpoint(LazySessionMetrics metrics, String namespace) {
    this.metrics = metrics;
    this.namespace = namespace;
  }

  /**
   * What the endpoint answers.
   *
   * @param namespace the repository's namespace
   * @param largestAttributes the largest attribute names seen on this node since start, largest
   *     first, each with its largest stored bytes and how many saves recorded it
   */
  public record Sizes(String namespace, List<LazySessionMetrics.LargestAttribute> largestAttributes) {}

  @ReadOperation
  public Sizes sizes() {
    return new Sizes(namespace, metrics.largestAttributes());
  }
}
