package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import org.jspecify.annotations.Nullable;

/**
 * Key and field names of one namespace; see {@code docs/redis-layout.md}. Immutable.
 *
 * <p>Metadata fields start with {@code #}. An attribute whose name starts with {@code #} is stored
 * under its name with one more {@code #} in front, so attribute and metadata fields never collide and
 * every other attribute is stored under its own name.
 */
final class SessionKeys {
  static final String CREATION = "#c";
  static final String LAST_ACCESS = "#a";
  static final String MAX_INACTIVE = "#m";
  static final String VERSION = "#v";
  static final String PRINCIPAL = "#p";
  /** Marker in a find answer: the caller's cached attribute fields are current. */
  static final String UNCHANGED = "#=";
  private static final int MAX_ID_LENGTH = 256;

  private final String namespace;
  private final byte[] expirations;

  SessionKeys(String namespace) {
    this.namespace = namespace;
    this.expirations = (namespace + ":expirations").getBytes(UTF_8);
  }

  String namespace() {
    return namespace;
  }

  /** {@code <namespace>:s:{<id>}}: the hash tag keeps every key of one session in one Cluster slot. */
  byte[] session(String id) {
    return (namespace + ":s:{" + id + "}").getBytes(UTF_8);
  }

  /** {@code <namespace>:principal:<name>}: a set of session ids. */
  byte[] principal(String principalName) {
    return (namespace + ":principal:" + principalName).getBytes(UTF_8);
  }

  /** {@code <namespace>:expirations}: a sorted set of session id by the time it is due to expire. */
  byte[] expirations() {
    return expirations.clone();
  }

  /** Ids from cookies are untrusted: an empty or oversized one is never sent to Redis. */
  static boolean isPlausibleId(@Nullable String id) {
    return id != null && !id.isEmpty() && id.length() <= MAX_ID_LENGTH;
  }

  static String attributeField(String attributeName) {
    return attributeName.startsWith("#") ? "#" + attributeName : attributeName;
  }

  /** The attribute name stored in this field, or null when it is a metadata field. */
  static @Nullable String attributeName(String field) {
    if (field.startsWith("##")) {
      return field.substring(1);
    }
    return field.startsWith("#") ? null : field;
  }
}
