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
 * @param namespace the key namespace the store is opened under
 */
record StoreSpec(String name, String description, boolean peer, @Nullable String unavailable,
    Opener opener, String namespace) {

  /** A store under a key namespace of its own, so that its keys can be measured and removed. */
  StoreSpec(String name, String description, boolean peer, @Nullable String unavailable,
      Opener opener) {
    this(name, description, peer, unavailable, opener, "bench-" + name.replace('+', '-'));
  }

  /**
   * This store under its product's default key namespace ({@code spring:session} for Spring Session,
   * {@code lazysession}), as an application that sets none has it: the namespace is in every session
   * key, so it counts in the memory a session takes.
   */
  StoreSpec withDefaultNamespace() {
    return new StoreSpec(name, description, peer, unavailable, opener,
        peer ? "spring:session" : "lazysession");
  }

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
}
