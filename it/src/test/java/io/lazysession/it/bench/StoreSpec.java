package io.lazysession.it.bench;

import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;

/**
 * One store of the benchmark: a name for the tables, what it is, and how to open it on a Redis.
 *
 * @param name short name used in tables and in {@code bench.stores}
 * @param description what the store is and how it is configured
 * @param peer whether this is Spring Session Data Redis (the baseline of the ratios)
 * @param unavailable why this store cannot run with the code at hand, or null when it can
 * @param opener opens the store
 */
record StoreSpec(String name, String description, boolean peer, @Nullable String unavailable,
    Opener opener) {

  /** Opens a store on the Redis at {@code uri}, under a key namespace of its own. */
  @FunctionalInterface
  interface Opener {
    SessionStore open(StoreSpec spec, RedisURI uri);
  }

  boolean available() {
    return unavailable == null;
  }

  SessionStore open(RedisURI uri) {
    if (unavailable != null) {
      throw new IllegalStateException(name + " cannot run: " + unavailable);
    }
    return opener.open(this, uri);
  }

  /** A key namespace of this store's own, so that its keys can be measured and removed. */
  String namespace() {
    return "bench-" + name.replace('+', '-');
  }
}
