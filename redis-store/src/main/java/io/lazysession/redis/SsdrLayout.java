package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.envelope.EnvelopeHeader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.session.FindByIndexNameSessionRepository;

/**
 * Spring Session Data Redis 4.x's Redis layout, as its {@code RedisSessionRepository} and
 * {@code RedisIndexedSessionRepository} write it with their default serializers (checked against
 * the 4.1 jar by {@code SpringSessionDataRedisMigrationIT}). Immutable, thread-safe.
 *
 * <ul>
 *   <li>{@code <ns>:sessions:<id>}: a hash; field names are plain strings, every value is
 *       JDK-serialized, metadata included: {@code creationTime} and {@code lastAccessedTime} are
 *       {@code Long} epoch milliseconds, {@code maxInactiveInterval} an {@code Integer} of seconds,
 *       {@code sessionAttr:<name>} the attribute value;
 *   <li>indexed repository only: {@code <ns>:sessions:expires:<id>} (a string whose TTL drives
 *       SSDR's expiry events), the member {@code expires:<id>} of the set
 *       {@code <ns>:expirations:<minute>} (the expiry time rounded up to the next minute), or the
 *       member {@code <id>} of the sorted set {@code <ns>:sessions:expirations} when the application
 *       chose {@code SortedSetRedisSessionExpirationStore}, and the member {@code <id>} of the
 *       principal index set {@code <ns>:index:<PRINCIPAL_NAME_INDEX_NAME>:<name>}. Set members are
 *       JDK-serialized strings too.
 * </ul>
 *
 * <p>Metadata is read through an {@link ObjectInputFilter} that admits {@code Long} and
 * {@code Integer} only: a hostile hash can make the session unreadable, never instantiate a class.
 */
final class SsdrLayout {
  static final String CREATION_TIME = "creationTime";
  static final String LAST_ACCESSED_TIME = "lastAccessedTime";
  static final String MAX_INACTIVE_INTERVAL = "maxInactiveInterval";
  static final String ATTRIBUTE_PREFIX = "sessionAttr:";

  /** Numbers and strings only, tiny, flat: what SSDR's metadata and set members are. */
  private static final ObjectInputFilter METADATA_FILTER = ObjectInputFilter.Config.createFilter(
      "java.lang.Long;java.lang.Integer;java.lang.Number;maxdepth=2;maxrefs=8;maxbytes=512;!*");

  private final String prefix;

  SsdrLayout(SpringSessionDataRedis source) {
    this.prefix = source.getNamespace() + ":";
  }

  /** {@code <ns>:sessions:<id>}. */
  byte[] session(String id) {
    return utf8(prefix + "sessions:" + id);
  }

  /** {@code <ns>:sessions:expires:<id>} (indexed repository). */
  byte[] expires(String id) {
    return utf8(prefix + "sessions:expires:" + id);
  }

  /** {@code <ns>:expirations:<minute>}: the minute set the indexed repository files a session in. */
  byte[] minuteExpirations(long expiresAtMillis) {
    long minute = Instant.ofEpochMilli(expiresAtMillis).plus(1, ChronoUnit.MINUTES)
        .truncatedTo(ChronoUnit.MINUTES).toEpochMilli();
    return utf8(prefix + "expirations:" + minute);
  }

  /** The member of a minute set for {@code id}. */
  static byte[] minuteExpirationsMember(String id) {
    return jdkString("expires:" + id);
  }

  /** {@code <ns>:sessions:expirations}: the sorted-set expiration store's key. */
  byte[] sortedExpirations() {
    return utf8(prefix + "sessions:expirations");
  }

  /** {@code <ns>:index:<PRINCIPAL_NAME_INDEX_NAME>:<name>}. */
  byte[] principalIndex(String principalName) {
    return utf8(prefix + "index:" + FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME + ":"
        + principalName);
  }

  /** A SCAN pattern for the session hashes (it also matches the indexed repository's other keys). */
  String sessionPattern() {
    return (prefix + "sessions:").replaceAll("([*?\\[\\]\\\\])", "\\\\$1") + "*";
  }

