package io.lazysession.redis;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where Spring Session Data Redis (4.x, {@code RedisSessionRepository} or
 * {@code RedisIndexedSessionRepository}, default JDK serialization) keeps the sessions that a
 * repository should take over, one by one, on their first request: see
 * {@link LazyRedisSessionRepositoryBuilder#migrateFrom}. Immutable, thread-safe.
 *
 * <pre>{@code
 * LazyRedisSessionRepository.builder(client)
 *     .migrateFrom(SpringSessionDataRedis.defaults())   // sessions under "spring:session"
 *     .build();
 * }</pre>
 */
public final class SpringSessionDataRedis {
  /** Spring Session Data Redis's default namespace ({@code spring.session.data.redis.namespace}). */
  public static final String DEFAULT_NAMESPACE = "spring:session";

  private final String namespace;

  private SpringSessionDataRedis(String namespace) {
    this.namespace = namespace;
  }

  /** Sessions under Spring Session Data Redis's default namespace, {@value #DEFAULT_NAMESPACE}. */
  public static SpringSessionDataRedis defaults() {
    return new SpringSessionDataRedis(DEFAULT_NAMESPACE);
  }

  /**
   * Sessions under {@code namespace}: the value of {@code spring.session.data.redis.namespace} (or of
   * {@code @EnableRedisHttpSession(redisNamespace = ...)}) of the application being migrated.
   */
  public static SpringSessionDataRedis namespace(String namespace) {
    Objects.requireNonNull(namespace, "namespace must not be null");
    if (namespace.isBlank() || namespace.endsWith(":")) {
      throw new IllegalArgumentException("Spring Session Data Redis namespace must be the value of "
          + "spring.session.data.redis.namespace, not blank and without a trailing ':', was '"
          + namespace + "'");
    }
    return new SpringSessionDataRedis(namespace);
  }

  /** The namespace, without the trailing {@code :}. */
  public String getNamespace() {
    return namespace;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof SpringSessionDataRedis other && namespace.equals(other.namespace);
  }

  @Override
  public int hashCode() {
    return namespace.hashCode();
  }

  @Override
  public String toString() {
    return "SpringSessionDataRedis[namespace=" + namespace + "]";
  }
}
