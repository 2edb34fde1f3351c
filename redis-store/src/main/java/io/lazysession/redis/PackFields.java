package io.lazysession.redis;

import org.jspecify.annotations.Nullable;

/**
 * The pack as a find or delete answer carries the hash's fields: whole in {@code #s}, or in chunks
 * named by one byte each, {@code 0x80} to {@code 0x8E} (pack.lua); read exactly as pack.lua's
 * {@code packJoined} reads it, so that the SHA-1 a save sends of the pack it loaded is the one
 * save.lua computes: {@code #s} when present, else the chunks joined in order up to the first missing
 * one, else the chunks {@code #s0} to {@code #s11} of an earlier development build the same way.
 * Other names are ignored.
 */
final class PackFields {
  private byte @Nullable [] whole;
  private final byte[][] chunks = new byte[StoredPack.CHUNKS][];
  private byte @Nullable [][] legacy;

  /**
   * Takes {@code value} when {@code name} is {@code #s} or a chunk's name (of either form); false
   * otherwise.
   */
  boolean offer(byte[] name, byte[] value) {
    int chunk = StoredPack.chunkIndex(name);
    if (chunk >= 0) {
      chunks[chunk] = value;
      return true;
    }
    if (name.length < 2 || name.length > 4 || name[0] != '#' || name[1] != 's') {
      return false;
    }
    if (name.length == 2) {
      whole = value;
      return true;
    }
    int index = legacyIndex(name);
    if (index < 0) {
      return false;
    }
    if (legacy == null) {
      legacy = new byte[StoredPack.LEGACY_CHUNKS][];
    }
    legacy[index] = value;
    return true;
  }

  /**
   * Whether {@code name} is one byte of {@code 0x80} or more: the pack's chunks, and names a later
   * version may give more of them. Never valid UTF-8, so never an attribute's field: a name this
   * version does not use is ignored, never read as an attribute (it would decode as U+FFFD).
   */
  static boolean reserved(byte[] name) {
    return name.length == 1 && (name[0] & 0x80) != 0;
  }

  /** The pack, or null when the fields held none. */
  byte @Nullable [] pack() {
    if (whole != null) {
      return whole;
    }
    if (chunks[0] != null) {
      return joined(chunks);
    }
    byte[][] old = legacy;
    return old == null || old[0] == null ? null : joined(old);
  }

  /** The chunks up to the first missing one (the first is there), joined. */
  private static byte[] joined(byte[][] parts) {
    int count = 0;
    int length = 0;
    while (count < parts.length && parts[count] != null) {
      length += parts[count].length;
      count++;
    }
    if (count == 1) {
      return parts[0];
    }
    byte[] joined = new byte[length];
    int at = 0;
    for (int i = 0; i < count; i++) {
      System.arraycopy(parts[i], 0, joined, at, parts[i].length);
      at += parts[i].length;
    }
    return joined;
  }

  /** 0 to 11 for {@code #s0} to {@code #s11} (no leading zero); else -1. */
  private static int legacyIndex(byte[] name) {
    int index = 0;
    for (int i = 2; i < name.length; i++) {
      int digit = name[i] - '0';
      if (digit < 0 || digit > 9 || (i == 2 && digit == 0 && name.length > 3)) {
        return -1;
      }
      index = index * 10 + digit;
    }
    return index < StoredPack.LEGACY_CHUNKS ? index : -1;
  }
}
