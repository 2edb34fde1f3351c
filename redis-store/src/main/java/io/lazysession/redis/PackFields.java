package io.lazysession.redis;

import org.jspecify.annotations.Nullable;

/**
 * The pack as a find or delete answer carries the hash's fields: whole in {@code #s}, or in chunks
 * {@code #s0} to {@code #s11} (pack.lua); read exactly as pack.lua's {@code packJoined} reads it, so
 * that the SHA-1 a save sends of the pack it loaded is the one save.lua computes: {@code #s} when
 * present, else the chunks joined in order up to the first missing one. Other names are ignored.
 */
final class PackFields {
  private byte @Nullable [] whole;
  private final byte[][] chunks = new byte[StoredPack.CHUNKS][];

  /** Takes {@code value} when {@code name} is {@code #s} or a chunk's name; false otherwise. */
  boolean offer(byte[] name, byte[] value) {
    if (name.length < 2 || name.length > 4 || name[0] != '#' || name[1] != 's') {
      return false;
    }
    if (name.length == 2) {
      whole = value;
      return true;
    }
    int index = chunkIndex(name);
    if (index < 0) {
      return false;
    }
    chunks[index] = value;
    return true;
  }

  /** The pack, or null when the fields held none. */
  byte @Nullable [] pack() {
    if (whole != null || chunks[0] == null) {
      return whole;
    }
    int count = 0;
    int length = 0;
    while (count < chunks.length && chunks[count] != null) {
      length += chunks[count].length;
      count++;
    }
    if (count == 1) {
      return chunks[0];
    }
    byte[] joined = new byte[length];
    int at = 0;
    for (int i = 0; i < count; i++) {
      System.arraycopy(chunks[i], 0, joined, at, chunks[i].length);
      at += chunks[i].length;
    }
    return joined;
  }

  /** 0 to {@code CHUNKS - 1} for {@code #s0} to {@code #s11} (no leading zero); else -1. */
  private static int chunkIndex(byte[] name) {
    int index = 0;
    for (int i = 2; i < name.length; i++) {
      int digit = name[i] - '0';
      if (digit < 0 || digit > 9 || (i == 2 && digit == 0 && name.length > 3)) {
        return -1;
      }
      index = index * 10 + digit;
    }
    return index < StoredPack.CHUNKS ? index : -1;
  }
}
