package io.lazysession.redis;

import io.lazysession.serializer.CorruptDataException;
import io.lazysession.serializer.SerializationException;
import java.io.InvalidClassException;
import java.util.Locale;

/**
 * What a session does when one of its attributes cannot be decoded (corrupt bytes, a class that is
 * not allowed or no longer exists, an unknown dictionary). Set with {@code lazysession.on-decode-failure}.
 */
public enum DecodeFailurePolicy {
  /**
   * {@code getAttribute} returns null, the attribute leaves the session for this request
   * ({@code getAttributeNames} no longer lists it), a warning names the session id, the attribute
   * and the reason; the other attributes keep working. The default.
   *
   * <p>What happens to the stored bytes depends on why they could not be decoded. When they are
   * provably corrupt ({@code CorruptDataException}), the field is deleted from Redis on the next
   * save. When this node merely cannot read them (a class outside its allow-list, a class it does not
   * have, an enum constant or field it does not know, a zstd dictionary it does not know), the bytes
   * stay in Redis untouched, neither deleted nor rewritten: during a rolling deploy they were
   * probably written by a newer node, which still reads them. Only an explicit
   * {@code removeAttribute} or {@code setAttribute} of that name changes them.
   *
   * <p>No policy applies to an {@link Error} thrown while decoding (out of memory, stack overflow):
   * it says nothing about the bytes, so it propagates and the stored bytes stay as they are.
   */
  DROP_ATTRIBUTE("drop-attribute"),

  /**
   * The whole session is treated as gone: {@code getAttribute} returns null, the attributes are
   * cleared and the stored session is deleted on the next save, so the user starts a new session.
   */
  INVALIDATE_SESSION("invalidate-session"),

  /** {@code getAttribute} throws an {@link IllegalStateException} naming the session and attribute. */
  FAIL("fail");

  private final String propertyValue;

  /**
   * Whether bytes that failed to decode may be fine for another node, so they must be kept: anything
   * but {@link CorruptDataException}, which the serializer reserves for provably broken bytes (a bad
   * envelope, a zstd error, truncation, trailing bytes, a checksum). A class refused by the allow-list
   * or missing here, an enum constant or a field this version lacks, an unknown dictionary: all are
   * readable by a node of another version.
   *
   * <p>A {@code CorruptDataException} caused by a missing class is also kept: serializers before the
   * one that separated those failures reported a missing class that way.
   */
  static boolean readableElsewhere(SerializationException failure) {
    if (!(failure instanceof CorruptDataException)) {
      return true;
    }
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof ClassNotFoundException || cause instanceof NoClassDefFoundError
          || cause instanceof InvalidClassException) {
        return true;
      }
    }
    return false;
  }

  DecodeFailurePolicy(String propertyValue) {
    this.propertyValue = propertyValue;
  }

  /** The value used in {@code lazysession.on-decode-failure}. */
  public String propertyValue() {
    return propertyValue;
  }

  /**
   * Parses a {@code lazysession.on-decode-failure} value ({@code drop-attribute},
   * {@code invalidate-session} or {@code fail}; case and {@code _}/{@code -} are not significant).
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static DecodeFailurePolicy fromProperty(String value) {
    String normalized = value.trim().toLowerCase(Locale.ROOT).replace('_', '-');
    for (DecodeFailurePolicy policy : values()) {
      if (policy.propertyValue.equals(normalized)) {
        return policy;
      }
    }
    throw new IllegalArgumentException("lazysession.on-decode-failure must be 'drop-attribute', "
        + "'invalidate-session' or 'fail', was '" + value + "'");
  }
}
