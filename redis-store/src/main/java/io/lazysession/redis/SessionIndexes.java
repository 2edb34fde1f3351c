package io.lazysession.redis;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.ZAddArgs;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The commands on the two indexes of a namespace besides the session hashes: the expiry schedule
 * (a sorted set of members by due time) and the principal sets, each counted as a round trip as
 * {@link RedisSessionStore} counts its own. Members and key names come from {@link SessionKeys}
 * (keyed with encryption keys on). Thread-safe.
 */
final class SessionIndexes {
  private final RedisSessionStore store;
  private final SessionConnection connection;
  private final SessionKeys keys;
  private final MetricsRecorder metrics;

  SessionIndexes(RedisSessionStore store, SessionConnection connection, SessionKeys keys,
      MetricsRecorder metrics) {
    this.store = store;
    this.connection = connection;
    this.keys = keys;
    this.metrics = metrics;
  }

  void scheduleExpiry(String id, long dueMillis) {
    scheduleExpiry(id, dueMillis, keys.keyed(id));
  }

  /** As {@link #scheduleExpiry(String, long)}, under keyed names ({@code keyed}) or in clear. */
  void scheduleExpiry(String id, long dueMillis, boolean keyed) {
    metrics.roundTrips.increment();
    connection.commands().zadd(keys.expirations(), (double) dueMillis, keys.member(id, keyed));
  }

  /** Moves an id that is still scheduled; does nothing when another node removed it meanwhile. */
  void rescheduleExpiry(String id, long dueMillis) {
    metrics.roundTrips.increment();
    connection.commands().zadd(keys.expirations(), ZAddArgs.Builder.xx(), (double) dueMillis,
        keys.member(id));
  }

  /** When {@code id} is due to expire by the schedule (epoch milliseconds); null when not on it. */
  @Nullable Long scheduledExpiry(String id) {
    metrics.roundTrips.increment();
    Double due = connection.commands().zscore(keys.expirations(), keys.member(id));
    return due == null ? null : due.longValue();
  }

  /**
   * Whether the hash of {@code id} exists (live, expired or an alias): a claim-then-delete that
   * found nothing live puts a claimed id back on the schedule only then ({@link ExpirySweeper}).
   */
  boolean sessionExists(String id) {
    metrics.roundTrips.increment();
    Long exists = connection.commands().exists(keys.session(id));
    return exists != null && exists > 0;
  }

  /** Removes an id from the schedule; true for exactly one caller when several race. */
  boolean unscheduleExpiry(String id) {
    return unscheduleExpiry(id, keys.keyed(id));
  }

  /** As {@link #unscheduleExpiry(String)}, under keyed names ({@code keyed}) or in clear. */
  boolean unscheduleExpiry(String id, boolean keyed) {
    metrics.roundTrips.increment();
    Long removed = connection.commands().zrem(keys.expirations(), keys.member(id, keyed));
    return removed != null && removed > 0;
  }

  List<String> dueForExpiry(long nowMillis, int limit) {
    metrics.roundTrips.increment();
    List<byte[]> ids = connection.commands().zrangebyscore(keys.expirations(),
        Range.create(Double.NEGATIVE_INFINITY, (double) nowMillis), Limit.create(0, limit));
    List<String> result = new ArrayList<>(ids.size());
    for (byte[] member : ids) {
      String id = keys.idOf(member);
      if (id != null) {
        result.add(id);
      } else if (connection.commands().zrem(keys.expirations(), member) != null) {
        metrics.roundTrips.increment(); // a member that fails its check: no session to report
      }
    }
    return result;
  }

  /**
   * Adds an id to a principal's set; true when it was not there yet. With {@code ttlMillis} (see
   * {@link PrincipalIndex#setTtl}) by principal-add.lua, which also keeps the set alive that long.
   */
  boolean addToPrincipal(String principalName, String id, @Nullable Long ttlMillis) {
    return addToPrincipal(principalName, id, ttlMillis, keys.keyed(id));
  }

  /** As {@link #addToPrincipal(String, String, Long)}, under keyed names or in clear. */
  boolean addToPrincipal(String principalName, String id, @Nullable Long ttlMillis,
      boolean keyed) {
    byte[] set = keys.principal(principalName, keyed);
    byte[] member = keys.member(id, keyed);
    Long added;
    if (ttlMillis == null) {
      metrics.roundTrips.increment();
      added = connection.commands().sadd(set, member);
    } else {
      added = store.eval(connection.commands(), RedisScript.PRINCIPAL_ADD, ScriptOutputType.INTEGER,
          set, member, RedisSessionStore.utf8(Long.toString(ttlMillis)));
    }
    return added != null && added > 0;
  }

  void removeFromPrincipal(String principalName, String id) {
    removeFromPrincipal(principalName, id, keys.keyed(id));
  }

  /** As {@link #removeFromPrincipal(String, String)}, under keyed names or in clear. */
  void removeFromPrincipal(String principalName, String id, boolean keyed) {
    metrics.roundTrips.increment();
    connection.commands().srem(keys.principal(principalName, keyed), keys.member(id, keyed));
  }

  /**
   * Whether {@code id} is among the recent admissions of the limit of sessions per principal
   * ({@link SessionLimiter#admissionsKey}): a sign-in, id change or renewal admitted less than
   * {@link SessionLimiter#IN_FLIGHT} ago (two at most: the script prunes older ones when it runs,
   * and the key expires two of them after the last admission). False without a limit, and for a
   * tombstone ({@link #isTombstone}): an id the limit evicted or found dead is not in flight.
   */
  boolean recentlyAdmitted(String principalName, String id) {
    metrics.roundTrips.increment();
    byte[] admission = connection.commands().hget(
        SessionLimiter.admissionsKey(keys.principal(principalName, id)), keys.member(id));
    return admission != null && !isTombstone(admission);
  }

  /**
   * Whether an entry of the recent admissions is a tombstone: its admission time followed by
   * {@code !} (principal-limit.lua), for an id evicted or found dead.
   */
  static boolean isTombstone(byte[] admission) {
    return admission.length > 0 && admission[admission.length - 1] == '!';
  }

  Set<String> principalSessions(String principalName) {
    Set<String> ids = new LinkedHashSet<>();
    for (byte[] key : keys.principals(principalName)) { // two sets during a rollout
      metrics.roundTrips.increment();
      connection.commands().smembers(key).stream().map(keys::idOf).filter(id -> id != null)
          .forEach(ids::add);
    }
    return ids;
  }
}
