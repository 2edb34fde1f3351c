package io.lazysession.serializer.codec;

import io.lazysession.serializer.ClassAllowList;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Turns a value into payload bytes and back, refusing classes outside its {@link ClassAllowList}.
 * Implementations are thread-safe.
 */
public interface Codec {
  /** Which codec this is; its id is written in envelope headers. */
  CodecKind kind();

  /** The classes this codec may decode. */
  ClassAllowList allowList();

  /**
   * Encodes a value.
   *
   * @throws io.lazysession.serializer.SerializationException if the value cannot be encoded
   */
  byte[] encode(Object value);

  /**
   * Encodes a value unless it encodes to exactly {@code length} bytes of {@code bytes} from
   * {@code offset}: the check of whether a value read from those bytes changed in place. Returns null
   * when the encoding is those bytes, else the encoding, as {@link #encode(Object)} would. An
   * implementation may compare without allocating; this default encodes, then compares.
   *
   * @throws io.lazysession.serializer.SerializationException if the value cannot be encoded
   */
  default byte @Nullable [] encodeUnlessEqual(Object value, byte[] bytes, int offset, int length) {
    byte[] encoded = encode(value);
    return Arrays.equals(encoded, 0, encoded.length, bytes, offset, offset + length) ? null : encoded;
  }

  /**
   * Decodes {@code length} bytes of {@code bytes} from {@code offset}.
   *
   * @throws io.lazysession.serializer.CorruptDataException if the bytes are not a valid payload
   * @throws io.lazysession.serializer.ClassNotAllowedException if they name a class outside the allow-list
   */
  Object decode(byte[] bytes, int offset, int length);
}
