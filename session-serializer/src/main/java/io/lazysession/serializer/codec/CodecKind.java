package io.lazysession.serializer.codec;

/** The codecs an envelope may carry; the id is written in the envelope header and never changes. */
public enum CodecKind {
  JDK(1, "jdk"),
  KRYO(2, "kryo");

  private final int id;
  private final String propertyValue;

  CodecKind(int id, String propertyValue) {
    this.id = id;
    this.propertyValue = propertyValue;
  }

  public int id() {
    return id;
  }

  /** The codec with this envelope id, or null. */
  public static @org.jspecify.annotations.Nullable CodecKind ofId(int id) {
    return switch (id) {
      case 1 -> JDK;
      case 2 -> KRYO;
      default -> null;
    };
  }

  /** The name used in {@code lazysession.codec}. */
  public String propertyValue() {
    return propertyValue;
  }

  /**
   * Parses a {@code lazysession.codec} value.
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static CodecKind fromProperty(String value) {
    for (CodecKind kind : values()) {
      if (kind.propertyValue.equalsIgnoreCase(value.trim())) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "lazysession.codec must be 'kryo' or 'jdk', was '" + value + "'");
  }
}
