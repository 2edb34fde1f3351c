package io.lazysession.redis;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.ZAddArgs;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The commands on the two indexes of a namespace besides the session hashes: the expiry schedule
 * (a sorted set of members by due time, {@code ns:expirations}, in Redis format 1; per-minute sets,
 * {@link ExpiryBuckets}, in format 2) and the principal sets, each counted as a round trip as
 * {@link RedisSessionStore} counts its own. Members and key names come from {@link SessionKeys}
 * (keyed with encryption keys on). Thread-safe.
 */
final class SessionIndexes {
  private final RedisSessionStore store;
  private final SessionConnection connection;
  private final SessionKeys keys;
  private final MetricsRecorder metrics;
  private final ExpiryBuckets buckets;
  private static final byte[] ADD = RedisSessionStore.utf8("add");
  private static final byte[] FROM_ZSET = RedisSessionStore.utf8("zset");

  SessionIndexes(RedisSessionStore store, SessionConnection connection, SessionKeys keys,
      MetricsRecorder metrics) {
    this.buckets = new ExpiryBuckets(keys);
    this.store = store;
    this.connection = connection;
    this.keys = keys;
    this.metrics = metrics;
  }

  void scheduleExpiry(String id, long dueMillis) {
    scheduleExpiry(id, dueMillis, keys.keyed(id));
  }

  /**
   * Whether this node schedules in the per-minute sets of Redis format 2 ({@link ExpiryBuckets})
   * rather than in {@code ns:expirations}: once the namespace is finalized at format 2.
   */
  boolean bucketed() {
    return store.format().writes() >= 2;
  }

  ExpiryBuckets buckets() {
    return buckets;
  }

  /**
   * As {@link #scheduleExpiry(String, long)}, under keyed names ({@code keyed}) or in clear. In
   * format 2 the member leaves {@code ns:expirations} (if there) and joins the bucket of the minute
   * of {@code dueMillis}, atomically (schedule.lua).
   */
  void scheduleExpiry(String id, long dueMillis, boolean keyed) {
    byte[] member = keys.member(id, keyed);
    if (!bucketed()) {
      metrics.roundTrips.increment();
      connection.commands().zadd(keys.expirations(), (double) dueMillis, member);
      return;
    }
    long minute = ExpiryBuckets.minute(dueMillis);
    store.eval(connection.commands(), RedisScript.SCHEDULE, ScriptOutputType.INTEGER,
        new byte[][] {buckets.zset(), buckets.bucket(minute)}, member,
        ExpiryBuckets.dropAt(minute), ADD);
  }

  /**
   * Moves an id that is still in {@code ns:expirations} (a sweep found it live): to its new due time
   * there, or in format 2 to the bucket of that time; does nothing when another node removed it
   * meanwhile.
   */
  void rescheduleExpiry(String id, long dueMillis) {
    if (!bucketed()) {
      metrics.roundTrips.increment();
      connection.commands().zadd(keys.expirations(), ZAddArgs.Builder.xx(), (double) dueMillis,
          keys.member(id));
      return;
    }
    long minute = ExpiryBuckets.minute(dueMillis);
    store.eval(connection.commands(), RedisScript.SCHEDULE, ScriptOutputType.INTEGER,
        new byte[][] {buckets.zset(), buckets.bucket(minute)}, keys.member(id),
        ExpiryBuckets.dropAt(minute), FROM_ZSET);
  }

  /**
   * Moves a member a sweep found in the bucket of {@code fromMinute} to the bucket of
   * {@code dueMillis} (SMOVE); false when it was no longer there (another sweep moved or claimed it).
   */
  boolean moveExpiry(byte[] member, long fromMinute, long dueMillis) {
    long minute = ExpiryBuckets.minute(dueMillis);
    Long moved = store.eval(connection.commands(), RedisScript.SCHEDULE, ScriptOutputType.INTEGER,
        new byte[][] {buckets.zset(), buckets.bucket(minute), buckets.bucket(fromMinute)}, member,
        ExpiryBuckets.dropAt(minute), ADD);
    return moved != null && moved > 0;
  }

