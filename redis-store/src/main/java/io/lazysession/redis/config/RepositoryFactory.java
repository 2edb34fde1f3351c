package io.lazysession.redis.config;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.serializer.AttributeSerializer;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.env.Environment;

/** Builds the repository from properties; shared by the Boot and plain Spring configurations. */
final class RepositoryFactory {
  static final Duration DEFAULT_TIMEOUT = LazyRedisSessionRepository.DEFAULT_MAX_INACTIVE_INTERVAL;

  private RepositoryFactory() {}

  /**
   * {@code spring.session.timeout}, else {@code server.servlet.session.timeout}, else 30 minutes. Bare
   * numbers are seconds, as Spring Boot declares both properties ({@code @DurationUnit(SECONDS)}).
   */
  static Duration sessionTimeout(Environment environment) {
    Binder binder = Binder.get(environment);
    return binder.bind("spring.session.timeout", DurationProperties.SECONDS)
        .orElseGet(() -> binder.bind("server.servlet.session.timeout", DurationProperties.SECONDS)
            .orElse(DEFAULT_TIMEOUT));
  }

  static LazyRedisSessionRepository build(AbstractRedisClient client, @Nullable String where,
      AttributeSerializer serializer, LazySessionProperties properties, Duration timeout,
      ApplicationEventPublisher events) {
    LazyRedisSessionRepository.Builder builder = client instanceof RedisClusterClient cluster
        ? LazyRedisSessionRepository.builder(cluster)
        : LazyRedisSessionRepository.builder((RedisClient) client);
    builder.serializer(serializer)
        .namespace(properties.getNamespace())
        .defaultMaxInactiveInterval(timeout)
        .onDecodeFailure(properties.decodeFailurePolicy())
        .expiryGrace(properties.getExpiryGrace())
        .cleanupInterval(properties.getCleanupInterval())
        .nearCacheMaxBytes(properties.getNearCacheMaxBytes().toBytes())
        .durability(properties.getDurabilityReplicas(), properties.getDurabilityTimeout())
        .eventPublisher(events);
    properties.checkTouchInterval(timeout);
    if (properties.getTouchInterval() != null) {
      builder.touchInterval(properties.getTouchInterval());
    }
    try {
      return builder.build();
    } catch (IllegalStateException e) {
      if (where == null) {
        throw e;
      }
      throw new IllegalStateException(e.getMessage() + " Redis was expected at " + where + ".", e);
    }
  }
}
