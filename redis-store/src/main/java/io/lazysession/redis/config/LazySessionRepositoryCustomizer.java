package io.lazysession.redis.config;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.LazyRedisSessionRepositoryBuilder;

/**
 * Adjusts the repository's builder for what the {@code lazysession.*} properties (or
 * {@link EnableLazyHttpSession}'s attributes) do not cover, e.g. a {@code Clock} or a
 * {@code SessionIdGenerator}. Declare one or more as beans; they run after the settings are
 * applied, in {@code @Order}, so they win. Called once, at startup, on the thread that builds the
 * context.
 */
@FunctionalInterface
public interface LazySessionRepositoryCustomizer {
  void customize(LazyRedisSessionRepositoryBuilder builder);
}