  /**
   * When {@code id} is due to expire by the schedule (epoch milliseconds): its score in
   * {@code ns:expirations}, else the end of the bucket of a create or id change in flight at
   * {@code now} holding it ({@link ExpiryBuckets#zsetAndInFlight}); null when in neither. Looks in
   * both whatever this node writes: another node may write the other format.
   */
  @Nullable Long scheduledExpiry(String id, long now) {
    Long due = store.eval(connection.commands(), RedisScript.SCHEDULED, ScriptOutputType.INTEGER,
        buckets.zsetAndInFlight(now), keys.member(id),
        RedisSessionStore.utf8(Long.toString(ExpiryBuckets.minute(now))));
    return due;
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

  /**
   * Removes an id from the schedule: from {@code ns:expirations} and from the buckets of a write in
   * flight at {@code now} (unschedule.lua; in format 1, ZREM alone); true when it was in either. Of
   * several callers racing, exactly one removes it from {@code ns:expirations}; a member of a bucket
   * further ahead stays, for the sweep of its minute to drop (docs/redis-layout.md, "Expiry
   * schedule, format 2").
   */
  boolean unscheduleExpiry(String id, long now) {
    return unscheduleExpiry(id, keys.keyed(id), now);
  }

  /** As {@link #unscheduleExpiry(String, long)}, under keyed names ({@code keyed}) or in clear. */
  boolean unscheduleExpiry(String id, boolean keyed, long now) {
    if (!bucketed()) { // format 1, as 0.1.x: a member another node put in a bucket is left there
      metrics.roundTrips.increment();
      Long removed = connection.commands().zrem(keys.expirations(), keys.member(id, keyed));
      return removed != null && removed > 0;
    }
    List<Object> removed = store.eval(connection.commands(), RedisScript.UNSCHEDULE,
        ScriptOutputType.MULTI, buckets.zsetAndInFlight(now), keys.member(id, keyed));
    return removed != null && removed.stream()
        .anyMatch(count -> count instanceof Long n && n > 0);
  }

  /**
   * The claim on an id of {@code ns:expirations} (format 1): ZREM; true for exactly one caller when
   * several race.
   */
  boolean claimFromZset(String id) {
    metrics.roundTrips.increment();
    Long removed = connection.commands().zrem(keys.expirations(), keys.member(id));
    return removed != null && removed > 0;
  }

  /**
   * Takes a member a sweep found in the bucket of {@code minute} off it, and off
   * {@code ns:expirations} should it be there too (unschedule.lua); true when it was still in the
   * bucket.
   */
  boolean takeFromBucket(byte[] member, long minute) {
    List<Object> removed = store.eval(connection.commands(), RedisScript.UNSCHEDULE,
        ScriptOutputType.MULTI, new byte[][] {buckets.zset(), buckets.bucket(minute)}, member);
    return removed != null && removed.size() > 1 && removed.get(1) instanceof Long n && n > 0;
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

  /** A member of a bucket, and the session id it stands for. */
  record Member(String id, byte[] member) {}

  /**
   * Members of the oldest bucket of a minute before the one of {@code nowMillis} that holds any
   * (within {@link ExpiryBuckets#LOOK_BACK} minutes; due-bucket.lua), at most {@code limit}, with
   * that bucket's minute; empty when every one is empty. A member that fails its check is removed.
   */
  Map.Entry<Long, List<Member>> dueInBuckets(long nowMillis, int limit) {
    List<Object> answer = store.eval(connection.commands(), RedisScript.DUE_BUCKET,
        ScriptOutputType.MULTI, buckets.past(nowMillis),
        RedisSessionStore.utf8(Integer.toString(limit)));
    if (answer == null || answer.isEmpty() || !(answer.get(0) instanceof Long index)) {
      return Map.entry(0L, List.of());
    }
    long minute = ExpiryBuckets.pastMinute(nowMillis, (int) (index - 1));
    List<Member> members = new ArrayList<>(answer.size() - 1);
    for (Object value : answer.subList(1, answer.size())) {
      byte[] member = (byte[]) value;
      String id = keys.idOf(member);
      if (id != null) {
        members.add(new Member(id, member));
      } else {
        metrics.roundTrips.increment(); // a member that fails its check: no session to report
        connection.commands().srem(buckets.bucket(minute), member);
      }
    }
    return Map.entry(minute, members);
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
