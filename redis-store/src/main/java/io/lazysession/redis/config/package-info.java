/**
 * Spring configuration: {@link io.lazysession.redis.config.EnableLazyHttpSession} for plain Spring,
 * {@link io.lazysession.redis.config.LazySessionAutoConfiguration} for Spring Boot, both building the
 * repository through one factory from {@link io.lazysession.redis.config.LazySessionProperties}
 * ({@code lazysession.*}); {@link io.lazysession.redis.config.LazySessionRepositoryCustomizer} for
 * what the settings do not cover; {@link io.lazysession.redis.config.LazySessionConfigurationException}
 * for settings lazysession cannot start with.
 */
@NullMarked
package io.lazysession.redis.config;

import org.jspecify.annotations.NullMarked;
