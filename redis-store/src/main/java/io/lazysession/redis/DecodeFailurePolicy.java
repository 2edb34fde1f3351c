package io.lazysession.redis;

import java.util.Locale;

/**
 * What a session does when one of its attributes cannot be decoded (corrupt bytes, a class that is
 * not allowed or no longer exists, an unknown dictionary). Set with {@code lazysession.on-decode-failure}.
 */
public enum DecodeFailurePolicy {
  /**
   * The attribute is removed from the session (and from Redis on the next save), {@code getAttribute}
   * returns null, a warning names the session id, the attribute and the class; the other attributes
   * keep working. The default.
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
