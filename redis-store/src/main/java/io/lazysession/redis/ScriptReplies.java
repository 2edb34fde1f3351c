package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads the answers of the scripts and commands of {@link RedisSessionStore} into typed values: the
 * one place that knows their layout (see the comment at the top of each script). Stateless.
 */
final class ScriptReplies {
  private ScriptReplies() {}

  /** What the expire script found; see expire.lua. */
  enum ExpireOutcome {
    /** Expired: deleted. */
    EXPIRED,
    /** Missing or incomplete: deleted if present. */
    GONE,
    /** Live again (touched since it was scheduled): nothing deleted. */
    LIVE,
    /** No longer expires: nothing deleted. */
    NEVER,
    /** In a later Redis format ({@link RedisFormat}): nothing deleted, left to the nodes that read it. */
    LATER
  }

  /**
   * The expire script's answer.
   *
   * @param deleted what the script says of the session: for {@code EXPIRED} and {@code GONE} the
   *     deleted session's metadata (for {@code EXPIRED} asked with {@code 'all'}, its attributes
   *     and pack too); for {@code LIVE} its last access, timeout and creation; nothing for
   *     {@code NEVER}
   */
  record ExpireReply(ExpireOutcome outcome, DeletedHash deleted) {
    ExpireReply(ExpireOutcome outcome, SessionMetadata metadata) {
      this(outcome, DeletedHash.of(metadata));
    }

    SessionMetadata metadata() {
      return deleted.metadata();
    }
  }

  /**
   * The delete script's answer with {@code 'all'}.
   *
   * @param attributes attribute name to envelope bytes of the fields of their own, as the hash held
   *     them when it was deleted
   * @param pack the pack field it held, null when none (not read: {@link AttributePacking})
   */
  record DeletedHash(SessionMetadata metadata, Map<String, byte[]> attributes,
      byte @Nullable [] pack) {
    /** The metadata alone (the script was not asked for the fields). */
    static DeletedHash of(SessionMetadata metadata) {
      return new DeletedHash(metadata, Map.of(), null);
    }
  }

  /** {c, a, m, p}, then the hash's fields and values: metadata and attributes. */
  static DeletedHash deletedHash(List<byte @Nullable []> answer) {
    return deletedHash(answer, 0, ValueProtection.CLEAR);
  }

  /** As {@link #deletedHash(List)}, values opened by {@code values}. */
  static DeletedHash deletedHash(List<byte @Nullable []> answer,
      ValueProtection.SessionValues values) {
    return deletedHash(answer, 0, values);
  }

  /** As {@link #deletedHash(List)}, for {c, a, m, p} from {@code from} on. */
  static DeletedHash deletedHash(List<byte @Nullable []> answer, int from,
      ValueProtection.SessionValues values) {
    Map<String, byte[]> attributes = new LinkedHashMap<>();
    PackFields pack = new PackFields();
    for (int i = from + 4; i + 1 < answer.size(); i += 2) {
      byte[] name = answer.get(i);
      byte[] value = answer.get(i + 1);
      if (name == null || value == null || pack.offer(name, value) || PackFields.reserved(name)) {
        continue;
      }
      String attribute = SessionKeys.attributeName(new String(name, UTF_8));
      byte[] opened = attribute == null ? null : values.attribute(attribute, value);
      if (opened != null) {
        attributes.put(attribute, opened);
      }
    }
    return new DeletedHash(metadata(answer, from, values), attributes, pack.pack());
  }

  /** save.lua's answer: the version, or -2 and the pack now held (a conflict), or -3 and an id. */
  static SaveResult save(@Nullable List<Object> answer) {
    if (answer == null || answer.isEmpty() || !(answer.get(0) instanceof Long version)) {
      return new SaveResult(0, -1, null);
    }
    byte[] pack = answer.size() > 1 && answer.get(1) instanceof byte[] b ? b : null;
    return new SaveResult(version, -1, null, pack);
  }

  /**
   * Parses a find answer (alternating field names and values); null when a metadata field is missing
   * or unreadable; {@link LaterFormat} when the hash names a Redis format this version does not
   * read. An "unchanged" answer carries no creation time nor attributes: they are taken from
   * {@code cached}, the copy whose version the caller sent. Field names are told apart by their
   * bytes: only attribute names become strings.
   */
  static @Nullable StoredSession find(List<byte @Nullable []> fields,
      NearCache.@Nullable Snapshot cached) {
    return find(fields, cached, ValueProtection.CLEAR);
  }

