package io.lazysession.serializer;

import io.lazysession.serializer.codec.CodecKind;
import java.util.Arrays;

/**
 * A decoded value and the codec payload it came from ({@code length} bytes of {@code bytes} from
 * {@code offset}; the array is shared with the envelope for an uncompressed one, never modified).
 */
record Inflated(Object value, CodecKind codec, byte[] bytes, int offset, int length) {
  boolean samePayload(CodecKind writer, byte[] payload) {
    return codec == writer && Arrays.equals(bytes, offset, offset + length, payload, 0, payload.length);
  }
}
