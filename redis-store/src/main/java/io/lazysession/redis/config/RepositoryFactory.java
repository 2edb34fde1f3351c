package io.lazysession.redis.config;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.serializer.AttributeSerializer;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.env.Environment;

/** Builds the repository from properties; shared by the Boot and plain Spring configurations. */
final class RepositoryFactory {
  static final Duration DEFAULT_TIMEOUT = LazyRedisSessionRepository.DEFAULT_MAX_INACTIVE_INTERVAL;

  private RepositoryFactory() {}

  /** {@code spring.session.timeout}, else {@code server.servlet.session.timeout}, else 30 minutes. */
  static Duration sessionTimeout(Environment environment) {
    Binder binder = Binder.get(environment);
    return binder.bind("spring.session.timeout", Duration.class)
        .orElseGet(() -> binder.bind("server.servlet.session.timeout", Duration.class)
            .orElse(DEFAULT_TIMEOUT));
  }

  static LazyRedisSessionRepository build(RedisClient client, @Nullable String where,
      AttributeSerializer serializer, LazySessionProperties properties, Duration timeout,
      ApplicationEventPublisher events) {
    LazyRedisSessionRepository.Builder builder = LazyRedisSessionRepository.builder(client)
        .serializer(serializer)
        .namespace(properties.getNamespace())
        .defaultMaxInactiveInterval(timeout)
        .onDecodeFailure(properties.decodeFailurePolicy())
        .expiryGrace(properties.getExpiryGrace())
        .cleanupInterval(properties.getCleanupInterval())
        .nearCacheMaxBytes(properties.getNearCacheMaxBytes().toBytes())
        .eventPublisher(events);
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