  /**
   * As {@link #find(List, NearCache.Snapshot)}, attribute values and the principal opened by
   * {@code values} (the pack is opened when it is read: {@link AttributePacking#read}); a value
   * {@code values} rejects is left out.
   */
  static @Nullable StoredSession find(List<byte @Nullable []> fields,
      NearCache.@Nullable Snapshot cached, ValueProtection.SessionValues values) {
    long creation = MISSING;
    long lastAccess = MISSING;
    long maxInactive = MISSING;
    long version = MISSING;
    long renewed = 0;
    String principal = null;
    PackFields pack = new PackFields();
    boolean unchanged = false;
    Map<String, byte[]> attributes = new LinkedHashMap<>(capacity(fields.size() / 2));
    for (int i = 0; i + 1 < fields.size(); i += 2) {
      byte[] name = fields.get(i);
      // A later Redis format first, before any value is opened (RedisFormat).
      if (name != null && name.length == 2 && name[0] == '#' && name[1] == 'f'
          && !RedisFormat.readable(fields.get(i + 1))) {
        byte[] format = fields.get(i + 1);
        throw new LaterFormat(format == null ? "?" : new String(format, UTF_8));
      }
    }
    for (int i = 0; i + 1 < fields.size(); i += 2) {
      byte[] name = fields.get(i);
      byte[] value = fields.get(i + 1);
      if (name == null || value == null) {
        continue;
      }
      if (PackFields.reserved(name)) {
        pack.offer(name, value); // a chunk of the pack, or a name of a later version: ignored
        continue;
      }
      if (name.length == 0 || name[0] != '#') {
        String attribute = new String(name, UTF_8);
        byte[] opened = values.attribute(attribute, value);
        if (opened != null) {
          attributes.put(attribute, opened);
        }
        continue;
      }
      if (name.length > 1 && name[1] == '#') {
        String attribute = new String(name, 1, name.length - 1, UTF_8); // escaped '#' name
        byte[] opened = values.attribute(attribute, value);
        if (opened != null) {
          attributes.put(attribute, opened);
        }
        continue;
      }
      if (name.length == 1) {
        long[] numbers = metadataField(value);
        if (numbers != null) {
          creation = numbers[0];
          lastAccess = numbers[1];
          maxInactive = numbers[2];
          version = numbers[3];
        }
        continue;
      }
      if (name.length != 2) {
        pack.offer(name, value); // a chunk of the pack; any other: written by a later version
        continue;
      }
      switch (name[1]) {
        case 'c' -> creation = decimal(value);
        case 'a' -> lastAccess = decimal(value);
        case 'm' -> maxInactive = decimal(value);
        case 'v' -> version = decimal(value);
        case 'r' -> renewed = decimal(value);
        case 'p' -> principal = values.principal(value);
        case 's' -> pack.offer(name, value);
        case '=' -> unchanged = true;
        default -> { } // metadata written by a later version ('#f' of format 1 too): ignored
      }
    }
    if (unchanged) {
      if (cached == null || version == MISSING || cached.version() != version) {
        return null;
      }
      creation = cached.creation();
      attributes = cached.attributes();
      renewed = cached.renewed();
    }
    StoredPack stored =
        unchanged && cached != null ? cached.pack() : StoredPack.unread(pack.pack());
    if (creation == MISSING || lastAccess == MISSING || maxInactive == MISSING
        || version == MISSING) {
      return null;
    }
    return new StoredSession(creation, lastAccess, maxInactive, version, principal, unchanged,
        attributes, stored, renewed);
  }

  /**
   * A find answer names a Redis format this version does not read (its field {@link
   * RedisFormat#FIELD}): the session reads as missing ({@link RedisFormat#unreadable}). Thrown only
   * then, so it carries no stack trace.
   */
  static final class LaterFormat extends RuntimeException {
    private static final long serialVersionUID = 1L;

    LaterFormat(String format) {
      super(format, null, false, false);
    }

    /** The format the hash names, as stored. */
    String format() {
      return String.valueOf(getMessage());
    }
  }

