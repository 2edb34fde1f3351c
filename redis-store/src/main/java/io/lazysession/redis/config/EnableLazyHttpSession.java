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
 * @EnableLazyHttpSession(redisUrl = "redis://localhost:6379", maxInactiveIntervalInSeconds = 1800)
 * class SessionConfig {}
 * }</pre>
 *
 * <p>It registers the repository and Spring Session's {@code springSessionRepositoryFilter}
 * (register it with the servlet container as usual, e.g. {@code AbstractHttpSessionApplicationInitializer}).
 * Redis: the {@code io.lettuce.core.RedisClient} bean of the context, or one made from
 * {@link #redisUrl()}. Attribute encoding: the {@code AttributeSerializer} bean of the context, or one
 * that decodes JDK types, the annotated class's package and {@link #allowedPackages()}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Documented
@Import(LazyHttpSessionConfiguration.class)
public @interface EnableLazyHttpSession {
  /** The key prefix. */
  String namespace() default LazyRedisSessionRepository.DEFAULT_NAMESPACE;

  /** The max inactive interval of new sessions, in seconds; negative: never expire. */
  int maxInactiveIntervalInSeconds() default 1800;

  /**
   * Where Redis is, e.g. {@code redis://localhost:6379} or {@code ${redis.url}} (placeholders are
   * resolved from the environment); empty: use the context's RedisClient. The client made from it
   * fails fast like the Spring Boot one: commands are refused while disconnected, the queue is
   * bounded, and every command times out after the URL's {@code timeout} parameter, else 2 s.
   */
  String redisUrl() default "";

  /** What happens when an attribute cannot be decoded. */
  DecodeFailurePolicy onDecodeFailure() default DecodeFailurePolicy.DROP_ATTRIBUTE;

  /** Packages whose classes may be decoded, on top of JDK types and the annotated class's package. */
  String[] allowedPackages() default {};
}
