package io.lazysession.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * This node's copies of session hashes it loaded or wrote, by id, each tagged with the version it had
 * in Redis. Bounded by an estimate of the bytes it holds (a Caffeine weigher). Thread-safe.
 *
 * <p>A copy is only ever used after Redis confirmed, inside the find script, that the stored version is
 * still the cached one, so a stale copy costs a full load, never a wrong answer. A copy is only stored
 * when it is known to equal Redis at that version: after a full load, after creating a session, or after
 * a save whose new version is exactly the version the session was loaded at plus the save's step (so
 * no other node wrote in between). Otherwise the id is invalidated.
 *
 * <p>After a failover that lost writes the promoted replica may be behind, and the next write there
 * is made on a version a lost write was made on too. Each update adds a random step ({@link
 * SaveRequest#versionStep}), so the two versions differ but for a chance of one in a million; and
 * every dropped connection or Cluster topology change starts a new
 * <em>epoch</em> and empties the cache; a copy is tagged with the epoch that was current when the
 * request that produced it started, and a copy from an earlier epoch is never stored nor used.
 *
 * <p>With {@linkplain NearCacheTracking tracking} on, a copy also keeps the stamp its request read
 * before sending its command, and {@link #trusted} hands out a copy without any call while Redis's
 * invalidations and the lease vouch for it (see {@link NearCacheTracking}); every other use is
 * confirmed by Redis as above.
 *
 * <p>Caffeine's upkeep (eviction and its bookkeeping) runs on the threads that use the cache, right
 * after their own access, never on a pool of its own: the bound holds when a write returns.
 */
final class NearCache {
  /** Rough per-entry and per-field overhead of the map, strings and arrays, in bytes. */
  private static final int ENTRY_OVERHEAD = 96;
  private static final int FIELD_OVERHEAD = 64;

  /**
   * What Redis held for one session at {@code version}: its creation time and attribute envelopes,
   * and its metadata when known. The map and arrays are shared with sessions in flight and never
   * modified.
   *
   * @param metadata the last access, timeout and principal at {@code version}; null when this node
   *     does not know them exactly (a copy made by a reactive save, or by a save of a session whose
   *     stored metadata it never read): the find script then sends them once, and the copy is
   *     completed (see find.lua)
   * @param pack the pack field at {@code version} and which attributes live in it
   * @param stamp the tracking stamp read before the command this copy came from was sent
   *     ({@link NearCacheTracking#UNTRUSTED} when tracking is off or the copy came from a save)
   * @param renewed when the id was issued by a renewal or change of id, epoch milliseconds; 0: at
   *     creation ({@link StoredSession#renewed})
   */
  record Snapshot(long version, long creation, Map<String, byte[]> attributes, long epoch,
      @Nullable Metadata metadata, StoredPack pack, long stamp, long renewed, long savedAt) {
    /** The {@code savedAt} of a copy a find answer confirmed: trusted for as long as its stamp. */
    static final long CONFIRMED = Long.MIN_VALUE;

    Snapshot(long version, long creation, Map<String, byte[]> attributes, long epoch,
        @Nullable Metadata metadata, StoredPack pack, long stamp, long renewed) {
      this(version, creation, attributes, epoch, metadata, pack, stamp, renewed, CONFIRMED);
    }

    Snapshot(long version, long creation, Map<String, byte[]> attributes, long epoch,
        @Nullable Metadata metadata, StoredPack pack, long stamp) {
      this(version, creation, attributes, epoch, metadata, pack, stamp, 0);
    }

    /** A copy whose metadata this node does not know. */
    Snapshot(long version, long creation, Map<String, byte[]> attributes, long epoch) {
      this(version, creation, attributes, epoch, null, StoredPack.NONE);
    }

    /** A copy whose metadata and pack this node knows, never trusted without a call. */
    Snapshot(long version, long creation, Map<String, byte[]> attributes, long epoch,
        @Nullable Metadata metadata, StoredPack pack) {
      this(version, creation, attributes, epoch, metadata, pack, NearCacheTracking.UNTRUSTED);
    }

    /** This copy, completed with the metadata Redis confirmed for its version. */
    Snapshot withMetadata(Metadata known) {
      return new Snapshot(version, creation, attributes, epoch, known, pack, stamp, renewed,
          savedAt);
    }

    /** This copy, confirmed by Redis in a call sent after {@code newStamp} was read. */
    Snapshot withStamp(long newStamp) {
      return new Snapshot(version, creation, attributes, epoch, metadata, pack, newStamp, renewed,
          CONFIRMED);
    }
  }

  /**
   * Metadata of a session at one version: every write of these bumps the version (save.lua), so a
   * confirmed version confirms them too.
   */
  record Metadata(long lastAccess, long maxInactiveSeconds, @Nullable String principal) {}

  /** Where a save of {@code id} starts (read before it is sent); null without tracking. */
  NearCacheTracking.@Nullable SaveStart saveStart(String id) {
    return tracking == null ? null : tracking.saveStart(id);
  }

  /**
   * A save of this node failed after it may have been sent: see {@link NearCacheTracking}.
   * {@code ids}: the session's id and the one it was stored under.
   */
  void saveFailed(String... ids) {
    for (String id : ids) {
      if (tracking != null) {
        tracking.saveFailed(id);
      }
      invalidate(id);
    }
  }

  /** An epoch the near cache never has (it counts up from 0): a copy that must never be cached. */
  static final long NO_EPOCH = Long.MIN_VALUE;

  private final @Nullable Cache<String, Snapshot> cache;
  private final AtomicLong epoch = new AtomicLong();
  private final @Nullable NearCacheTracking tracking;

  NearCache(long maxBytes) {
    this(maxBytes, null);
  }

  /** @param tracking with tracked reads on, what decides when a copy is used without a call */
  NearCache(long maxBytes, @Nullable NearCacheTracking tracking) {
    this.tracking = maxBytes <= 0 ? null : tracking;
    this.cache = maxBytes <= 0 ? null : Caffeine.newBuilder()
        // Caffeine's upkeep after a write (the eviction policy's bookkeeping, an eviction when over
        // the bound) on the thread that wrote, a microsecond or so, rather than handed to the common
        // ForkJoinPool: waking a pool thread after every save cost the request thread more than the
        // upkeep itself (a near-cached change measured ~3 us more per save), and its CPU on top.
        .executor(Runnable::run)
        .maximumWeight(maxBytes)
        .weigher((String id, Snapshot snapshot) -> weigh(id, snapshot))
        .build();
  }

  boolean enabled() {
    return cache != null;
  }

  /** The current epoch: read it before sending the command whose answer may be cached. */
  long epoch() {
    return epoch.get();
  }

  @Nullable Snapshot get(String id) {
    Snapshot snapshot = cache == null ? null : cache.getIfPresent(id);
    return snapshot == null || snapshot.epoch() != epoch.get() ? null : snapshot;
  }

  /**
   * The copy of {@code id} to use without asking Redis, or null: tracking on, a copy with its
   * metadata, stamped with the current stamp of its id, within the lease.
   */
  @Nullable Snapshot trusted(String id) {
    Snapshot snapshot = tracking == null ? null : get(id);
    return snapshot != null && snapshot.metadata() != null
        && tracking.trusts(id, snapshot.stamp()) && (snapshot.savedAt() == Snapshot.CONFIRMED
            || tracking.nanoTime() - snapshot.savedAt() <= tracking.maxStalenessNanos())
        ? snapshot : null;
  }

  /** The tracking stamp of {@code id}: read it before sending the command whose answer is cached. */
  long stamp(String id) {
    return tracking == null ? NearCacheTracking.UNTRUSTED : tracking.stamp(id);
  }

  /** After Redis confirmed {@code confirmed} in a call sent after {@code stamp} was read. */
  void confirmed(String id, Snapshot confirmed, long stamp) {
    if (tracking != null
        && (confirmed.stamp() != stamp || confirmed.savedAt() != Snapshot.CONFIRMED)) {
      put(id, confirmed.withStamp(stamp));
    }
  }

  /** Stores a copy unless a reset happened since its epoch began. */
  void put(String id, Snapshot snapshot) {
    if (cache != null && snapshot.epoch() == epoch.get()) {
      cache.put(id, snapshot);
    }
  }

  /** Forgets every copy: a connection dropped or the Cluster topology changed. */
  void reset() {
    epoch.incrementAndGet();
    if (cache != null) {
      cache.invalidateAll();
    }
  }

  /**
   * After a save of {@code session} in {@code epoch}: keeps its copy when {@code exact} (nobody wrote
   * in between, so it is what Redis holds), else drops it. The copy holds the session's {@linkplain
   * LazySession#storedMetadata() stored metadata} when it knows them, so that the next read is
   * confirmed by the bare answer; without them the find script sends them once. With tracking on,
   * the id's stamp moves ({@link NearCacheTracking#saved}), and the copy is trusted without a call
   * when nothing moved it since {@code start} (read before the save was sent; null: never), for at
   * most the maximum staleness from then: the save's own invalidation is not counted, so a write
   * that marks nothing (a delete or an expiry by another node, a node without tracking, a write by
   * hand) in the same pass of Redis's event loop goes unseen; past that bound the next read asks
   * Redis once.
   */
  void afterSave(LazySession session, long epoch, boolean exact,
      NearCacheTracking.@Nullable SaveStart start) {
    String id = session.getId();
    long stamp = tracking == null ? NearCacheTracking.UNTRUSTED : tracking.saved(id, start);
    if (exact && enabled()) {
      put(id, new Snapshot(session.version(), session.getCreationTime().toEpochMilli(),
          session.storedAttributes(), epoch, session.storedMetadata(), session.storedPack(),
          stamp, session.renewed(), start == null ? Snapshot.CONFIRMED : start.at()));
    } else {
      invalidate(session.getId());
    }
  }

  /** After Redis acknowledged this node's delete of {@code id}: drops its copy, as {@link #written}. */
  void deleted(String id) {
    written(id);
    invalidate(id);
  }

  /**
   * Redis acknowledged this node's write of {@code id}: with tracking on, its stamp moves now. A
   * request on this node that read the stamp before, and stores what Redis answered it before the
   * write (over the save's copy, or after the delete dropped it), would otherwise have that copy
   * trusted until the write's own invalidation arrives, which may be after this node's next read.
   */
  private void written(String id) {
    if (tracking != null) {
      tracking.written(id);
    }
  }

  void invalidate(String id) {
    if (cache != null) {
      cache.invalidate(id);
    }
  }

  long estimatedSize() {
    return cache == null ? 0 : cache.estimatedSize();
  }

  private static int weigh(String id, Snapshot snapshot) {
    byte[] pack = snapshot.pack().bytes();
    long bytes = ENTRY_OVERHEAD + 2L * id.length() + (pack == null ? 0 : pack.length);
    for (Map.Entry<String, byte[]> field : snapshot.attributes().entrySet()) {
      bytes += FIELD_OVERHEAD + 2L * field.getKey().length() + field.getValue().length;
    }
    return rounded(bytes);
  }

  /**
   * {@code bytes} rounded up to one of eight steps between two powers of two (so by less than an
   * eighth). A save that moves a copy's size a little leaves its weight as it was, and Caffeine then
   * replaces the copy as cheaply as a read: only a change of weight costs its upkeep (the policy's
   * bookkeeping, on the writing thread), which was most of what a save spent in the near cache.
   */
  static int rounded(long bytes) {
    if (bytes <= 64) {
      return (int) bytes;
    }
    long step = Long.highestOneBit(bytes) >>> 3;
    return (int) Math.min(Integer.MAX_VALUE, (bytes + step - 1) & -step);
  }
}