  /** What claim-ssdr.lua did with a Spring Session Data Redis hash. */
  enum SsdrClaimOutcome {
    /** The hash is missing: nothing deleted. */
    GONE,
    /** The hash was as loaded: moved to the claim key. */
    TAKEN,
    /** The hash changed since it was loaded: kept. */
    CHANGED,
    /** The hash changed since it was loaded, and was moved all the same (forced). */
    TAKEN_CHANGED,
    /** Another call claimed it and the take-over is not done: the claim key holds the session. */
    TAKEN_BEFORE
  }

  /**
   * claim-ssdr.lua's answer.
   *
   * @param hash every field and value of the session, for {@code CHANGED}, {@code TAKEN_CHANGED}
   *     and {@code TAKEN_BEFORE}; null otherwise
   */
  record SsdrClaim(SsdrClaimOutcome outcome, @Nullable Map<byte[], byte[]> hash) {}

  static SsdrClaim ssdrClaim(@Nullable List<Object> answer) {
    if (answer == null || answer.isEmpty() || !(answer.get(0) instanceof Long code)
        || code < 0 || code > 4) {
      throw new IllegalStateException("claim-ssdr.lua answered " + answer);
    }
    SsdrClaimOutcome outcome = SsdrClaimOutcome.values()[code.intValue()];
    if (outcome == SsdrClaimOutcome.GONE || outcome == SsdrClaimOutcome.TAKEN) {
      return new SsdrClaim(outcome, null);
    }
    return new SsdrClaim(outcome, hashFields(answer.get(1)));
  }

  /** find-ssdr.lua's fallback answer, {@code #ssdr} and Spring Session Data Redis's hash; else null. */
  static @Nullable Map<byte[], byte[]> ssdrHash(List<Object> answer) {
    if (answer.size() != 2 || !(answer.get(0) instanceof byte[] marker)
        || !"#ssdr".equals(new String(marker, UTF_8))) {
      return null;
    }
    return hashFields(answer.get(1));
  }

  /** An HGETALL-shaped list (name, value, name, value...) as a map; null when it is no list. */
  static @Nullable Map<byte[], byte[]> hashFields(@Nullable Object answer) {
    if (!(answer instanceof List<?> hash)) {
      return null;
    }
    Map<byte[], byte[]> fields = new LinkedHashMap<>();
    for (int i = 0; i + 1 < hash.size(); i += 2) {
      if (hash.get(i) instanceof byte[] name && hash.get(i + 1) instanceof byte[] value) {
        fields.put(name, value);
      }
    }
    return fields;
  }

  /**
   * The bare "unchanged" answer of find.lua (the integer 1) for {@code cached}, whose metadata it
   * confirms; null when there is no such copy (an answer to a question not asked: treated as missing).
   */
  static @Nullable StoredSession unchanged(NearCache.@Nullable Snapshot cached) {
    NearCache.Metadata metadata = cached == null ? null : cached.metadata();
    if (metadata == null) {
      return null;
    }
    return new StoredSession(cached.creation(), metadata.lastAccess(),
        metadata.maxInactiveSeconds(), cached.version(), metadata.principal(), true,
        cached.attributes(), cached.pack(), cached.renewed());
  }

  /** Marks a missing or unreadable number. */
  private static final long MISSING = Long.MIN_VALUE;

  /** A LinkedHashMap capacity that holds {@code entries} without resizing. */
  private static int capacity(int entries) {
    return (int) (entries / 0.75f) + 1;
  }

  /**
   * The decimal number in {@code bytes}, read as {@link Long#parseLong} reads it but without making a
   * string for the common case (an optional '-', up to 18 digits); {@link #MISSING} if not a number.
   */
  private static long decimal(byte[] bytes) {
    return decimal(bytes, 0, bytes.length);
  }

  /** As {@link #decimal(byte[])}, for the bytes of {@code bytes} from {@code from} to {@code to}. */
  private static long decimal(byte[] bytes, int from, int to) {
    int length = to - from;
    if (length > 0 && length <= 18 && bytes[from] != '+') {
      boolean negative = bytes[from] == '-';
      int i = negative ? from + 1 : from;
      if (i == to) {
        return MISSING;
      }
      long result = 0;
      for (; i < to; i++) {
        int digit = bytes[i] - '0';
        if (digit < 0 || digit > 9) {
          return MISSING;
        }
        result = result * 10 + digit;
      }
      return negative ? -result : result;
    }
    // The scripts read only an optional '-' and digits ('+' is not a metadata number there either).
    Long parsed = length <= 0 || bytes[from] == '+' ? null
        : number(java.util.Arrays.copyOfRange(bytes, from, to));
    return parsed == null ? MISSING : parsed;
  }

