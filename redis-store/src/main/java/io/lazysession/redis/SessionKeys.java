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
  /** The metadata field: {@code creation:lastAccess:maxInactive:version}, ASCII decimal numbers. */
  static final String METADATA = "#";
  /** Labels of the metadata in find.lua's answer for a copy that lacks them (not hash fields). */
  static final String CREATION = "#c";
  static final String LAST_ACCESS = "#a";
  static final String MAX_INACTIVE = "#m";
  static final String VERSION = "#v";
  static final String PRINCIPAL = "#p";
  /** The hash field of when the session's id was issued by a move (renewal or change; save.lua). */
  static final String RENEWED = "#r";
  /** The fields of the alias a renewal leaves under the old id: the new id, the grace's end. */
  static final String ALIAS = "#>";
  static final String ALIAS_UNTIL = "#t";
  /** Marker in a find answer: the caller's cached attribute fields are current. */
  static final String UNCHANGED = "#=";
  private static final int MAX_ID_LENGTH = 256;

  private final String namespace;
  private final byte[] expirations;
  /** {@code <namespace>:s:{}, ASCII (a namespace is checked to be). */
  private final byte[] sessionPrefix;

  /** A namespace, checked: letters, digits and {@code -_.:} only (no spaces, no braces). */
  static String checkNamespace(String namespace) {
    java.util.Objects.requireNonNull(namespace, "namespace must not be null");
    if (!namespace.matches("[A-Za-z0-9_.:\\-]+")) {
      throw new IllegalArgumentException("namespace must be made of letters, digits and -_.: "
          + "(no spaces or braces), was '" + namespace + "'");
    }
    return namespace;
  }

  SessionKeys(String namespace) {
    this.namespace = namespace;
    this.expirations = (namespace + ":expirations").getBytes(UTF_8);
    this.sessionPrefix = (namespace + ":s:{").getBytes(UTF_8);
  }

  String namespace() {
    return namespace;
  }

  /** {@code <namespace>:s:{<id>}}: the hash tag keeps every key of one session in one Cluster slot. */
  byte[] session(String id) {
    // Every command of a request names it: an ASCII id (any id this library makes) is copied in
    // as it is, without a string in between.
    int length = id.length();
    byte[] key = new byte[sessionPrefix.length + length + 1];
    System.arraycopy(sessionPrefix, 0, key, 0, sessionPrefix.length);
    int at = sessionPrefix.length;
    for (int i = 0; i < length; i++) {
      char c = id.charAt(i);
      if (c >= 0x80) {
        return (namespace + ":s:{" + id + "}").getBytes(UTF_8);
      }
      key[at++] = (byte) c;
    }
    key[at] = '}';
    return key;
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

  /**
   * Refuses an attribute name that has no UTF-8 form (a lone UTF-16 surrogate): its field name would
   * be written as {@code ?} and collide with other such names.
   *
   * @throws IllegalArgumentException naming the attribute and where the surrogate is
   */
  static void requireStorableName(String attributeName) {
    int lone = loneSurrogate(attributeName, 0);
    if (lone >= 0) {
      StringBuilder escaped = new StringBuilder(attributeName.length() + 8);
      for (int i = 0; i < attributeName.length(); ) {
        int next = loneSurrogate(attributeName, i);
        int end = next < 0 ? attributeName.length() : next;
        escaped.append(attributeName, i, end);
        if (next >= 0) {
          escaped.append(String.format("\\u%04X", (int) attributeName.charAt(next)));
        }
        i = end + 1;
      }
      throw new IllegalArgumentException("attribute name '" + escaped + "' holds a lone UTF-16 "
          + "surrogate at index " + lone + " and cannot be stored in Redis (field names are "
          + "UTF-8); use a name made of whole characters");
    }
  }

  /** The index of the first unpaired surrogate at or after {@code from}, or -1. */
  private static int loneSurrogate(String text, int from) {
    for (int i = from; i < text.length(); ) {
      int codePoint = text.codePointAt(i);
      if (codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE) {
        return i;
      }
      i += Character.charCount(codePoint);
    }
    return -1;
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
