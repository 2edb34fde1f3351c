/**
 * Spring configuration: {@link io.lazysession.redis.config.EnableLazyHttpSession} for plain Spring,
 * {@link io.lazysession.redis.config.LazySessionAutoConfiguration} for Spring Boot, and
 * {@link io.lazysession.redis.config.LazySessionProperties} ({@code lazysession.*}).
 */
@NullMarked
package io.lazysession.redis.config;

import org.jspecify.annotations.NullMarked;
