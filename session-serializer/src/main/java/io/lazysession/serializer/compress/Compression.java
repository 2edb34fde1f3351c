package io.lazysession.serializer.compress;

import org.jspecify.annotations.Nullable;

/**
 * How envelopes are compressed when written: not at all, or with zstd at a level, above a size
 * threshold, optionally with a trained dictionary. A value under the threshold, or one that does not
 * shrink, is stored raw. Immutable and thread-safe.
 */
public final class Compression {
  public static final int DEFAULT_LEVEL = 3;
  public static final int DEFAULT_MIN_BYTES = 256;

  public static Compression none() {
    throw new UnsupportedOperationException("TODO");
  }

  /** zstd at {@link #DEFAULT_LEVEL} above {@link #DEFAULT_MIN_BYTES}. */
  public static Compression zstd() {
    throw new UnsupportedOperationException("TODO");
  }

  /**
   * @throws IllegalArgumentException "level must be between 1 and 22, was %s" / "minBytes must be >= 0"
   */
  public static Compression zstd(int level, int minBytes) {
    throw new UnsupportedOperationException("TODO");
  }

  public static Compression zstd(int level, int minBytes, ZstdDictionary dictionary) {
    throw new UnsupportedOperationException("TODO");
  }

  public boolean enabled() {
    throw new UnsupportedOperationException("TODO");
  }

  public int level() {
    throw new UnsupportedOperationException("TODO");
  }

  public int minBytes() {
    throw new UnsupportedOperationException("TODO");
  }

  public @Nullable ZstdDictionary dictionary() {
    throw new UnsupportedOperationException("TODO");
  }
}
