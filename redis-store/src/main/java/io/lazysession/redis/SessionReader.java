package io.lazysession.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
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

  SessionReader(RedisSessionStore store, NearCache nearCache, MetricsRecorder metrics,
      SessionContext context) {
    this.store = store;
    this.nearCache = nearCache;
    this.metrics = metrics;
    this.context = context;
  }

  /**
   * The live session {@code id}, or null when it does not exist, has expired, or is incomplete in
   * Redis.
   *
   * @throws io.lettuce.core.RedisException as the store does
   */
  @Nullable LazySession find(String id) {
    long epoch = nearCache.epoch();
    NearCache.Snapshot cached = nearCache.get(id);
    StoredSession stored = store.find(id, cached);
    if (stored != null && stored.unchanged() && nearCache.epoch() != epoch) {
      // A connection dropped while the call was out: Lettuce may have re-sent it after a failover,
      // to a primary where the cached version number now names other contents. Load the hash.
      epoch = nearCache.epoch();
      stored = store.find(id, null);
    }
    metrics.loads.increment();
    if (stored == null) {
      nearCache.invalidate(id); // missing, or a hash without complete metadata
      return null;
    }
    if (stored.unchanged()) {
      metrics.nearCacheHits.increment();
    } else if (nearCache.enabled()) {
      nearCache.put(id, new NearCache.Snapshot(stored.version(), stored.creation(),
          Collections.unmodifiableMap(stored.attributes()), epoch));
    }
    LazySession session = new LazySession(context, id, Instant.ofEpochMilli(stored.creation()),
        Instant.ofEpochMilli(stored.lastAccess()), Duration.ofSeconds(stored.maxInactiveSeconds()),
        stored.version(), stored.principal(), epoch);
    if (session.isExpired(context.now())) {
      return null;
    }
    stored.attributes().forEach(session::loaded);
    return session;
  }
}
