package io.lazysession.serializer.codec;

import io.lazysession.serializer.ClassAllowList;

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
   * Decodes {@code length} bytes of {@code bytes} from {@code offset}.
   *
   * @throws io.lazysession.serializer.CorruptDataException if the bytes are not a valid payload
   * @throws io.lazysession.serializer.ClassNotAllowedException if they name a class outside the allow-list
   */
  Object decode(byte[] bytes, int offset, int length);
}
