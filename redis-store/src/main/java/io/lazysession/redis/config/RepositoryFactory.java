package io.lazysession.redis.config;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.SpringSessionDataRedis;
import io.lazysession.serializer.AttributeSerializer;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.env.Environment;

/**
 * The one place a repository is built from settings, for both the Spring Boot auto-configuration
 * and {@link EnableLazyHttpSession}: they differ only in where the settings and the client come
 * from (client building is separate: {@link RedisConnectionSettings}, {@link ConnectionDetailsClients},
 * or the application's own bean). Stateless.
 */
final class RepositoryFactory {
  static final Duration DEFAULT_TIMEOUT = LazyRedisSessionRepository.DEFAULT_MAX_INACTIVE_INTERVAL;
  static final String SESSION_TIMEOUT_NAME =
      "spring.session.timeout or server.servlet.session.timeout";

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

  /**
   * What the repository is built from.
   *
   * @param client the store's client: a {@link RedisClient} or {@link RedisClusterClient}
   * @param target where it connects, when the configuration built it (null: an application's bean)
   * @param clientName the setting that provided the client, for the error when it is not usable
   * @param properties {@code lazysession.*} (or the annotation's attributes, bound the same way)
   * @param namespace the key prefix, after {@code spring.session.data.redis.namespace} was applied
   * @param springSessionNamespace {@code spring.session.data.redis.namespace} when set: the default
   *     prefix of the sessions {@code lazysession.migrate-from} takes over
   * @param sessionTimeout the default max inactive interval
   * @param sessionTimeoutName the setting that holds it, for error messages
   */
  record Request(AbstractRedisClient client, @Nullable RedisTarget target, String clientName,
      AttributeSerializer serializer, LazySessionProperties properties, String namespace,
      @Nullable String springSessionNamespace, Duration sessionTimeout, String sessionTimeoutName, ApplicationEventPublisher events,
      List<LazySessionRepositoryCustomizer> customizers) {}

  /**
   * Where the sessions to take over live: {@code lazysession.migrate-from-namespace}, else
   * {@code spring.session.data.redis.namespace}, else Spring Session's default.
   */
  static String migrateFromNamespace(LazySessionProperties properties,
      @Nullable String springSessionNamespace) {
    if (properties.migrateFromNamespace() != null) {
      return properties.migrateFromNamespace();
    }
    return springSessionNamespace != null ? springSessionNamespace
        : SpringSessionDataRedis.DEFAULT_NAMESPACE;
  }

  static LazyRedisSessionRepository build(Request request) {
    LazySessionProperties properties = request.properties();
    properties.checkTouchInterval(request.sessionTimeout(), request.sessionTimeoutName());
    if (request.target() != null) {
      properties.checkDurabilityTimeout(request.target().commandTimeout(),
          request.target().commandTimeoutName());
    }
    LazyRedisSessionRepository.Builder builder;
    if (request.client() instanceof RedisClusterClient cluster) {
      builder = LazyRedisSessionRepository.builder(cluster);
    } else if (request.client() instanceof RedisClient standalone) {
      builder = LazyRedisSessionRepository.builder(standalone);
    } else {
      throw new LazySessionConfigurationException(request.clientName(),
          "the session store needs an io.lettuce.core.RedisClient or RedisClusterClient, got "
              + request.client().getClass().getName(),
          "Define the bean as a RedisClient or RedisClusterClient, or remove it to have one "
              + "built from spring.data.redis.*.");
    }
    builder.serializer(request.serializer())
        .namespace(request.namespace())
        .defaultMaxInactiveInterval(request.sessionTimeout())
        .onDecodeFailure(properties.decodeFailurePolicy())
        .expiryGrace(properties.expiryGrace())
        .cleanupInterval(properties.cleanupInterval())
        .expiryEvents(properties.expiryEvents())
        .nearCacheMaxBytes(properties.nearCache().maxBytes().toBytes())
        .nearCacheTracking(properties.nearCache().tracking())
        .durability(properties.durability().replicas(), properties.durability().timeout())
        .sessionBudget(properties.sessionBudget().toBudget())
        .eventPublisher(request.events());
    if (properties.touchInterval() != null) {
      builder.touchInterval(properties.touchInterval());
    }
    if (properties.migrateFrom() != null) {
      builder.migrateFrom(SpringSessionDataRedis.namespace(
          migrateFromNamespace(properties, request.springSessionNamespace())));
    }
    request.customizers().forEach(customizer -> customizer.customize(builder));
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      if (e.getMessage() == null || !e.getMessage().contains("lazysession.near-cache.mode")) {
        throw e;
      }
      throw new LazySessionConfigurationException("lazysession.near-cache.mode", e.getMessage(),
          "Set lazysession.near-cache.mode=validate, or run Redis as that message says.", e);
    } catch (IllegalStateException e) {
      // The builder's message says what failed (typically: cannot connect); add where we looked.
      String where = request.target() == null
          ? "the application's " + request.clientName() + " bean"
          : request.target().description();
      throw new LazySessionConfigurationException(
          request.target() == null ? request.clientName() : "spring.data.redis.*",
          e.getMessage() + " Redis was expected at " + where,
          "Check that Redis is running and reachable there, and the connection settings "
              + "(spring.data.redis.url, host, port, password, sentinel.*, cluster.nodes).", e);
    }
  }
}
