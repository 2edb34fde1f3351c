package io.lazysession.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sweep of the expiry schedule, for {@link ExpirySweeper}: reports every session that is due,
 * exactly once across the nodes sweeping at once. It sweeps both schedules every time, whatever
 * format this node writes: {@code ns:expirations} (Redis format 1, until it is empty) and the
 * per-minute sets of format 2 ({@link ExpiryBuckets}). Thread-safe.
 *
 * <p>In {@code ns:expirations}, whoever removes an id (ZREM answered 1) claims it, and the claim
 * decides who reports a session nobody deleted live, its hash gone: the sweep reports it as expired.
 * In a bucket, removing a member claims nothing: only a script that deletes a live hash reports the
 * session (expire.lua: expired, delete.lua: deleted), so a sweep that finds a bucket's member with
 * its hash gone drops the member and reports nothing. The proof is in docs/redis-layout.md, "Expiry
 * schedule".
 */
final class ExpirySweep {
  private static final Logger log = LoggerFactory.getLogger(ExpirySweep.class);
  private static final int SWEEP_BATCH = 200;
  private static final int SWEEP_MAX_BATCHES = 50;

  private final RedisSessionStore store;
  private final NearCache nearCache;
  private final PrincipalIndex principals;
  private final SessionEvents events;
  private final MetricsRecorder metrics;
  private final SessionPolicies policies;

  ExpirySweep(RedisSessionStore store, NearCache nearCache, PrincipalIndex principals,
      SessionEvents events, MetricsRecorder metrics, SessionPolicies policies) {
    this.store = store;
    this.nearCache = nearCache;
    this.principals = principals;
    this.events = events;
    this.metrics = metrics;
    this.policies = policies;
  }

  /**
   * Says at WARN, once at startup, when the expiry grace is too short for the schedule of Redis
   * format 2: a session is taken up within a minute and a sweep interval of its due time, and one
   * whose hash Redis dropped before that is not reported (docs/redis-layout.md, "Expiry schedule,
   * format 2").
   */
  static void checkGrace(boolean scheduling, Duration grace, Duration interval) {
    Duration needed = Duration.ofMillis(ExpiryBuckets.MINUTE).plus(interval.multipliedBy(2));
    if (scheduling && !interval.isZero() && grace.compareTo(needed) < 0) {
      log.warn("lazysession expiry grace {} is shorter than a minute plus two cleanup intervals "
          + "({}): once the namespace is finalized at Redis format 2, a session may expire by its "
          + "TTL before a sweep takes it up, and then no SessionExpiredEvent is published for it",
          grace, needed);
    }
  }

  /** As {@link ExpirySweeper#dueMillis}, for stored metadata. */
  @Nullable Long dueMillis(SessionMetadata metadata) {
    Long idle = metadata.expires() ? metadata.dueMillis() : null;
    return metadata.creation() == null ? idle : policies.due(metadata.creation(), idle);
  }

  /**
   * Sweeps both schedules, {@code ns:expirations} first, at most {@link #SWEEP_MAX_BATCHES} batches
   * of {@link #SWEEP_BATCH} each, the time asked of {@code clock} before each batch.
   *
   * @return how many sessions this call reported as expired
   */
  int sweepDue(Clock clock) {
    int expired = 0;
    int batches = 0;
    for (; batches < SWEEP_MAX_BATCHES; batches++) {
      long now = clock.millis();
      List<String> due = store.indexes().dueForExpiry(now, SWEEP_BATCH);
      for (String id : due) {
        if (sweep(id, now)) {
          expired++;
        }
      }
      if (due.size() < SWEEP_BATCH) {
        break;
      }
    }
    for (; batches < SWEEP_MAX_BATCHES; batches++) {
      long now = clock.millis();
      Map.Entry<Long, List<SessionIndexes.Member>> due =
          store.indexes().dueInBuckets(now, SWEEP_BATCH);
      if (due.getValue().isEmpty()) {
        break;
      }
      for (SessionIndexes.Member member : due.getValue()) {
        if (sweepBucket(member, due.getKey(), now)) {
          expired++;
        }
      }
    }
    return expired;
  }

