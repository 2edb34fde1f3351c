package io.lazysession.serializer.lazy;

/**
 * One attribute value that stays as envelope bytes until it is read.
 *
 * <p>Not thread-safe in general use; {@link #get()} is safe to call from several threads (it inflates
 * at most once), but a session's values are expected to be used by one request at a time.
 */
public interface LazyValue {
  /**
   * The value, inflated on first call and cached.
   *
   * @throws io.lazysession.serializer.SerializationException if the bytes cannot be decoded
   */
  Object get();

  /** Whether {@link #get()} has inflated the bytes (or the value was given, not read). */
  boolean isInflated();

  /** The envelope bytes this value was read from, untouched; for a given value, its encoding. */
  byte[] originalBytes();

  /**
   * The bytes to store now: the original bytes when never inflated or unchanged; otherwise the value
   * encoded again.
   */
  byte[] currentBytes();

  /**
   * For an inflated value: whether it now encodes to bytes different from those it came from (an
   * in-place mutation). Never re-encodes a value that was not inflated; returns false for it. Bytes
   * written with another codec or compression than the serializer's count as modified once read, so
   * saving them migrates the attribute to the configured encoding.
   */
  boolean isModified();
}
