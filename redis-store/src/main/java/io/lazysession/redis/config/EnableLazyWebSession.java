package io.lazysession.redis.config;

import io.lazysession.redis.DecodeFailurePolicy;
import io.lazysession.redis.LazyReactiveRedisSessionRepository;
import io.lazysession.redis.LazyRedisSessionRepository;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Keeps a Spring WebFlux application's {@code WebSession}s in Redis through
 * {@link LazyReactiveRedisSessionRepository}, without Spring Boot: put it on a
 * {@code @Configuration} class. It defines the repository (its servlet face,
 * {@link LazyRedisSessionRepository}, as a bean too, which owns the connection) and Spring Session's
 * {@code webSessionManager}. Spring Boot applications need nothing: the auto-configuration does the
 * same from the properties.
 *
 * <pre>{@code
 * @Configuration
 * @EnableWebFlux
 * @EnableLazyWebSession(redisUrl = "${redis.url}", maxInactiveIntervalInSeconds = 3600)
 * class SessionConfig {}
 * }</pre>
 *
 * <p>Each attribute mirrors the {@code lazysession.*} property named in its description and is
 * checked the same way, as {@link EnableLazyHttpSession}'s are. Durability (WAIT) is not available
 * to reactive applications yet.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Documented
@Import({LazyWebSessionConfiguration.class, SessionLimitWebFluxSecurityConfiguration.Selector.class})
public @interface EnableLazyWebSession {
  /** The key prefix ({@code lazysession.namespace}). */
  String namespace() default LazyRedisSessionRepository.DEFAULT_NAMESPACE;

  /** The max inactive interval of new sessions, in seconds; negative: never expire. */
  int maxInactiveIntervalInSeconds() default 1800;

  /**
   * Where Redis is, e.g. {@code redis://localhost:6379} or {@code ${redis.url}} (placeholders are
   * resolved from the environment); empty: use the context's client bean named
   * {@value LazySessionAutoConfiguration#CLIENT_BEAN_NAME}.
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
}
