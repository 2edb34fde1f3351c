package io.lazysession.serializer.codec;

import io.lazysession.serializer.SerializationException;

/**
 * Decoding stopped because the value exceeds one of the per-decode limits (elements, graph size,
 * hash collisions, nesting depth, decompression ratio, the JDK codec's CPU time) that bound the work
 * and memory one stored value can cost. The bytes may be valid — written by a newer or differently
 * configured node — or hostile (someone with write access to Redis); either way they are not known to
 * be broken, so they are not corrupt data and should be kept, not deleted. The message names the
 * limit.
 */
public class DecodeLimitException extends SerializationException {
  private static final long serialVersionUID = 1L;

  public DecodeLimitException(String message) {
    super(message);
  }
}
