package io.lazysession.redis;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * One call of the save script, typed; {@link #arguments()} is its wire form, read by save.lua.
 *
 * @param nowMillis the caller's clock, epoch milliseconds
 * @param maxInactiveSeconds the timeout to store; null (updates only) keeps the stored one
 * @param writes attribute name to envelope bytes to store in fields of their own
 * @param removes attribute names whose own fields are deleted
 * @param pack the new pack and the one it was made from; null leaves the pack as it is
 * @param absoluteMillis the absolute timeout (SessionPolicies), milliseconds; 0: none
 * @param versionStep what an update adds to the stored version: random, from 1 to {@link
 *     #MAX_VERSION_STEP}, so that two writes made on one version by two nodes (one of them lost
 *     in a failover: a primary that lost it serves the version it had) give two versions, and a
 *     near-cached copy of the lost write never matches the write that took its place
 */
record SaveRequest(SaveMode mode, long nowMillis, long creationMillis, long lastAccessMillis,
    @Nullable Long maxInactiveSeconds, long graceMillis, PrincipalChange principal,
    Map<String, byte[]> writes, Collection<String> removes,
    AttributePacking.@Nullable PackWrite pack, long absoluteMillis, long versionStep) {
  /** The largest version step: 2^20, about a million; 2^53 / 2^20 updates fit a Lua number. */
  static final long MAX_VERSION_STEP = 1 << 20;

  /**
   * The request that saves {@code session} at {@code nowMillis}. The max inactive interval is sent
   * only when {@code withTimeout} (created, or changed by this request): otherwise the script keeps
   * the stored one, which another node may have changed since this request loaded the session.
   * {@code writes} and {@code removes} are the session's; {@link AttributePacking#place} decides
   * which go to fields of their own and which to the pack.
   */
  static SaveRequest of(SaveMode mode, long nowMillis, LazySession session,
      PrincipalChange principal, boolean withTimeout, long graceMillis,
      Map<String, byte[]> writes, Collection<String> removes) {
    long maxInactive = session.getMaxInactiveInterval().isNegative() ? -1L
        : session.getMaxInactiveInterval().getSeconds();
    AttributePacking.Placement placement =
        AttributePacking.place(session, writes, removes, mode.creates());
    return new SaveRequest(mode, nowMillis, session.getCreationTime().toEpochMilli(),
        session.getLastAccessedTime().toEpochMilli(), withTimeout ? maxInactive : null,
        graceMillis, principal, placement.fieldWrites(), placement.fieldRemoves(),
        placement.pack(), session.policies().absoluteMillis(),
        ThreadLocalRandom.current().nextLong(1, MAX_VERSION_STEP + 1));
  }

  /** Where this request writes, as {@link AttributePacking} placed it. */
  AttributePacking.Placement placement() {
    return new AttributePacking.Placement(writes, removes, pack);
  }

  /** This request with its writes placed anew (after a pack conflict). */
  SaveRequest with(AttributePacking.Placement placement) {
    return new SaveRequest(mode, nowMillis, creationMillis, lastAccessMillis, maxInactiveSeconds,
        graceMillis, principal, placement.fieldWrites(), placement.fieldRemoves(),
        placement.pack(), absoluteMillis, versionStep);
  }

  /**
   * Whether a value this request writes, an attribute's envelope or the pack, names a zstd
   * dictionary that {@code named} accepts (carried-over bytes included: an id change writes them).
   */
  boolean namesDictionary(java.util.function.IntPredicate named) {
    if (pack != null && pack.dictionary() != 0 && named.test(pack.dictionary())) {
      return true;
    }
    for (byte[] envelope : writes.values()) {
      // An envelope (0xA_) compressed with a dictionary (2): the id follows its 3-byte header.
      if (envelope.length > 3 && (envelope[0] & 0xF0) == 0xA0 && envelope[2] == 2
          && named.test(varint(envelope, 3))) {
        return true;
      }
    }
    return false;
  }

  /** The unsigned LEB128 varint at {@code at} (at most 5 bytes); 0 when truncated. */
  static int varint(byte[] bytes, int at) {
    long value = 0;
    for (int i = 0; i < 5 && at + i < bytes.length; i++) {
      value |= (long) (bytes[at + i] & 0x7F) << (7 * i);
      if ((bytes[at + i] & 0x80) == 0) {
        return (int) value;
      }
    }
    return 0;
  }

  /** The version an update makes of {@code loaded} when nobody wrote since it was loaded. */
  long nextVersion(long loaded) {
    return mode.creates() ? 1 : loaded + versionStep;
  }

  /** The pack the hash holds once this request is applied, given the one it was loaded with. */
  StoredPack packAfter(StoredPack loaded) {
    return pack != null ? pack.after() : mode.creates() ? StoredPack.NONE : loaded;
  }

  /** How the save script treats the key: see save.lua. */
  enum SaveMode {
    /** The key must not exist (or be this very create, re-sent). */
    CREATE("n"),
    /** As {@link #CREATE}, for a session moved here from another id: the id's issue time is kept. */
    MOVE("r"),
    /** The session must exist and be live; nothing is written otherwise. */
    UPDATE("u");

    private final byte[] argument;

    SaveMode(String argument) {
      this.argument = RedisSessionStore.utf8(argument);
    }

    /** Whether the key must not exist: a whole session is written. */
    boolean creates() {
      return this != UPDATE;
    }

    /**
     * The mode of a whole write of {@code session}: {@link #MOVE} for a new id when ids are renewed
     * (only then is the issue time {@code #r} worth its bytes), else {@link #CREATE}.
     */
    static SaveMode whole(boolean idChanged, LazySession session) {
      return idChanged && session.policies().idRenewalInterval() != null ? MOVE : CREATE;
    }
  }

  private static final byte[] EMPTY = {};
  private static final byte[] NO_PACK_LOADED = {'='};
  private static final byte[] PRINCIPAL_REMOVED = {'-'};
  private static final byte[] ID_FIELD = RedisSessionStore.utf8(SessionKeys.ID);
  private static final byte[] FORMAT_FIELD = RedisSessionStore.utf8(RedisFormat.FIELD);

  /**
   * The grace argument of save.lua (ARGV[6]) and migrate.lua (ARGV[5]): the grace in milliseconds,
   * followed with an absolute timeout by ':' and that timeout in milliseconds.
   */
  static byte[] graceArgument(long graceMillis, long absoluteMillis) {
    return RedisSessionStore.utf8(absoluteMillis == 0 ? Long.toString(graceMillis)
        : graceMillis + ":" + absoluteMillis);
  }

  /** The save script's arguments, as save.lua reads them, values unprotected. */
  byte[][] arguments() {
    return arguments(ValueProtection.CLEAR);
  }

  /**
   * The save script's arguments, as save.lua reads them: the values of fields of their own and the
   * principal name sealed by {@code values} (the pack is sealed when it is made, {@link
   * AttributePacking}, since the SHA-1 a later save sends of it is of its stored bytes).
   */
  byte[][] arguments(ValueProtection.SessionValues values) {
    return arguments(values, null, 1);
  }

  /**
   * As {@link #arguments(ValueProtection.SessionValues)}; a create (or a move) also writes {@code idField}, the
   * sealed id of a session under a keyed name ({@link SessionKeys#idField}), as the field
   * {@code #i}; in a Redis format after 1 ({@code format}, what the node writes: {@link
   * RedisFormat#writes}), every save marks the hash with it ({@code #f}), so that a node of an
   * earlier format never reads it in part.
   */
  byte[][] arguments(ValueProtection.SessionValues values, byte @Nullable [] idField, int format) {
    boolean withId = idField != null && mode.creates();
    boolean marked = format > 1;
    int set = writes().size() + (withId ? 1 : 0) + (marked ? 1 : 0);
    int size = 11 + set * 2 + removes().size();
    byte[][] arguments = new byte[size][];
    int i = 0;
    arguments[i++] = mode.argument;
    arguments[i++] = decimal(nowMillis());
    arguments[i++] = decimal(creationMillis());
    arguments[i++] = decimal(lastAccessMillis());
    arguments[i++] = maxInactiveSeconds() == null ? EMPTY : decimal(maxInactiveSeconds());
    arguments[i++] = graceArgument(graceMillis(), absoluteMillis);
    arguments[i++] = principalArgument(principal(), values);
    arguments[i++] = pack == null ? EMPTY : pack.expected() == null ? NO_PACK_LOADED
        : RedisScript.prefixedSha1Hex((byte) '=', pack.expected());
    arguments[i++] = pack == null ? EMPTY : pack.bytes();
    arguments[i++] = decimal(versionStep);
    arguments[i++] = decimal(set);
    if (marked) {
      arguments[i++] = FORMAT_FIELD;
      arguments[i++] = decimal(format);
    }
    if (withId) {
      arguments[i++] = ID_FIELD;
      arguments[i++] = idField;
    }
    for (Map.Entry<String, byte[]> write : writes().entrySet()) {
      String field = SessionKeys.attributeField(write.getKey());
      arguments[i++] = RedisSessionStore.utf8(field);
      arguments[i++] = values.seal(field, write.getValue());
    }
    for (String name : removes()) {
      arguments[i++] = RedisSessionStore.utf8(SessionKeys.attributeField(name));
    }
    return arguments;
  }

  /** The principal as save.lua reads it: '' unchanged, '-' none, '=' followed by the name. */
  private static byte[] principalArgument(PrincipalChange change,
      ValueProtection.SessionValues values) {
    if (change instanceof PrincipalChange.SetTo set) {
      byte[] name = values.seal(SessionKeys.PRINCIPAL, RedisSessionStore.utf8(set.name()));
      byte[] argument = new byte[name.length + 1];
      argument[0] = '=';
      System.arraycopy(name, 0, argument, 1, name.length);
      return argument;
    }
    return change instanceof PrincipalChange.Removed ? PRINCIPAL_REMOVED : EMPTY;
  }

  /**
   * {@code value} in ASCII decimal, as {@link Long#toString(long)} writes it, without the string:
   * every number the scripts read (the find script's cached version too).
   */
  static byte[] decimal(long value) {
    if (value == Long.MIN_VALUE) {
      return RedisSessionStore.utf8(Long.toString(value));
    }
    long rest = Math.abs(value);
    int digits = 1;
    for (long v = rest; v >= 10; v /= 10) {
      digits++;
    }
    int length = value < 0 ? digits + 1 : digits;
    byte[] bytes = new byte[length];
    for (int i = length - 1; i >= length - digits; i--) {
      bytes[i] = (byte) ('0' + rest % 10);
      rest /= 10;
    }
    if (value < 0) {
      bytes[0] = '-';
    }
    return bytes;
  }
}
