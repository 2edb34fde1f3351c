package io.lazysession.redis.config;

import io.lazysession.redis.DecodeFailurePolicy;
import io.lazysession.redis.LazyRedisSessionRepository;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Stores HTTP sessions in Redis through {@link LazyRedisSessionRepository}, for Spring applications
 * without Spring Boot (Boot applications need nothing: the auto-configuration does it). Put it on a
 * {@code @Configuration} class:
 *
 * <pre>{@code
 * @Configuration
 * @EnableLazyHttpSession(redisUrl = "redis://localhost:6379", maxInactiveIntervalInSeconds = 1800,
 *     codec = "kryo", nearCacheMaxBytes = "32MB", durabilityReplicas = 1)
 * class SessionConfig {}
 * }</pre>
 *
 * <p>It registers the repository and Spring Session's {@code springSessionRepositoryFilter}
 * (register it with the servlet container as usual, e.g. {@code AbstractHttpSessionApplicationInitializer}).
 * Redis: the {@code io.lettuce.core.RedisClient} (or {@code RedisClusterClient}) bean named
 * {@value LazySessionAutoConfiguration#CLIENT_BEAN_NAME}, or one made from {@link #redisUrl()}; another
 * client bean of the application is never used. Attribute encoding: the {@code AttributeSerializer}
 * bean of the context, or one built from these attributes that decodes JDK types, the annotated
 * class's package and {@link #allowedPackages()}. {@code LazySessionRepositoryCustomizer} beans are
 * applied last.
 *
 * <p>Every attribute that mirrors a {@code lazysession.*} property is read the same way as that
 * property (one binding, one set of defaults, the same checks); an empty string (or -1) means "the
 * property's default". String attributes may hold {@code ${...}} placeholders.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Documented
@Import({LazyHttpSessionConfiguration.class, SessionLimitSecurityConfiguration.Selector.class})
public @interface EnableLazyHttpSession {
  /** The key prefix ({@code lazysession.namespace}). */
  String namespace() default LazyRedisSessionRepository.DEFAULT_NAMESPACE;

  /** The max inactive interval of new sessions, in seconds; negative: never expire. */
  int maxInactiveIntervalInSeconds() default 1800;

  /**
   * Where Redis is, e.g. {@code redis://localhost:6379} or {@code ${redis.url}} (placeholders are
   * resolved from the environment); empty: use the context's client bean named
   * {@value LazySessionAutoConfiguration#CLIENT_BEAN_NAME}. The client made from it fails fast like
   * the Spring Boot one: commands are refused while disconnected, the queue is bounded, and every
   * command times out after the URL's {@code timeout} parameter, else 2 s.
   */
  String redisUrl() default "";

  /** What happens when an attribute cannot be decoded ({@code lazysession.on-decode-failure}). */
  DecodeFailurePolicy onDecodeFailure() default DecodeFailurePolicy.DROP_ATTRIBUTE;

  /** Packages whose classes may be decoded, on top of JDK types and the annotated class's package. */
  String[] allowedPackages() default {};

  /** {@code kryo} or {@code jdk} ({@code lazysession.codec}); empty: the default. */
  String codec() default "";

  /** {@code zstd} or {@code none} ({@code lazysession.compression}); empty: the default. */
  String compression() default "";

  /** zstd level ({@code lazysession.compression.level}); -1: the default. */
  int compressionLevel() default -1;

  /** Smaller values stay uncompressed ({@code lazysession.compression.min-bytes}); -1: the default. */
  int compressionMinBytes() default -1;

  /** Near cache heap, e.g. {@code 32MB}, {@code 0} turns it off ({@code lazysession.near-cache.max-bytes}). */
  String nearCacheMaxBytes() default "";

  /** Replicas that must acknowledge each save ({@code lazysession.durability.replicas}); -1: the default. */
  int durabilityReplicas() default -1;

  /** How long a save waits for them, e.g. {@code 500ms} ({@code lazysession.durability.timeout}). */
  String durabilityTimeout() default "";

  /** e.g. {@code 10s} ({@code lazysession.touch-interval}); empty: the default. */
  String touchInterval() default "";

  /**
   * How long after its creation a session is over, however active, e.g. {@code 8h}
   * ({@code lazysession.absolute-timeout}); empty: none.
   */
  String absoluteTimeout() default "";

  /**
   * The idle timeout of a session without a principal until one is set, e.g. {@code 2m}
   * ({@code lazysession.anonymous-timeout}); empty: the session timeout.
   */
  String anonymousTimeout() default "";

  /**
   * How long a signed-in session keeps its id before its next request gets a new one, e.g.
   * {@code 15m} ({@code lazysession.id-renewal-interval}); empty: never.
   */
  String idRenewalInterval() default "";

  /**
   * How long the previous id still reaches a renewed session, e.g. {@code 10s}
   * ({@code lazysession.id-renewal-grace}); empty: 10s.
   */
  String idRenewalGrace() default "";

  /**
   * At most this many live sessions per principal, e.g. {@code "1"}
   * ({@code lazysession.max-sessions-per-principal}); empty: no limit.
   */
  String maxSessionsPerPrincipal() default "";

  /**
   * {@code evict-oldest} or {@code refuse-new}: what a sign-in beyond the limit does
   * ({@code lazysession.max-sessions-action}); empty: {@code evict-oldest}.
   */
  String maxSessionsAction() default "";

  /** The largest encoded attribute value, e.g. {@code 4MB} ({@code lazysession.max-value-bytes}). */
  String maxValueBytes() default "";

  /**
   * {@code true} or {@code false}: whether sessions that expire are reported
   * ({@code lazysession.expiry-events}); empty: the default (true).
   */
  String expiryEvents() default "";

  /**
   * Take over sessions stored by Spring Session Data Redis on their first request:
   * {@code spring-session-data-redis} ({@code lazysession.migrate-from}); empty: off.
   */
  String migrateFrom() default "";

  /**
   * The key prefix of the sessions to take over ({@code lazysession.migrate-from-namespace}); empty:
   * {@code spring:session}.
   */
  String migrateFromNamespace() default "";
}
