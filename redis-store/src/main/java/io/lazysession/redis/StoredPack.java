package io.lazysession.redis;

import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The pack field ({@value #FIELD}) of a session hash as this node knows it: its bytes as stored, and
 * the attributes whose value lives in it (name to envelope; a name stored in a field of its own too
 * is not among them, as the own field wins). Immutable; the map and arrays are never modified.
 *
 * @param bytes the field's value as stored; null when the hash has no pack
 * @param entries the attributes read from it; null while it has not been read yet (a find answer)
 * @param unreadable why this node cannot read it (a newer format, a dictionary it lacks, a corrupt
 *     frame); null when it could. An unreadable pack is never rewritten nor deleted.
 * @param shadowed names the pack holds that a field of their own shadows: left out of {@code
 *     entries}, dropped from the pack whenever it is rewritten, and taken out of it when the
 *     attribute is removed (else the stale entry would come back once the own field is gone)
 * @param opened an unreadable pack with its seal opened (encryption keys: this node holds the key,
 *     but not the format or the dictionary of what is inside); null otherwise. A full write under
 *     another id (an id change or renewal) seals it again for that id, since the seal binds the
 *     session id: carried sealed as it is, no node could open it there.
 */
record StoredPack(byte @Nullable [] bytes, @Nullable Map<String, byte[]> entries,
    @Nullable String unreadable, Set<String> shadowed, byte @Nullable [] opened) {
  /** The hash field that holds the pack whole. */
  static final String FIELD = "#s";
  /**
   * How many chunk fields a pack may have, named by one byte each, {@code 0x80} to {@code 0x8E}: a
   * lone byte of {@code 0x80} or more is never valid UTF-8, so never an attribute's name; pack.lua's
   * count.
   */
  static final int CHUNKS = 15;
  /** The first chunk's name byte. */
  static final int FIRST_CHUNK = 0x80;
  /** Chunk fields of earlier development builds, {@code #s0} to {@code #s11}: read, never written. */
  static final int LEGACY_CHUNKS = 12;
  /** No pack. */
  static final StoredPack NONE = new StoredPack(null, Map.of(), null);

  /** 0 to {@code CHUNKS - 1} when {@code name} is a chunk's field name; else -1. */
  static int chunkIndex(byte[] name) {
    if (name.length != 1) {
      return -1;
    }
    int index = (name[0] & 0xFF) - FIRST_CHUNK;
    return index >= 0 && index < CHUNKS ? index : -1;
  }

  /**
   * The id of the zstd dictionary a pack (unsealed) was compressed with, from its header
   * (session-serializer's pack format: compression id 2, then the id as a varint); 0 for none, and
   * for null or bytes that are not a pack.
   */
  static int dictionaryOf(byte @Nullable [] plain) {
    if (plain == null || plain.length < 3 || (plain[0] & 0xF0) != 0xB0 || plain[1] != 2) {
      return 0;
    }
    return SaveRequest.varint(plain, 2);
  }

  /** The field name of chunk {@code index} (from 0). */
  static byte[] chunkField(int index) {
    return new byte[] {(byte) (FIRST_CHUNK + index)};
  }

  /** A pack none of whose names a field of their own shadows. */
  StoredPack(byte @Nullable [] bytes, @Nullable Map<String, byte[]> entries,
      @Nullable String unreadable) {
    this(bytes, entries, unreadable, Set.of(), null);
  }

  /** A pack whose seal, if any, stays as it is. */
  StoredPack(byte @Nullable [] bytes, @Nullable Map<String, byte[]> entries,
      @Nullable String unreadable, Set<String> shadowed) {
    this(bytes, entries, unreadable, shadowed, null);
  }

  /** A pack as a find or delete answer carried it, not read yet. */
  static StoredPack unread(byte @Nullable [] bytes) {
    return bytes == null ? NONE : new StoredPack(bytes, null, null);
  }

  /** Whether this node can rewrite it: there is none, or it was read. */
  boolean writable() {
    return unreadable == null && read();
  }

  /** Whether it was read (readable or not), or there is none: nothing left to decompress. */
  boolean read() {
    return entries != null;
  }

  /** The attributes whose value lives in the pack (empty when unread or unreadable). */
  Map<String, byte[]> members() {
    return entries == null ? Map.of() : entries;
  }
}
