package io.lazysession.serializer.codec;

import io.lazysession.serializer.ClassAllowList;

/** Static factories of the codecs; every codec they return is thread-safe. */
public final class Codecs {
  /** Largest payload a codec writes or reads, unless configured otherwise: 16 MiB. */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

  private Codecs() {}

  /** A Kryo codec: pooled Kryo instances, references on, compatible field serialization. */
  public static Codec kryo(ClassAllowList allowList, ClassLoader classLoader) {
    return new KryoCodec(allowList, classLoader, DEFAULT_MAX_PAYLOAD_BYTES);
  }

  /** A JDK serialization codec with an {@link java.io.ObjectInputFilter} per stream. */
  public static Codec jdk(ClassAllowList allowList, ClassLoader classLoader) {
    return new JdkCodec(allowList, classLoader, DEFAULT_MAX_PAYLOAD_BYTES);
  }

  /** The codec of this kind. */
  public static Codec of(CodecKind kind, ClassAllowList allowList, ClassLoader classLoader,
      int maxPayloadBytes) {
    return of(kind, allowList, classLoader, maxPayloadBytes, false);
  }

  /**
   * The codec of this kind; with {@code requireSerializable}, the Kryo codec refuses to write an
   * object whose class is not {@link java.io.Serializable} (as the JDK codec always does), so that
   * what it stores could also be stored by JDK serialization.
   */
  public static Codec of(CodecKind kind, ClassAllowList allowList, ClassLoader classLoader,
      int maxPayloadBytes, boolean requireSerializable) {
    if (maxPayloadBytes <= 0) {
      throw new IllegalArgumentException("maxPayloadBytes must be > 0, was " + maxPayloadBytes);
    }
    return switch (kind) {
      case JDK -> new JdkCodec(allowList, classLoader, maxPayloadBytes);
      case KRYO -> new KryoCodec(allowList, classLoader, maxPayloadBytes, true, requireSerializable);
    };
  }
}
