package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A session hash as Redis returned it: metadata parsed, attribute envelopes as bytes. Immutable.
 *
 * @param attributes attribute name to envelope bytes, in field order
 */
record StoredSession(long creation, long lastAccess, long maxInactiveSeconds, long version,
    @Nullable String principal, boolean unchanged, Map<String, byte[]> attributes) {

  /** Parses alternating field names and values; null when a metadata field is missing or bad. */
  static @Nullable StoredSession parse(List<byte[]> fields) {
    return parse(fields, null);
  }

  /**
   * Parses a find answer. An "unchanged" answer carries no creation time nor attributes: they are
   * taken from {@code cached}, the copy whose version the caller sent.
   */
  static @Nullable StoredSession parse(List<byte[]> fields, NearCache.@Nullable Snapshot cached) {
    Long creation = null;
    Long lastAccess = null;
    Long maxInactive = null;
    Long version = null;
    String principal = null;
    boolean unchanged = false;
    Map<String, byte[]> attributes = new LinkedHashMap<>();
    for (int i = 0; i + 1 < fields.size(); i += 2) {
      byte[] nameBytes = fields.get(i);
      byte[] value = fields.get(i + 1);
      if (nameBytes == null || value == null) {
        continue;
      }
      String field = new String(nameBytes, UTF_8);
      String attribute = SessionKeys.attributeName(field);
      if (attribute != null) {
        attributes.put(attribute, value);
        continue;
      }
      switch (field) {
        case SessionKeys.CREATION -> creation = LazyRedisSessionRepository.number(value);
        case SessionKeys.LAST_ACCESS -> lastAccess = LazyRedisSessionRepository.number(value);
        case SessionKeys.MAX_INACTIVE -> maxInactive = LazyRedisSessionRepository.number(value);
        case SessionKeys.VERSION -> version = LazyRedisSessionRepository.number(value);
        case SessionKeys.PRINCIPAL -> principal = new String(value, UTF_8);
        case SessionKeys.UNCHANGED -> unchanged = true;
        default -> { } // metadata written by a later version: ignored
      }
    }
    if (unchanged) {
      if (cached == null || version == null || cached.version() != version) {
        return null;
      }
      creation = cached.creation();
      attributes = cached.attributes();
    }
    if (creation == null || lastAccess == null || maxInactive == null || version == null) {
      return null;
    }
    return new StoredSession(creation, lastAccess, maxInactive, version, principal, unchanged,
        attributes);
  }
}
