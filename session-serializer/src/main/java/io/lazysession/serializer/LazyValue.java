package io.lazysession.serializer;

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
   * The bytes to store now: the very array {@link #originalBytes()} returns when never inflated or
   * unchanged; otherwise the value encoded again (and compressed if due).
   *
   * <p>Unchanged means: the value encodes to the codec payload it was read from, or, when it does not,
   * to what that payload decodes to once more in this JVM (bytes of another codec, compression or hash
   * order are kept as they are: a read-only request never rewrites them). A value read from the store
   * that the configured codec cannot encode at all is unchanged too: its original bytes are kept and
   * the condition is logged once per class. Compression runs only for a value that changed.
   *
   * @throws io.lazysession.serializer.ValueTooLargeException if the value grew in place beyond the
   *     maximum payload size
   */
  byte[] currentBytes();

  /**
   * For an inflated value: whether it changed since it was read (an in-place mutation), in the sense
   * of {@link #currentBytes()}. Never re-encodes a value that was not inflated; returns false for it.
   */
  boolean isModified();
}
