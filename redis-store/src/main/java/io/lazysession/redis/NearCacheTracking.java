package io.lazysession.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * When a near-cache copy may be used without asking Redis: the state behind tracked reads
 * ({@link LazyRedisSessionRepositoryBuilder#nearCacheTracking}). Redis pushes an invalidation for
 * every write to a session hash of the namespace to this node ({@link TrackingConnection}); this
 * class counts them and holds the lease that bounds how late one may arrive. Thread-safe; the read
 * side ({@link #stamp}, {@link #trusts}) takes no lock.
 *
 * <p>Design: invalidations bump one of {@value #STRIPES} counters chosen by the session id. A request
 * reads its id's counter (its <em>stamp</em>) <em>before</em> it sends the command whose answer
 * becomes a copy; the copy keeps it. The copy is trusted only while the counter still has that
 * value: an invalidation that arrives at any time after the stamp was read (before the answer, or
 * after the copy was stored) makes it untrusted, so no copy outlives a write it did not see. Two ids
 * on one stripe only cost a validated call.
 *
 * <p>The lease: a {@code ROLE} (or {@code PING}) on the tracking connection sent at {@code t0} and
 * answered {@code master} proves that every invalidation of a write acknowledged to its writer
 * before {@code t0} has been counted (Redis
 * sends a broadcast invalidation before the reply to the write, and answers the ROLE after both on
 * the tracking connection; Lettuce hands pushes to the listener in order with replies). A copy is
 * trusted only while the latest such {@code t0} is at most {@code maxStaleness} old on this node's
 * monotonic clock. A dropped tracking connection voids the lease at once; turning tracking on again
 * bumps every counter (copies stamped while it was off are never trusted) before a new lease begins.
 */
final class NearCacheTracking {
  /** The stamp of a copy that must never be trusted (stored while tracking is off, or by a save). */
  static final long UNTRUSTED = Long.MIN_VALUE;
  static final int STRIPES = 4096;
  /**
   * Each stripe counts from its own base, {@code stripe << 40}: a stamp is then never the current
   * stamp of another stripe (a trillion bumps apart), so a copy whose id is named by another token
   * since it was stamped (keyed names during a rollout: a session located under its other name) is
   * not trusted by the counter of a stripe that saw none of its invalidations.
   */
  private static final int STRIPE_BASE_SHIFT = 40;
  private static final long NO_LEASE = Long.MIN_VALUE;

  private final AtomicLongArray stripes = new AtomicLongArray(STRIPES);
  private final String writer = newWriter();
  private final java.util.concurrent.atomic.AtomicLong saveNumbers =
      new java.util.concurrent.atomic.AtomicLong();
  /** The marks of this node's saves whose invalidation has not arrived ({@link #nextSaveMark}). */
  private final java.util.Set<Long> ownSaves = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private static final int MAX_OWN_SAVES = 4096;
  private final long maxStalenessNanos;
  private final LongSupplier nanoTime;
  /** When the PING of the current lease was sent, or {@link #NO_LEASE}. */
  private volatile long leaseFrom = NO_LEASE;
  /** What stands for an id in its key name: the id itself unless names are keyed. */
  private volatile UnaryOperator<String> token = UnaryOperator.identity();
  /** Bumped at each drop of the tracking connection; guarded by this. */
  private long generation;
  /** Whether CLIENT TRACKING is known to be on in {@link #generation}; guarded by this. */
  private boolean tracking;
  /** Whether the tracking connection must be opened again (to the primary); guarded by this. */
  private boolean moveRequested;

  /**
   * @param maxStalenessNanos how old the lease may get before copies are asked about again
   * @param nanoTime this node's monotonic clock ({@code System::nanoTime})
   */
  NearCacheTracking(long maxStalenessNanos, LongSupplier nanoTime) {
    if (maxStalenessNanos <= 0) {
      throw new IllegalArgumentException("maxStaleness must be > 0, was " + maxStalenessNanos
          + " ns");
    }
    this.maxStalenessNanos = maxStalenessNanos;
    this.nanoTime = nanoTime;
    for (int i = 0; i < STRIPES; i++) {
      stripes.set(i, (long) i << STRIPE_BASE_SHIFT);
    }
  }

  /**
   * The tracking of a repository built with {@code maxStaleness}, checked against the rest of its
   * configuration.
   *
   * @throws IllegalArgumentException naming the property, where tracked reads cannot work
   */
  static NearCacheTracking checked(Duration maxStaleness, boolean cluster, long nearCacheMaxBytes) {
    String off = " Or set " + TrackingConnection.MODE_PROPERTY + "=validate.";
    if (cluster) {
      throw new IllegalArgumentException("near-cache tracking (" + TrackingConnection.MODE_PROPERTY
          + "=track) is not supported on a Redis Cluster: each node would need its own tracking "
          + "connection." + off);
    }
    if (nearCacheMaxBytes <= 0) {
      throw new IllegalArgumentException("near-cache tracking (" + TrackingConnection.MODE_PROPERTY
          + "=track) needs the near cache: set lazysession.near-cache.max-bytes "
          + "(nearCacheMaxBytes) above 0." + off);
    }
    return new NearCacheTracking(maxStaleness.toNanos(), System::nanoTime);
  }

  /**
   * Sets what stands for a session id in its key name ({@link SessionKeys#nameToken}: with keyed
   * names a keyed hash): invalidations name keys, so stripes are counted by that token.
   */
  void nameTokens(UnaryOperator<String> token) {
    this.token = token;
  }

  /** The stamp of {@code id}: read it before sending the command whose answer may be cached. */
  long stamp(String id) {
    return stripes.get(stripe(token.apply(id)));
  }

  /** Whether a copy of {@code id} stamped {@code stamp} may be used without a call now. */
  boolean trusts(String id, long stamp) {
    // Order matters: the lease first, so that every invalidation the lease vouches for has been
    // counted before the counter is read; the clock last, so that "now" is never too early.
    long from = leaseFrom;
    if (from == NO_LEASE || stamp == UNTRUSTED || stripes.get(stripe(token.apply(id))) != stamp) {
      return false;
    }
    return nanoTime.getAsLong() - from <= maxStalenessNanos;
  }

  /** Redis invalidated the hash named with {@code id}'s token ({@link #nameTokens}). */
  void invalidated(String id) {
    stripes.incrementAndGet(stripe(id));
  }

  /** This node wrote or deleted session {@code id} (its id, not its token): as {@link #invalidated}. */
  void written(String id) {
    stripes.incrementAndGet(stripe(token.apply(id)));
  }

  /**
   * Where a save of {@code id} starts, read before it is sent: its stripe, that stripe's stamp and
   * this node's clock.
   */
  record SaveStart(int stripe, long stamp, long at) {}

  SaveStart saveStart(String id) {
    int stripe = stripe(token.apply(id));
    return new SaveStart(stripe, stripes.get(stripe), nanoTime.getAsLong());
  }

  /**
   * This node's save of {@code id}, which began at {@code start} (null: unknown), was acknowledged: the id's stamp
   * moves (as {@link #invalidated}, for requests of this node that read it before), and the save's
   * own copy may be trusted when nothing else moved it since: no invalidation was counted and no
   * other save of this node on that stripe was acknowledged in between, and the session is still
   * named as when the save began (same stripe). Its own invalidation is not counted
   * ({@link #ownSave}), so a later one is another write.
   *
   * @return the stamp of the save's copy, or {@link #UNTRUSTED}
   */
  long saved(String id, @Nullable SaveStart start) {
    int stripe = stripe(token.apply(id));
    if (start != null && stripe == start.stripe()
        && stripes.compareAndSet(stripe, start.stamp(), start.stamp() + 1)) {
      return start.stamp() + 1;
    }
    stripes.incrementAndGet(stripe);
    return UNTRUSTED;
  }

  /**
   * The mark the next save writes ({@code <writer>.<n>}, after {@code <hash>:w:}), registered as this
   * node's until its invalidation arrives ({@link #ownSave}). Registrations are dropped when too
   * many are left over (saves that wrote nothing push nothing) or a save failed: an invalidation
   * whose mark is not registered is counted, which only costs a call.
   */
  String nextSaveMark() {
    long n = saveNumbers.incrementAndGet();
    if (ownSaves.size() >= MAX_OWN_SAVES) {
      ownSaves.clear();
    }
    ownSaves.add(n);
    return writer + "." + n;
  }

  /**
   * Whether {@code mark} (what follows {@code :w:} in a mark key) is that of a save of this node
   * still registered; it is not any more afterwards.
   */
  boolean ownSave(String mark) {
    int dot = mark.lastIndexOf('.');
    if (dot != writer.length() || !mark.startsWith(writer)) {
      return false;
    }
    try {
      return ownSaves.remove(Long.parseLong(mark.substring(dot + 1)));
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * A save of this node failed after it may have been sent (a timeout, a dropped connection): Redis
   * may still run it later, and its invalidation must then be counted, as that of any write.
   */
  void saveFailed(String id) {
    ownSaves.clear();
    written(id);
  }

  /** This node's part of its saves' marks ({@link #nextSaveMark}): random per repository. */
  String writer() {
    return writer;
  }

  /** Redis invalidated every key (FLUSHALL, FLUSHDB), or tracking (re)starts: nothing is trusted. */
  void invalidatedAll() {
    ownSaves.clear();
    for (int i = 0; i < STRIPES; i++) {
      stripes.incrementAndGet(i);
    }
  }

  /** The generation to pass to {@link #trackingOn} and {@link #answered}, read before sending. */
  synchronized long generation() {
    return generation;
  }

  synchronized boolean isTracking() {
    return tracking;
  }

  /** The tracking connection dropped: the lease ends now, and tracking must be turned on again. */
  synchronized void disconnected() {
    ownSaves.clear();
    generation++;
    tracking = false;
    leaseFrom = NO_LEASE;
  }

  /**
   * The tracking connection must be opened again, to the primary the client finds now: one of the
   * repository's command connections dropped (it reconnects there, to the new primary after a
   * Sentinel failover, and invalidations pushed by another server do not cover what this node reads
   * now), or the tracking connection's server answered that it is not a primary (demoted by hand,
   * its clients kept). The lease ends at once.
   */
  synchronized void reopenRequested() {
    disconnected();
    moveRequested = true;
  }

  /** Whether the tracking connection must be opened again; clears the request. */
  synchronized boolean takeReopenRequest() {
    boolean requested = moveRequested;
    moveRequested = false;
    return requested;
  }

  /**
   * Redis confirmed CLIENT TRACKING sent in {@code sentIn}; false (and nothing changes) when the
   * connection dropped since, so that it is sent again.
   */
  synchronized boolean trackingOn(long sentIn) {
    if (sentIn != generation) {
      return false;
    }
    invalidatedAll();
    tracking = true;
    return true;
  }

  /** A PING sent at {@code sentAt} (nanoTime) in generation {@code sentIn} was answered. */
  synchronized void answered(long sentIn, long sentAt) {
    if (sentIn == generation && tracking && (leaseFrom == NO_LEASE || sentAt > leaseFrom)) {
      leaseFrom = sentAt;
    }
  }

  /** Whether a copy could be trusted now at all (a lease not older than the bound). */
  boolean leaseValid() {
    long from = leaseFrom;
    return from != NO_LEASE && nanoTime.getAsLong() - from <= maxStalenessNanos;
  }

  /** When the PING of the current lease was sent (nanoTime); {@code Long.MIN_VALUE} when none. */
  long leaseFrom() {
    return leaseFrom;
  }

  long maxStalenessNanos() {
    return maxStalenessNanos;
  }

  long nanoTime() {
    return nanoTime.getAsLong();
  }

  private static String newWriter() {
    byte[] random = new byte[9];
    ValueProtection.randomBytes(random);
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(random);
  }

  static int stripe(String id) {
    int h = id.hashCode();
    return (h ^ (h >>> 16)) & (STRIPES - 1);
  }
}
