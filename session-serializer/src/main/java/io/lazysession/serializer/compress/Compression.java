package io.lazysession.serializer.compress;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How envelopes are compressed when written: not at all, or with zstd at a level, above a size
 * threshold, optionally with a trained dictionary. A value under the threshold, or one that does not
 * shrink, is stored raw. Immutable and thread-safe.
 */
public final class Compression {
  public static final int DEFAULT_LEVEL = 3;
  public static final int DEFAULT_MIN_BYTES = 256;
  /**
   * Suggested threshold with a dictionary: a trained dictionary shrinks even 50-byte payloads (class
   * and field names are in it), and a value that does not shrink is stored raw anyway.
   */
  public static final int DEFAULT_MIN_BYTES_WITH_DICTIONARY = 32;
  public static final int MIN_LEVEL = 1;
  public static final int MAX_LEVEL = 22;

  private static final Compression NONE = new Compression(false, 0, Integer.MAX_VALUE, null);
  private static final Compression ZSTD_DEFAULT =
      new Compression(true, DEFAULT_LEVEL, DEFAULT_MIN_BYTES, null);

  private final boolean enabled;
  private final int level;
  private final int minBytes;
  private final @Nullable ZstdDictionary dictionary;

  private Compression(boolean enabled, int level, int minBytes, @Nullable ZstdDictionary dictionary) {
    this.enabled = enabled;
    this.level = level;
    this.minBytes = minBytes;
    this.dictionary = dictionary;
  }

  public static Compression none() {
    return NONE;
  }

  /** zstd at {@link #DEFAULT_LEVEL} above {@link #DEFAULT_MIN_BYTES}. */
  public static Compression zstd() {
    return ZSTD_DEFAULT;
  }

  /**
   * @throws IllegalArgumentException "level must be between 1 and 22, was %s" / "minBytes must be >= 0"
   */
  public static Compression zstd(int level, int minBytes) {
    check(level, minBytes);
    return new Compression(true, level, minBytes, null);
  }

  public static Compression zstd(int level, int minBytes, ZstdDictionary dictionary) {
    check(level, minBytes);
    Objects.requireNonNull(dictionary, "dictionary must not be null");
    return new Compression(true, level, minBytes, dictionary);
  }

  private static void check(int level, int minBytes) {
    if (level < MIN_LEVEL || level > MAX_LEVEL) {
      throw new IllegalArgumentException(
          "level must be between " + MIN_LEVEL + " and " + MAX_LEVEL + ", was " + level);
    }
    if (minBytes < 0) {
      throw new IllegalArgumentException("minBytes must be >= 0, was " + minBytes);
    }
  }

  public boolean enabled() {
    return enabled;
  }

  /** The zstd level; 0 when compression is off. */
  public int level() {
    return level;
  }

  /** Payloads shorter than this are stored raw; {@link Integer#MAX_VALUE} when compression is off. */
  public int minBytes() {
    return minBytes;
  }

  public @Nullable ZstdDictionary dictionary() {
    return dictionary;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Compression other && enabled == other.enabled && level == other.level
        && minBytes == other.minBytes && Objects.equals(dictionary, other.dictionary);
  }

  @Override
  public int hashCode() {
    return Objects.hash(enabled, level, minBytes, dictionary);
  }

  @Override
  public String toString() {
    if (!enabled) {
      return "none";
    }
    return "zstd(level=" + level + ", minBytes=" + minBytes
        + (dictionary == null ? "" : ", dictionary=" + dictionary.id()) + ")";
  }
}
