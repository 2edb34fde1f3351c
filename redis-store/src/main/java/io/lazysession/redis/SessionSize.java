package io.lazysession.redis;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What one session costs Redis, as its hash holds it at the moment of measuring ({@link
 * LazyRedisSessionRepository#measure}). Immutable.
 *
 * <p>Stored bytes count what Redis keeps as strings: the key, and each field's name and value.
 * {@link #memoryUsage()} is Redis's own figure for the key (allocator overhead included). The pack
 * is compressed as one unit, so what one of its members costs is not a figure Redis holds: each
 * member is given a share of the pack's stored bytes in proportion to the bytes it takes in the
 * uncompressed pack (the shares add up to the pack exactly).
 *
 * @param sessionId the session's id
 * @param keyBytes bytes of the key's name
 * @param metadataBytes bytes of the metadata fields ({@code #}, and {@code #p} when the session has
 *     a principal), names and values
 * @param packBytes bytes of the pack's value as stored (whole, or its chunks together); 0 without one
 * @param packFields fields the pack is stored in: 0 (none), 1 (whole, {@code #s}) or its chunks
 * @param storedBytes the key plus every field's name and value: the session as stored
 * @param memoryUsage {@code MEMORY USAGE} of the session's key, when asked for; else null. Exact
 *     for a compact hash (listpack); for a larger one Redis extrapolates from 5 sampled fields
 * @param attributes every attribute the hash holds, own fields first, then the pack's members, in
 *     stored order
 */
public record SessionSize(String sessionId, int keyBytes, int metadataBytes, int packBytes,
    int packFields, long storedBytes, @Nullable Long memoryUsage, List<AttributeSize> attributes) {

  public SessionSize {
    Objects.requireNonNull(sessionId, "sessionId must not be null");
    attributes = List.copyOf(attributes);
  }

  /** Field-name prefix under which Spring Session Data Redis stores an attribute. */
  public static final String SSDR_ATTRIBUTE_PREFIX = "sessionAttr:";

  /**
   * What the attributes would take as Spring Session Data Redis stores them by default: a field
   * {@code sessionAttr:<name>} each, holding the value in JDK serialization, uncompressed. -1 when
   * some value cannot be written that way (not {@code Serializable}, or not decodable here).
   */
  public long jdkStoredBytes() {
    long sum = 0;
    for (AttributeSize attribute : attributes) {
      if (attribute.jdkBytes() < 0) {
        return -1;
      }
      sum += SSDR_ATTRIBUTE_PREFIX.length() + attribute.nameBytes() + attribute.jdkBytes();
    }
    return sum;
  }

  /** The attributes' share of {@link #storedBytes()}: own fields (names and values) and the pack. */
  public long attributeStoredBytes() {
    long sum = 0;
    for (AttributeSize attribute : attributes) {
      sum += attribute.storedBytes();
    }
    return sum;
  }

  /** The attribute named {@code name}, or null when the hash holds none. */
  public @Nullable AttributeSize attribute(String name) {
    for (AttributeSize attribute : attributes) {
      if (attribute.name().equals(name)) {
        return attribute;
      }
    }
    return null;
  }

  /** Where an attribute's value lives in the session hash. */
  public enum Place {
    /** In the pack: field {@code #s}, or its chunks (pack.lua). */
    PACK,
    /** In a field of its own, named after the attribute. */
    OWN_FIELD
  }

  /**
   * One attribute.
   *
   * @param name the attribute's name
   * @param place where its value lives
   * @param nameBytes bytes of its name (UTF-8)
   * @param encodedBytes bytes of its codec payload, before any compression; -1 when this node
 *     cannot read the envelope (a dictionary it lacks, corrupt bytes)
   * @param envelopeBytes bytes of its envelope: the field's value for an own field ({@code HSTRLEN}),
   *     its entry's value in the uncompressed pack for a pack member
   * @param storedBytes what it costs in the hash: an own field's name and value; a pack member's
   *     share of the pack's stored bytes (field names included)
   * @param packShare a pack member's share of the pack, 0 to 1; 0 for an own field
   * @param jdkBytes its value in JDK serialization, uncompressed; -1 when it cannot be written so
   *     or not decoded on this node
   * @param type the value's class name; null when this node cannot decode it
   * @param inflated whether the request's session (the one measured) decoded it
   */
  public record AttributeSize(String name, Place place, int nameBytes, int encodedBytes,
      int envelopeBytes, long storedBytes, double packShare, int jdkBytes,
      @Nullable String type, boolean inflated) {
    public AttributeSize {
      Objects.requireNonNull(name, "name must not be null");
      Objects.requireNonNull(place, "place must not be null");
    }
  }
}