  /**
   * Parses a session hash (HGETALL); null when it is missing, or its metadata is missing or not the
   * JDK-serialized numbers SSDR's default serializer writes (a custom serializer was configured).
   */
  static @Nullable SsdrSession read(Map<byte[], byte[]> hash) {
    Long creation = null;
    Long lastAccess = null;
    Long maxInactive = null;
    Map<String, byte[]> attributes = new LinkedHashMap<>();
    for (Map.Entry<byte[], byte[]> field : hash.entrySet()) {
      String name = new String(field.getKey(), UTF_8);
      byte[] value = field.getValue();
      if (value == null || value.length == 0) {
        continue; // SSDR removes an attribute by writing it as null: an empty value
      }
      if (name.startsWith(ATTRIBUTE_PREFIX)) {
        attributes.put(name.substring(ATTRIBUTE_PREFIX.length()), jdkEnvelope(value));
        continue;
      }
      switch (name) {
        case CREATION_TIME -> creation = number(value);
        case LAST_ACCESSED_TIME -> lastAccess = number(value);
        case MAX_INACTIVE_INTERVAL -> maxInactive = number(value);
        default -> { } // not SSDR's: ignored
      }
    }
    if (creation == null || lastAccess == null || maxInactive == null) {
      return null;
    }
    List<byte[]> fields = new ArrayList<>(hash.size());
    return new SsdrSession(creation, lastAccess, maxInactive, attributes, fields,
        digest(hash, fields));
  }

  /**
   * The digest claim-ssdr.lua computes of a hash to tell whether it changed: the SHA-1 (hex) of, for
   * each field in the map's order (each name is added to {@code fields}, in that order),
   * {@code <length of name>:<name><length of value>:<value>}, the lengths in decimal. The lengths in
   * front keep two different hashes from running together into the same bytes.
   */
  static byte[] digest(Map<byte[], byte[]> hash, List<byte[]> fields) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    for (Map.Entry<byte[], byte[]> entry : hash.entrySet()) {
      byte[] field = entry.getKey();
      byte[] value = entry.getValue() == null ? new byte[0] : entry.getValue();
      fields.add(field);
      bytes.writeBytes(utf8(field.length + ":"));
      bytes.writeBytes(field);
      bytes.writeBytes(utf8(value.length + ":"));
      bytes.writeBytes(value);
    }
    return utf8(RedisScript.sha1Hex(bytes.toByteArray()));
  }

  /**
   * JDK serialization bytes as an envelope of the JDK codec, uncompressed: the 3-byte header in
   * front of the bytes, which stay exactly as SSDR wrote them (the JDK codec reads the same stream).
   */
  static byte[] jdkEnvelope(byte[] jdkSerialized) {
    return EnvelopeHeader.raw(CodecKind.JDK, jdkSerialized.length)
        .wrap(jdkSerialized, jdkSerialized.length);
  }

  /** A Long or Integer as JDK serialization wrote it; null for anything else. */
  static @Nullable Long number(byte[] jdkSerialized) {
    return read(jdkSerialized) instanceof Number n ? n.longValue() : null;
  }

  /** A String as JDK serialization wrote it (SSDR's set members); null for anything else. */
  static @Nullable String string(byte[] jdkSerialized) {
    return read(jdkSerialized) instanceof String s ? s : null;
  }

  /** A String as the JDK serializer of SSDR's RedisTemplate writes set members. */
  static byte[] jdkString(String value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length() + 16);
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serialize a String in memory", e);
    }
    return bytes.toByteArray();
  }

  private static @Nullable Object read(byte[] jdkSerialized) {
    if (jdkSerialized.length < 4 || (jdkSerialized[0] & 0xFF) != 0xAC
        || (jdkSerialized[1] & 0xFF) != 0xED) {
      return null;
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(jdkSerialized))) {
      in.setObjectInputFilter(METADATA_FILTER);
      return in.readObject();
    } catch (IOException | ClassNotFoundException | RuntimeException e) {
      return null;
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(UTF_8);
  }
}
