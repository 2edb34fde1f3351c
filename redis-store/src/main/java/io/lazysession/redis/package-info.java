/**
 * A Spring Session {@link org.springframework.session.FindByIndexNameSessionRepository} on Redis
 * (Lettuce) whose attributes stay encoded until read and are written back as deltas.
 *
 * <p>Start at {@link io.lazysession.redis.LazyRedisSessionRepository#builder(io.lettuce.core.RedisClient)}.
 * The Redis layout, scripts and expiry are described in {@code docs/redis-layout.md}.
 */
@NullMarked
package io.lazysession.redis;

import org.jspecify.annotations.NullMarked;
