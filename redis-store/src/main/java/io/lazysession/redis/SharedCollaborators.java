package io.lazysession.redis;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.session.SessionIdGenerator;

/**
 * The collaborators of a {@link LazyRedisSessionRepository} that a
 * {@link LazyReactiveRedisSessionRepository} over it uses as they are: one connection, one near
 * cache, one expiry schedule and sweep, one principal index, one event publisher, one set of
 * counters, so that the two views of one repository never disagree about a session.
 *
 * @param durabilityReplicas the servlet repository's WAIT setting (0: off)
 * @param migrating whether the servlet repository takes over Spring Session Data Redis's sessions
 * @param idGenerator the session id generator, the configured one or the default (the context
 *     uses it too)
 * @param tracking the connection of tracked reads; null when off
 * @param sizes the session budget and size listeners, for both faces' saves
 * @param renewal id renewal, for both faces' {@code findById} (the reactive face runs it off the
 *     event loop)
 * @param limiter the limit of sessions per principal, around both faces' saves
 */
record SharedCollaborators(SessionConnection connection, RedisSessionStore store,
    NearCache nearCache, MetricsRecorder metrics, SessionContext context,
    PrincipalIndex principals, ExpirySweeper expiry, SessionEvents events, TouchPolicy touch,
    Duration defaultMaxInactiveInterval, Duration expiryGrace, int durabilityReplicas,
    boolean migrating, SessionIdGenerator idGenerator, @Nullable TrackingConnection tracking,
    SessionSizeWatch sizes, IdRenewal renewal, SessionLimiter limiter) {}
