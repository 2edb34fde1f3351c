package io.lazysession.serializer;

import io.lazysession.serializer.lazy.LazyValue;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LazyValue} over envelope bytes. Invariants: {@code original} is never modified nor exposed
 * (callers get it as is: the store hands it back to Redis unchanged); {@code value} is set at most once,
 * under the lock, and read through the volatile field, so {@link #get()} inflates at most once even when
 * several threads race. The encoding of a value given by the application is computed once, on demand.
 */
final class EnvelopeLazyValue implements LazyValue {
  private final AttributeSerializer serializer;
  private volatile byte @Nullable [] original;
  private volatile @Nullable Object value;

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
          v = serializer.deserialize(originalBytes());
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
          bytes = serializer.serialize(value);
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
    byte[] now = serializer.serialize(v);
    return Arrays.equals(now, bytes) ? bytes : now;
  }

  @Override
  public boolean isModified() {
    Object v = value;
    if (v == null) {
      return false;
    }
    return !Arrays.equals(serializer.serialize(v), originalBytes());
  }

  @Override
  public String toString() {
    Object v = value;
    byte[] bytes = original;
    return "LazyValue{" + (v == null ? "not inflated, " + (bytes == null ? 0 : bytes.length) + " bytes"
        : "inflated " + v.getClass().getName()) + "}";
  }
}
