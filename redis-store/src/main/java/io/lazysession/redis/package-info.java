/**
 * A Spring Session {@link org.springframework.session.FindByIndexNameSessionRepository} on Redis
 * (Lettuce) whose attributes stay encoded until read and are written back as deltas.
 *
 * <p>Start at {@link io.lazysession.redis.LazyRedisSessionRepository#builder(io.lettuce.core.RedisClient)}.
 * The Redis layout, scripts and expiry are described in {@code docs/redis-layout.md}; which class
 * holds which concern in {@code docs/architecture.md}.
 *
 * <p>Expiry: Redis drops a hash by TTL (max inactive interval + grace); each repository also sweeps a
 * per-namespace schedule every cleanup interval and publishes one
 * {@link org.springframework.session.events.SessionExpiredEvent} per expired session across all nodes.
 * Deleted and expired events carry the session as Redis held it (id, times, attributes, each
 * attribute decoded only when a listener reads it). No Redis configuration (keyspace
 * notifications) is needed. {@code Builder.expiryEvents(false)} keeps no schedule and publishes no
 * expiry events (deletes are still reported).
 *
 * <p>Failures: every method that talks to Redis throws {@link
 * io.lazysession.redis.SessionStoreUnavailableException} when Redis cannot be reached or does not
 * answer within the client's command timeout, and {@link io.lazysession.redis.SessionStoreException}
 * for other error answers; {@link io.lazysession.redis.SessionNotReplicatedException} when durability
 * is on and too few replicas acknowledged a save. A failed save drops the session from the near
 * cache. For requests to fail fast rather than queue while Redis is down, give the client
 * {@code ClientOptions} with {@code REJECT_COMMANDS}, a bounded request queue and
 * {@code TimeoutOptions} (the Spring configurations do). A repository built with
 * {@code Builder.requireRedisAtStartup(false)} starts while Redis is unreachable and connects by
 * itself once it is; each outage is logged once, when it starts and when it ends.
 */
@NullMarked
package io.lazysession.redis;

import org.jspecify.annotations.NullMarked;
