package io.lazysession.serializer;

import io.lazysession.serializer.codec.CodecKind;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LazyValue} over envelope bytes. Invariants: {@code original} is never modified nor exposed
 * (callers get it as is: the store hands it back to Redis unchanged); {@code value} is set at most once,
 * under the lock, and read through the volatile field, so {@link #get()} inflates at most once even when
 * several threads race. The encoding of a value given by the application is computed once, on demand.
 *
 * <p>Deciding whether a read value changed costs one encode and one comparison: inflation keeps the
 * uncompressed codec payload it decoded ({@code read}), and the value is re-encoded without compression
 * and compared with it in the codec's own buffer (an unchanged value allocates nothing); only a value
 * that really changed is compressed. A value whose encoding is fixed ({@link ImmutableTypes}: strings,
 * boxed numbers, enum constants, java.time values, records and {@code List.of}s of such values, classes
 * the application marks immutable...) is not re-encoded at all. When the bytes differ although nothing may have changed (the payload was written by another
 * codec, or by another JVM whose hash order differs: a {@code HashSet} of enums iterates in
 * identity-hash order), the stored payload is decoded again and re-encoded here: if that copy encodes
 * to the same bytes as the value, the value is unchanged and its original bytes are kept.
 * {@code equals} is not used for that decision: an {@code equals} over a subset of the fields would
 * hide an in-place change to the others.
 *
 * <p>Keeping the payload costs no copy (an uncompressed envelope is compared in place, a compressed one
 * keeps the array decompression allocated anyway) but holds that array as long as the value lives,
 * that is for one request: sessions are cached as bytes, never as lazy values.
 */
final class EnvelopeLazyValue implements LazyValue {
  private static final Logger log = LoggerFactory.getLogger(LazyValue.class);
  /** Classes already reported as not re-encodable; bounded so that it cannot grow without end. */
  private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();
  private static final int MAX_REPORTED = 1024;

  private final AttributeSerializer serializer;
  private volatile byte @Nullable [] original;
  private volatile @Nullable Object value;
  /** The codec payload {@code value} was decoded from or first encoded to; set before {@code value}. */
  private volatile @Nullable Inflated read;

  private EnvelopeLazyValue(AttributeSerializer serializer, byte @Nullable [] original,
      @Nullable Object value) {
    this.serializer = serializer;
    this.original = original;
    this.value = value;
  }

  static EnvelopeLazyValue ofBytes(AttributeSerializer serializer, byte[] envelope) {
    return new EnvelopeLazyValue(serializer, envelope, null);
  }

  static EnvelopeLazyValue ofValue(AttributeSerializer serializer, Object value) {
    return new EnvelopeLazyValue(serializer, null, value);
  }

  @Override
  public Object get() {
    Object v = value;
    if (v == null) {
      synchronized (this) {
        v = value;
        if (v == null) {
          Inflated inflated = serializer.inflate(originalBytes());
          read = inflated;
          v = inflated.value();
          value = v;
        }
      }
    }
    return v;
  }

  @Override
  public boolean isInflated() {
    return value != null;
  }

  @Override
  public byte[] originalBytes() {
    byte[] bytes = original;
    if (bytes == null) {
      synchronized (this) {
        bytes = original;
        if (bytes == null) {
          Object v = value;
          // The configured codec, or the JDK codec for a value Kryo cannot encode (CodecFallback)
          CodecFallback.Encoded encoded = serializer.encode(v);
          byte[] payload = encoded.payload();
          read = new Inflated(v, encoded.codec(), payload, 0, payload.length);
          bytes = serializer.envelope(encoded.codec(), payload);
          original = bytes;
        }
      }
    }
    return bytes;
  }

  @Override
  public byte[] currentBytes() {
    Object v = value;
    if (v == null) {
      return originalBytes();
    }
    byte[] bytes = originalBytes();
    if (serializer.immutableTypes.encodingFixed(v)) {
      return bytes; // it encodes to what it was decoded from or first encoded to, as it did then
    }
    Inflated from = read;
    byte[] now;
    try {
      now = from != null && from.codec() == serializer.codec()
          ? serializer.encodePayloadUnlessEqual(v, from.bytes(), from.offset(), from.length())
          : serializer.encodePayload(v);
    } catch (SerializationException e) {
      return unencodable(v, from, bytes, e);
    }
    if (now == null || from == null || unchanged(from, serializer.codec(), now)) {
      return bytes;
    }
    return serializer.envelope(now);
  }

  /**
   * Whether {@code now}, the value encoded by the codec {@code kind}, is the stored value: it is the
   * stored payload, or the stored payload decoded again in this JVM encodes exactly to it. In the
   * second case the value is what was stored, only encoded differently (another codec, another JVM's
   * hash order, a hash table sized differently), and rewriting it would be a spurious write.
   */
  private boolean unchanged(Inflated from, CodecKind kind, byte[] now) {
    if (from.samePayload(kind, now)) {
      return true;
    }
    try {
      Object stored = serializer.decodePayload(from.codec(), from.bytes(), from.offset(), from.length());
      return Arrays.equals(serializer.encodePayload(kind, stored), now);
    } catch (SerializationException e) {
      return false;
    }
  }

  /**
   * A value read from the store that the configured codec cannot encode (a JDK-written map holding an
   * {@code AtomicInteger}, read on a Kryo node). It is encoded by the codec that wrote it instead (by
   * the JDK codec when Kryo wrote it, as {@link CodecFallback} does for a new value):
   * unchanged, its original bytes are kept; changed in place, it is stored in that codec, so the change
   * is not lost. When that fails too, its original bytes are kept (the only encoding of it this node
   * has) and the condition is logged once per class. A value that grew in place beyond the maximum
   * payload size is the caller's to hear about: it cannot be saved.
   */
  private byte[] unencodable(Object v, @Nullable Inflated from, byte[] bytes,
      SerializationException e) {
    if (e instanceof ValueTooLargeException && !storedValueTooLargeToo(from)) {
      throw e;
    }
    // The codec that wrote it; or, for a value Kryo wrote and can no longer encode (it changed in
    // place to hold something only Java serialization stores), the JDK codec (see CodecFallback).
    CodecKind other = from != null && from.codec() != serializer.codec() ? from.codec()
        : serializer.codec() == CodecKind.KRYO && !(e instanceof NotSerializableException)
            ? CodecKind.JDK : null;
    if (other != null) {
      try {
        byte[] now = serializer.encodePayload(other, v);
        return from != null && unchanged(from, other, now) ? bytes : serializer.envelope(other, now);
      } catch (ValueTooLargeException tooLarge) {
        throw tooLarge;
      } catch (SerializationException neither) {
        // neither codec encodes it: keep the stored bytes, below
      }
    }
    String type = v.getClass().getTypeName();
    if (REPORTED.size() < MAX_REPORTED && REPORTED.add(type)) {
      log.warn("A value of {} read from the session store cannot be encoded with {}; its stored bytes "
          + "are kept unchanged, and changes made to it in place will not be saved (set it again "
          + "with a value the codec can encode). Reported once per class. Cause: {}", type,
          serializer.codec().propertyValue(), e.getMessage());
    }
    return bytes;
  }

  /** Whether the stored payload, decoded again, is too large to encode as well: then nothing grew. */
  private boolean storedValueTooLargeToo(@Nullable Inflated from) {
    if (from == null) {
      return false;
    }
    try {
      Object stored = serializer.decodePayload(from.codec(), from.bytes(), from.offset(), from.length());
      serializer.encodePayload(stored);
      return false;
    } catch (ValueTooLargeException e) {
      return true;
    } catch (SerializationException e) {
      return false;
    }
  }

  @Override
  public boolean isModified() {
    Object v = value;
    if (v == null) {
      return false;
    }
    return currentBytes() != originalBytes();
  }

  @Override
  public String toString() {
    Object v = value;
    byte[] bytes = original;
    return "LazyValue{" + (v == null ? "not inflated, " + (bytes == null ? 0 : bytes.length) + " bytes"
        : "inflated " + v.getClass().getName()) + "}";
  }
}
