package io.lazysession.serializer.codec;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Class names already resolved by one Kryo instance, keyed by the bytes Kryo stores them as (ASCII,
 * the last byte's high bit set), so that reading a known name costs a hash of its bytes and one
 * comparison instead of a new {@code String}, its hash and a map lookup. Only names that resolved
 * through {@link AllowListClassResolver} — allowed, and loaded by that Kryo's class loader — are ever
 * added, so a hit returns what resolving the name again would; the cache belongs to one resolver and
 * never sees another allow-list or class loader. Bounded: names beyond {@link #MAX_NAMES} are simply
 * resolved the slow way. One per resolver: not thread-safe.
 */
final class KnownClassNames {
  static final int MAX_NAMES = 256;
  private static final int SLOTS = 512; // open addressing, at most half full

  private final byte[][] names = new byte[SLOTS][];
  private final Class<?>[] types = new Class<?>[SLOTS];
  private int size;

  /** Length of the ASCII name starting at {@code offset}, or -1 if the bytes are not one. */
  static int asciiLength(byte[] buffer, int offset, int limit) {
    if (offset >= limit || (buffer[offset] & 0x80) != 0) {
      return -1; // not Kryo's ASCII form (a one-character or non-ASCII name): read it as a string
    }
    for (int p = offset; p < limit; p++) {
      if ((buffer[p] & 0x80) != 0) {
        return p - offset + 1;
      }
    }
    return -1;
  }

  /** The class stored under these {@code length} bytes, or null. */
  @Nullable Class<?> find(byte[] buffer, int offset, int length) {
    int mask = SLOTS - 1;
    for (int slot = hash(buffer, offset, length) & mask; ; slot = (slot + 1) & mask) {
      byte[] name = names[slot];
      if (name == null) {
        return null;
      }
      if (Arrays.equals(name, 0, name.length, buffer, offset, offset + length)) {
        return types[slot];
      }
    }
  }

  /** Remembers a name that resolved to {@code type}, unless full or already known. */
  void add(byte[] buffer, int offset, int length, Class<?> type) {
    if (size >= MAX_NAMES || find(buffer, offset, length) != null) {
      return;
    }
    int mask = SLOTS - 1;
    int slot = hash(buffer, offset, length) & mask;
    while (names[slot] != null) {
      slot = (slot + 1) & mask;
    }
    names[slot] = Arrays.copyOfRange(buffer, offset, offset + length);
    types[slot] = type;
    size++;
  }

  private static int hash(byte[] buffer, int offset, int length) {
    int h = 1;
    for (int i = offset, end = offset + length; i < end; i++) {
      h = 31 * h + buffer[i];
    }
    return h ^ (h >>> 16);
  }
}
