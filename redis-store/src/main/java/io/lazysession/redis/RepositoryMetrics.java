package io.lazysession.redis;

/**
 * A snapshot of what a {@link LazyRedisSessionRepository} has done since it was built. Immutable.
 *
 * <p>Bytes are payload bytes (field names and values sent or received), not protocol bytes.
 *
 * @param loads {@code findById} calls that reached Redis
 * @param nearCacheHits loads that Redis answered with "unchanged" because this node's near cache held
 *     the current version (a few bytes on the wire instead of the whole session)
 * @param saves {@code save} calls that wrote to Redis
 * @param savesSkipped {@code save} calls that had nothing to write (read-only, touch not yet due)
 * @param roundTrips commands sent to Redis (a script call counts as one)
 * @param bytesRead payload bytes received from Redis
 * @param bytesWritten payload bytes sent to Redis
 * @param decodeFailures attributes whose bytes could not be decoded
 * @param attributesInflated loaded attributes that a request decoded, counted when the session was saved
 * @param attributesLeftCompressed loaded attributes that a request never decoded, counted likewise
 * @param sessionsExpired sessions this node reported as expired
 * @param sessionsDeleted sessions deleted through this repository
 * @param scriptReloads scripts sent again after Redis had lost them (SCRIPT FLUSH, restart, failover)
 * @param sessionsMigrated sessions taken over from Spring Session Data Redis by their first save
 *     (see {@link LazyRedisSessionRepositoryBuilder#migrateFrom}); those still waiting are counted
 *     by {@link LazyRedisSessionRepository#countSessionsWaitingForMigration()}
 * @param nearCacheTrustedHits {@code findById} calls answered from the near cache without any call
 *     to Redis (tracked reads, {@link LazyRedisSessionRepositoryBuilder#nearCacheTracking}); not
 *     counted in {@code loads} nor {@code nearCacheHits}
 * @param rejectedValues stored values that protection ({@link SessionEncryption}) refused: forged or
 *     corrupt under a key this node holds, copied from another session or field, or unprotected
 *     while {@code acceptUnprotected} is off; each read as absent, never decoded
 * @param unprotectedValuesRead values read without protection while keys are on and
 *     {@code acceptUnprotected} lets them in (0 for a while: time to run
 *     {@link LazyRedisSessionRepository#reencrypt()} and turn acceptance off)
 */
public record RepositoryMetrics(
    long loads,
    long nearCacheHits,
    long saves,
    long savesSkipped,
    long roundTrips,
    long bytesRead,
    long bytesWritten,
    long decodeFailures,
    long attributesInflated,
    long attributesLeftCompressed,
    long sessionsExpired,
    long sessionsDeleted,
    long scriptReloads,
    long sessionsMigrated,
    long nearCacheTrustedHits,
    long rejectedValues,
    long unprotectedValuesRead) {}
