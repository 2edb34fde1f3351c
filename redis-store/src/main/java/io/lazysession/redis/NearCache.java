package io.lazysession.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * This node's copies of session hashes it loaded or wrote, by id, each tagged with the version it had
 * in Redis. Bounded by an estimate of the bytes it holds (a Caffeine weigher). Thread-safe.
 *
 * <p>A copy is only ever used after Redis confirmed, inside the find script, that the stored version is
 * still the cached one, so a stale copy costs a full load, never a wrong answer. A copy is only stored
 * when it is known to equal Redis at that version: after a full load, after creating a session, or after
 * a save whose new version is exactly one more than the version the session was loaded at (so no other
 * node wrote in between). Otherwise the id is invalidated.
 */
final class NearCache {
  /** Rough per-entry and per-field overhead of the map, strings and arrays, in bytes. */
  private static final int ENTRY_OVERHEAD = 96;
  private static final int FIELD_OVERHEAD = 64;

  /**
   * What Redis held for one session at {@code version}: its creation time and attribute envelopes.
   * The arrays are shared with sessions in flight and never modified.
   */
  record Snapshot(long version, long creation, Map<String, byte[]> attributes) {}

  private final @Nullable Cache<String, Snapshot> cache;

  NearCache(long maxBytes) {
    this.cache = maxBytes <= 0 ? null : Caffeine.newBuilder()
        .maximumWeight(maxBytes)
        .weigher((String id, Snapshot snapshot) -> weigh(id, snapshot))
        .build();
  }

  boolean enabled() {
    return cache != null;
  }

  @Nullable Snapshot get(String id) {
    return cache == null ? null : cache.getIfPresent(id);
  }

  void put(String id, Snapshot snapshot) {
    if (cache != null) {
      cache.put(id, snapshot);
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
    long bytes = ENTRY_OVERHEAD + 2L * id.length();
    for (Map.Entry<String, byte[]> field : snapshot.attributes().entrySet()) {
      bytes += FIELD_OVERHEAD + 2L * field.getKey().length() + field.getValue().length;
    }
    return (int) Math.min(Integer.MAX_VALUE, bytes);
  }
}
