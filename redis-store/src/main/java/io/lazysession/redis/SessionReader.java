package io.lazysession.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Loads sessions: one find script call, which either confirms this node's near-cache copy or returns
 * the hash. Attributes are not decoded here. Thread-safe.
 */
final class SessionReader {
  private final RedisSessionStore store;
  private final NearCache nearCache;
  private final MetricsRecorder metrics;
  private final SessionContext context;
  /** Null unless the repository takes over Spring Session Data Redis's sessions. */
  private final @Nullable SpringSessionDataRedisMigration migration;

  SessionReader(RedisSessionStore store, NearCache nearCache, MetricsRecorder metrics,
      SessionContext context, @Nullable SpringSessionDataRedisMigration migration) {
    this.store = store;
    this.nearCache = nearCache;
    this.metrics = metrics;
    this.context = context;
    this.migration = migration;
  }

  /** How many aliases of renewed ids one load follows (a session renewed twice within the grace). */
  static final int ALIAS_HOPS = 3;

  /**
   * The live session {@code id}, or null when it does not exist, has expired, or is incomplete in
   * Redis. With id renewal on, an id renewed within the grace finds the session under its new id
   * (the alias renew.lua left), which the session has.
   *
   * @throws io.lettuce.core.RedisException as the store does
   */
  @Nullable LazySession find(String id) {
    return find(id, 0);
  }

  private @Nullable LazySession find(String id, int hops) {
    long epoch = nearCache.epoch();
    NearCache.Snapshot trusted = nearCache.trusted(id);
    if (trusted != null) {
      // Tracked reads: no invalidation reached this copy and the lease vouches for it. No call.
      metrics.nearCacheTrustedHits.increment();
      return session(id, Objects.requireNonNull(ScriptReplies.unchanged(trusted)), epoch);
    }
    long stamp = nearCache.stamp(id); // before the call: an invalidation after it untrusts the copy
    NearCache.Snapshot cached = nearCache.get(id);
    StoredSession stored;
    if (migration != null && migration.inFindScript() && migration.handles(id)) {
      // ---- migration hook: SSDR's hash in the same call --------------------------------------
      RedisSessionStore.Found found = store.find(id, cached, migration.sessionKey(id),
          migration.claimKey(id));
      if (found.ssdrHash() != null) {
        metrics.loads.increment();
        nearCache.invalidate(id);
        SsdrSession origin = migration.read(id, found.ssdrHash());
        return origin == null ? null : migrating(id, origin, epoch);
      }
      stored = found.stored();
    } else {
      stored = store.find(id, cached);
    }
    if (stored != null && stored.unchanged() && nearCache.epoch() != epoch) {
      // A connection dropped while the call was out: Lettuce may have re-sent it after a failover,
      // to a primary where the cached version number now names other contents. Load the hash.
      epoch = nearCache.epoch();
      stamp = nearCache.stamp(id);
      stored = store.find(id, null);
    }
    metrics.loads.increment();
    if (stored == null && store.keys().fallsBack()) {
      stored = fallBack(id);
      // The stamp was read for the name tried first; found under the other, the copy asks again.
      stamp = NearCacheTracking.UNTRUSTED;
    }
    if (stored == null) {
      nearCache.invalidate(id); // missing, or a hash without complete metadata
      if (migration == null || migration.inFindScript() || !migration.handles(id)) {
        String renewedTo = context.policies().idRenewalInterval() == null || hops >= ALIAS_HOPS
            ? null : store.aliasOf(id, context.now().toEpochMilli());
        return renewedTo == null ? null : find(renewedTo, hops + 1);
      }
      // ---- migration hook: a second call, on a miss only (Cluster) ----------------------------
      SsdrSession origin = migration.find(id);
      if (origin != null) {
        return migrating(id, origin, epoch);
      }
      // Another node may have taken it over between the two reads (it writes here, then deletes
      // there): one more look here, so that the session is never missed in between.
      stored = store.find(id, null);
      if (stored == null) {
        return null;
      }
    }
    stored = AttributePacking.expand(context.serializer(), context.protection(), id, stored);
    if (stored.unchanged()) {
      metrics.nearCacheHits.increment();
      if (cached != null && cached.metadata() == null) {
        // A copy this node saved, confirmed with its metadata: from now on hits are bare.
        nearCache.put(id, cached.withMetadata(metadata(stored)).withStamp(stamp));
      } else if (cached != null) {
        nearCache.confirmed(id, cached, stamp);
      }
    } else if (nearCache.enabled()) {
      nearCache.put(id, new NearCache.Snapshot(stored.version(), stored.creation(),
          Collections.unmodifiableMap(stored.attributes()), epoch, metadata(stored),
          stored.pack(), stamp, stored.renewed()));
    }
    return session(id, stored, epoch);
  }

  /**
   * A rollout of keyed names (docs/security.md): a session missing under its name is looked up
   * under the other one (its keyed name, or its clear id), and located there when found.
   */
  private @Nullable StoredSession fallBack(String id) {
    boolean keyed = store.keys().keyed(id);
    store.keys().locate(id, !keyed);
    StoredSession stored = store.find(id, null);
    if (stored == null) {
      store.keys().locate(id, keyed);
    }
    return stored;
  }

  /** The session {@code stored} describes, or null when it has expired. */
  private @Nullable LazySession session(String id, StoredSession stored, long epoch) {
    LazySession session = new LazySession(context, id, Instant.ofEpochMilli(stored.creation()),
        Instant.ofEpochMilli(stored.lastAccess()), Duration.ofSeconds(stored.maxInactiveSeconds()),
        stored.version(), stored.principal(), epoch);
    if (session.isExpired(context.now())) {
      return null;
    }
    // A near-cache map is shared, never copied: the session reads it and copies on change.
    session.loaded(stored.attributes());
    session.renewed(stored.renewed());
    session.storedPack(stored.pack());
    session.storedMetadata(metadata(stored));
    return session;
  }

  private static NearCache.Metadata metadata(StoredSession stored) {
    return new NearCache.Metadata(stored.lastAccess(), stored.maxInactiveSeconds(),
        stored.principal());
  }

  /**
   * A session still in Spring Session Data Redis's layout, with version 0 (not yet written here):
   * its first save takes it over ({@link SessionWriter}). Never near-cached.
   */
  private @Nullable LazySession migrating(String id, SsdrSession origin, long epoch) {
    LazySession session = new LazySession(context, id, Instant.ofEpochMilli(origin.creation()),
        Instant.ofEpochMilli(origin.lastAccess()), Duration.ofSeconds(origin.maxInactiveSeconds()),
        0, null, epoch);
    if (session.isExpired(context.now())) {
      return null; // SSDR keeps a hash five minutes past its expiry
    }
    session.loaded(origin.attributes());
    session.migratingFrom(origin);
    return session;
  }
}
