package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.SerializationException;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Counts what a session takes in Redis: from its hash as stored ({@link #measure}, for {@link
 * SessionSize}), and from a save about to be sent ({@link #afterSave}, for budgets and metrics).
 * Both count the same way: the key, then each field's name and value; a pack member's share of the
 * pack is in proportion to its entry in the uncompressed pack. Stateless and thread-safe.
 */
final class SessionSizes {
  private SessionSizes() {}

  /** What a save leaves: the session's stored size and each attribute's (name to bytes). */
  record Saved(long storedBytes, Map<String, Long> attributes) {}

  /**
   * The session {@code hash} holds (field name to value, as HGETALL answers), or null when it is
   * empty. Values are decoded with {@code serializer} to learn their type and their size in JDK
   * serialization; one that cannot be decoded here is reported with type null and JDK size -1.
   * With encryption keys ({@code protection}), stored sizes are those of the sealed bytes Redis
   * holds, and values are opened to be decoded; one that cannot be opened here counts as stored.
   */
  static @Nullable SessionSize measure(String id, byte[] key, Map<byte[], byte[]> hash,
      @Nullable Long memoryUsage, AttributeSerializer serializer, List<AttributeInfo> request,
      ValueProtection protection) {
    if (hash.isEmpty()) {
      return null;
    }
    Set<String> inflated = new HashSet<>();
    for (AttributeInfo info : request) {
      if (info.inflated()) {
        inflated.add(info.name());
      }
    }
    AttributeSerializer jdk = serializer.toBuilder().codec(CodecKind.JDK)
        .compression(Compression.none()).build();
    int metadataBytes = 0;
    long storedBytes = key.length;
    int packBytes = 0;
    int packNameBytes = 0;
    int packFields = 0;
    PackFields pack = new PackFields();
    Map<String, byte[]> own = new LinkedHashMap<>();
    for (Map.Entry<byte[], byte[]> field : hash.entrySet()) {
      byte[] name = field.getKey();
      byte[] value = field.getValue();
      storedBytes += name.length + value.length;
      if (pack.offer(name, value)) {
        packBytes += value.length;
        packNameBytes += name.length;
        packFields++;
        continue;
      }
      String attribute = PackFields.reserved(name) ? null
          : SessionKeys.attributeName(new String(name, UTF_8));
      if (attribute == null) {
        metadataBytes += name.length + value.length;
      } else {
        own.put(attribute, value);
      }
    }
    List<SessionSize.AttributeSize> attributes = new ArrayList<>();
    ValueProtection.SessionValues values = protection.of(id);
    own.forEach((name, stored) -> {
      byte[] envelope = values.attribute(name, stored);
      attributes.add(attribute(name, SessionSize.Place.OWN_FIELD,
          envelope == null ? stored : envelope,
          utf8Length(SessionKeys.attributeField(name)) + stored.length, 0, serializer, jdk,
          inflated));
    });
    byte[] sealed = pack.pack();
    byte[] packed = sealed == null || !protection.enabled() ? sealed
        : protection.open(id, StoredPack.FIELD, sealed);
    if (packed != null) {
      Map<String, byte[]> members = new LinkedHashMap<>(unpack(serializer, packed));
      members.keySet().removeAll(own.keySet()); // an own field shadows its pack entry
      long[] shares = shares(members, packBytes + packNameBytes);
      long total = 0;
      for (long share : shares) {
        total += share;
      }
      int i = 0;
      for (Map.Entry<String, byte[]> member : members.entrySet()) {
        long share = shares[i++];
        attributes.add(attribute(member.getKey(), SessionSize.Place.PACK, member.getValue(), share,
            total == 0 ? 0 : (double) share / total, serializer, jdk, inflated));
      }
    }
    return new SessionSize(id, key.length, metadataBytes, packBytes, packFields, storedBytes,
        memoryUsage, attributes);
  }

  private static Map<String, byte[]> unpack(AttributeSerializer serializer, byte[] pack) {
    try {
      return serializer.unpack(pack);
    } catch (SerializationException e) {
      return Map.of(); // its bytes still count for the session; its members are unknown here
    }
  }

  private static SessionSize.AttributeSize attribute(String name, SessionSize.Place place,
      byte[] envelope, long storedBytes, double share, AttributeSerializer serializer,
      AttributeSerializer jdk, Set<String> inflated) {
    int encoded = -1;
    String type = null;
    int jdkBytes = -1;
    try {
      encoded = serializer.payload(envelope).length;
      Object value = serializer.deserialize(envelope);
      type = value.getClass().getName();
      jdkBytes = jdk.encodePayload(value).length;
    } catch (SerializationException | IllegalArgumentException e) {
      // Not decodable here, or not writable with the JDK codec: reported as unknown.
    }
    return new SessionSize.AttributeSize(name, place, utf8Length(name), encoded, envelope.length,
        storedBytes, share, jdkBytes, type, inflated.contains(name));
  }

  /**
   * {@code total} split over {@code members} in proportion to their entries' bytes in the
   * uncompressed pack, by largest remainder, so that the shares add up to {@code total} exactly.
   */
  static long[] shares(Map<String, byte[]> members, long total) {
    long[] shares = new long[members.size()];
    if (shares.length == 0) {
      return shares;
    }
    long[] weights = new long[shares.length];
    long sum = 0;
    int i = 0;
    for (Map.Entry<String, byte[]> member : members.entrySet()) {
      weights[i] = AttributeSerializer.packEntryBytes(member.getKey(), member.getValue());
      sum += weights[i++];
    }
    long given = 0;
    double[] remainders = new double[shares.length];
    for (i = 0; i < shares.length; i++) {
      double exact = (double) total * weights[i] / sum;
      shares[i] = (long) Math.floor(exact);
      remainders[i] = exact - shares[i];
      given += shares[i];
    }
    for (long left = total - given; left > 0; left--) {
      int largest = 0;
      for (i = 1; i < shares.length; i++) {
        if (remainders[i] > remainders[largest]) {
          largest = i;
        }
      }
      shares[largest]++;
      remainders[largest] = -1;
    }
    return shares;
  }

  /** The session as stored before {@code request}: null for a session Redis does not hold yet. */
  static @Nullable Saved beforeSave(LazySession session, int keyBytes) {
    if (session.isNew()) {
      return null;
    }
    return sizes(session, keyBytes, session.storedPrincipal(), session.version(),
        ownFields(session), session.storedPack());
  }

  /** The session as {@code request} leaves it, as far as this node knows. */
  static Saved afterSave(LazySession session, SaveRequest request, int keyBytes) {
    Map<String, byte[]> own = request.mode().creates()
        ? new LinkedHashMap<>() : ownFields(session);
    own.keySet().removeAll(request.removes());
    own.putAll(request.writes());
    return sizes(session, keyBytes, request.principal().applyTo(session.storedPrincipal()),
        request.nextVersion(session.version()), own, request.packAfter(session.storedPack()));
  }

  /** The attributes the session loaded from fields of their own (not from the pack). */
  private static Map<String, byte[]> ownFields(LazySession session) {
    Map<String, byte[]> own = new LinkedHashMap<>(session.storedAttributes());
    own.keySet().removeAll(session.storedPack().members().keySet());
    return own;
  }

  private static Saved sizes(LazySession session, int keyBytes, @Nullable String principal,
      long version, Map<String, byte[]> own, StoredPack pack) {
    long stored = keyBytes + 1 + metadataValueBytes(session, version);
    if (principal != null) {
      stored += 2 + utf8Length(principal);
    }
    Map<String, Long> attributes = new LinkedHashMap<>();
    for (Map.Entry<String, byte[]> field : own.entrySet()) {
      long bytes = utf8Length(SessionKeys.attributeField(field.getKey()))
          + (long) field.getValue().length;
      attributes.put(field.getKey(), bytes);
      stored += bytes;
    }
    byte[] packBytes = pack.bytes();
    if (packBytes != null && packBytes.length > 0) {
      long packStored = StoredPack.FIELD.length() + (long) packBytes.length;
      stored += packStored;
      Map<String, byte[]> members = new LinkedHashMap<>(pack.members());
      members.keySet().removeAll(own.keySet());
      long[] shares = shares(members, packStored);
      int i = 0;
      for (String name : members.keySet()) {
        attributes.put(name, shares[i++]);
      }
    }
    return new Saved(stored, java.util.Collections.unmodifiableMap(attributes));
  }

  /** Bytes of the metadata value {@code c:a:m:v} (save.lua writes it so). */
  private static int metadataValueBytes(LazySession session, long version) {
    long maxInactive = session.getMaxInactiveInterval().isNegative() ? -1
        : session.getMaxInactiveInterval().getSeconds();
    return 3 + SaveRequest.decimal(session.getCreationTime().toEpochMilli()).length
        + SaveRequest.decimal(session.getLastAccessedTime().toEpochMilli()).length
        + SaveRequest.decimal(maxInactive).length + SaveRequest.decimal(version).length;
  }

  static int utf8Length(String text) {
    int bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes++;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