  /** Checks one id of {@code ns:expirations}; true when this node claimed and reported it. */
  private boolean sweep(String id, long now) {
    SessionMetadata metadata = store.metadata(id);
    boolean gone = metadata.lastAccess() == null || metadata.maxInactiveSeconds() == null;
    Long due = gone ? null : dueMillis(metadata);
    if (!gone && due == null) {
      store.indexes().claimFromZset(id); // never expires any more
      return false;
    }
    if (!gone && due > now) {
      store.indexes().rescheduleExpiry(id, due); // touched since scheduled
      return false;
    }
    return expireClaimed(id, now, !gone);
  }

  /**
   * Checks one member of the bucket of {@code minute} (a minute already over): dropped when its
   * hash is gone or never expires, moved to the bucket of its due time when it was touched since,
   * else taken off and expired by expire.lua, which alone decides whether it is reported.
   */
  private boolean sweepBucket(SessionIndexes.Member member, long minute, long now) {
    String id = member.id();
    SessionIndexes indexes = store.indexes();
    SessionMetadata metadata = store.metadata(id);
    boolean gone = metadata.lastAccess() == null || metadata.maxInactiveSeconds() == null;
    Long due = gone ? null : dueMillis(metadata);
    if (gone || due == null) {
      // Gone: deleted (and reported) by the script that deleted it, moved, or dropped by its TTL.
      indexes.takeFromBucket(member.member(), minute);
      return false;
    }
    if (due > now && ExpiryBuckets.minute(due) != minute) {
      indexes.moveExpiry(member.member(), minute, due); // touched since scheduled
      return false;
    }
    nearCache.invalidate(id);
    if (!indexes.takeFromBucket(member.member(), minute)) {
      return false; // another sweep took it: it expires it, or puts it back
    }
    return expireAfterClaim(id, now, false, false);
  }

  /** {@link ExpirySweeper#expireClaimed}; {@code seen}: whether the sweep found the hash first. */
  boolean expireClaimed(String id, long now, boolean seen) {
    nearCache.invalidate(id);
    if (!store.indexes().claimFromZset(id)) {
      return false;
    }
    return expireAfterClaim(id, now, seen, true);
  }

  /**
   * {@link ExpirySweeper#expireAfterClaim}; {@code seen}: whether the sweep found the hash before
   * its claim; {@code zset}: whether the claim was on {@code ns:expirations}. A hash found then and
   * gone now was deleted by another call (a delete, an eviction: it reports it) or moved (an id
   * change): nothing to report. (Its TTL can drop it in between only when no sweep ran for the
   * expiry grace after it was due; its event is then lost: at most once.) A hash gone for a
   * bucket's member is never reported: see the class comment.
   */
  boolean expireAfterClaim(String id, long now, boolean seen, boolean zset) {
    // With a publisher, the same script call returns the attributes the event carries.
    ScriptReplies.ExpireReply reply = store.expire(id, now, events.publishing());
    switch (reply.outcome()) {
      case NEVER -> {
        return false;
      }
      case LATER -> {
        // Nodes that read its format sweep it; looked at again by this one a minute from now.
        store.indexes().scheduleExpiry(id, now + ExpirySweeper.IN_FLIGHT.toMillis());
        return false;
      }
      case LIVE -> {
        Long due = dueMillis(reply.metadata());
        if (due != null) {
          store.indexes().scheduleExpiry(id, due);
        }
        return false;
      }
      default -> {
        if (reply.outcome() == ScriptReplies.ExpireOutcome.GONE && (seen || !zset)) {
          return false; // deleted or moved by another call since this sweep looked
        }
        principals.remove(reply.metadata().principal(), id);
        metrics.sessionsExpired.increment();
        events.expired(id, reply.deleted());
        return true;
      }
    }
  }
}