  /** The field {@code #}, {@code creation:lastAccess:maxInactive:version}; null unless 4 numbers. */
  static long @Nullable [] metadataField(byte[] value) {
    long[] numbers = new long[4];
    int start = 0;
    for (int i = 0; i < 4; i++) {
      int end = start;
      while (end < value.length && value[end] != ':') {
        end++;
      }
      if ((end == value.length) != (i == 3)) {
        return null;
      }
      numbers[i] = decimal(value, start, end);
      if (numbers[i] == MISSING) {
        return null;
      }
      start = end + 1;
    }
    return numbers;
  }

  /** The metadata field and the principal ({@code HMGET # #p}); missing ones null. */
  static SessionMetadata storedMetadata(List<byte @Nullable []> values) {
    return storedMetadata(values, ValueProtection.CLEAR);
  }

  /** As {@link #storedMetadata(List)}, the principal opened by {@code opener}. */
  static SessionMetadata storedMetadata(List<byte @Nullable []> values,
      ValueProtection.SessionValues opener) {
    byte[] field = at(values, 0);
    long[] numbers = field == null ? null : metadataField(field);
    return new SessionMetadata(numbers == null ? null : numbers[0],
        numbers == null ? null : numbers[1], numbers == null ? null : numbers[2],
        opener.principal(at(values, 1)));
  }

  /** {creation, last access, max inactive, principal} from {@code from} on; missing ones null. */
  static SessionMetadata metadata(List<byte @Nullable []> values, int from) {
    return metadata(values, from, ValueProtection.CLEAR);
  }

  /** As {@link #metadata(List, int)}, the principal opened by {@code opener}. */
  static SessionMetadata metadata(List<byte @Nullable []> values, int from,
      ValueProtection.SessionValues opener) {
    return new SessionMetadata(number(at(values, from)), number(at(values, from + 1)),
        number(at(values, from + 2)), opener.principal(at(values, from + 3)));
  }

  /** The expire script's answer: the outcome first, then what it says about the session. */
  static ExpireReply expire(List<byte @Nullable []> answer) {
    return expire(answer, ValueProtection.CLEAR);
  }

  /** As {@link #expire(List)}, values opened by {@code values}. */
  static ExpireReply expire(List<byte @Nullable []> answer, ValueProtection.SessionValues values) {
    String outcome = answer.isEmpty() ? "gone" : text(answer.get(0));
    if ("never".equals(outcome)) {
      return new ExpireReply(ExpireOutcome.NEVER, SessionMetadata.NONE);
    }
    if ("later".equals(outcome)) {
      return new ExpireReply(ExpireOutcome.LATER, SessionMetadata.NONE);
    }
    if ("live".equals(outcome)) {
      return new ExpireReply(ExpireOutcome.LIVE, new SessionMetadata(number(at(answer, 3)),
          number(at(answer, 1)), number(at(answer, 2)), null));
    }
    return new ExpireReply("expired".equals(outcome) ? ExpireOutcome.EXPIRED : ExpireOutcome.GONE,
        deletedHash(answer, 1, values));
  }

  static @Nullable Long number(byte @Nullable [] bytes) {
    if (bytes == null) {
      return null;
    }
    try {
      return Long.parseLong(new String(bytes, UTF_8));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  static @Nullable String text(byte @Nullable [] bytes) {
    return bytes == null ? null : new String(bytes, UTF_8);
  }

  private static byte @Nullable [] at(List<byte @Nullable []> values, int index) {
    return index < values.size() ? values.get(index) : null;
  }

  /** A script's multi-bulk answer as byte arrays; nil elements (and any non-bulk ones) are null. */
  static List<byte @Nullable []> elements(List<Object> answer) {
    List<byte @Nullable []> elements = new ArrayList<>(answer.size());
    for (Object element : answer) {
      elements.add(element instanceof byte[] b ? b : null);
    }
    return elements;
  }
}
