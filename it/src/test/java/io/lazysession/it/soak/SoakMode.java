package io.lazysession.it.soak;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.LazyRedisSessionRepositoryBuilder;
import java.time.Duration;

/**
 * The store configurations the soak runs side by side, each under its own namespace with two
 * application nodes of its own, so that every fault hits all of them at the same moment.
 */
enum SoakMode {
  /**
   * The defaults: near cache on, every hit confirmed by Redis, a save returns once the primary has
   * it.
   */
  DURABILITY_OFF("durability off", "defaults (near cache validated by Redis, no WAIT)"),
  /** Each save waits until one replica has it ({@code lazysession.durability.replicas=1}). */
  DURABILITY_ON("durability on", "`lazysession.durability.replicas=1`, timeout 500 ms"),
  /** Tracked near-cache reads ({@code lazysession.near-cache.mode=track}), durability off. */
  TRACKED("tracked reads", "`lazysession.near-cache.mode=track`, max staleness 500 ms, "
      + "durability off");

  static final Duration DURABILITY_TIMEOUT = Duration.ofMillis(500);
  static final Duration MAX_STALENESS = Duration.ofMillis(500);

  private final String label;
  private final String description;

  SoakMode(String label, String description) {
    this.label = label;
    this.description = description;
  }

  String label() {
    return label;
  }

  String description() {
    return description;
  }

  /** The staleness a read in this mode may show by design; zero where every read is confirmed. */
  Duration allowedStaleness() {
    return this == TRACKED ? MAX_STALENESS : Duration.ZERO;
  }

  LazyRedisSessionRepositoryBuilder configure(LazyRedisSessionRepositoryBuilder builder) {
    return switch (this) {
      case DURABILITY_OFF -> builder;
      case DURABILITY_ON -> builder.durability(1, DURABILITY_TIMEOUT);
      case TRACKED -> builder.nearCacheTracking(MAX_STALENESS);
    };
  }
}
