package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.io.Output;
import com.esotericsoftware.kryo.kryo5.util.Pool;
import io.lazysession.serializer.CorruptDataException;
import io.lazysession.serializer.SerializationException;

/**
 * Kryo serialization. Thread-safe: Kryo instances (each with its own input and output buffers) live in
 * a pool and are used by one thread at a time, never shared.
 *
 * <p>Configuration lives in {@link KryoFactory}; this class only borrows, runs and maps failures to
 * {@link SerializationException}s. Any failure while decoding, whatever Kryo or a serializer threw, is
 * reported as {@link CorruptDataException} unless it is (or wraps) a more specific serialization
 * exception such as {@link io.lazysession.serializer.ClassNotAllowedException}.
 */
final class KryoCodec implements Codec {
  /** Output buffers that grew beyond this are not kept in the pool. */
  private static final int RETAINED_BUFFER_BYTES = 64 * 1024;

  private final ClassAllowList allowList;
  private final int maxPayloadBytes;
  private final Pool<KryoFactory.PooledKryo> pool;

  KryoCodec(ClassAllowList allowList, ClassLoader classLoader, int maxPayloadBytes) {
    this(allowList, classLoader, maxPayloadBytes, true);
  }

  /** See {@link KryoFactory#create(ClassAllowList, ClassLoader, int, boolean)}. */
  KryoCodec(ClassAllowList allowList, ClassLoader classLoader, int maxPayloadBytes, boolean compatible) {
    this.allowList = allowList;
    this.maxPayloadBytes = maxPayloadBytes;
    int capacity = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    this.pool = new Pool<>(true, false, capacity) {
      @Override
      protected KryoFactory.PooledKryo create() {
        return KryoFactory.create(allowList, classLoader, maxPayloadBytes, compatible);
      }
    };
  }

  @Override
  public CodecKind kind() {
    return CodecKind.KRYO;
  }

  @Override
  public ClassAllowList allowList() {
    return allowList;
  }

  @Override
  public byte[] encode(Object value) {
    KryoFactory.PooledKryo pooled = pool.obtain();
    Kryo kryo = pooled.kryo();
    Output output = pooled.output();
    try {
      output.reset();
      kryo.writeClassAndObject(output, value);
      return output.toBytes();
    } catch (RuntimeException | StackOverflowError e) {
      kryo.reset();
      SerializationException specific = specific(e);
      if (specific != null) {
        throw specific;
      }
      if (output.position() >= maxPayloadBytes || e.getMessage() != null
          && e.getMessage().startsWith("Buffer overflow")) {
        throw new SerializationException("value of " + value.getClass().getName()
            + " encodes to more than the maximum of " + maxPayloadBytes + " bytes", e);
      }
      throw new SerializationException("cannot encode " + value.getClass().getName()
          + " with Kryo: " + e, e);
    } finally {
      if (output.getBuffer().length > RETAINED_BUFFER_BYTES) {
        pool.free(KryoFactory.withFreshOutput(pooled, maxPayloadBytes));
      } else {
        pool.free(pooled);
      }
    }
  }

  @Override
  public Object decode(byte[] bytes, int offset, int length) {
    KryoFactory.PooledKryo pooled = pool.obtain();
    Kryo kryo = pooled.kryo();
    BoundedInput input = pooled.input();
    try {
      input.setBuffer(bytes, offset, length);
      Object value = kryo.readClassAndObject(input);
      if (value == null) {
        throw new CorruptDataException("Kryo payload holds null");
      }
      if (input.position() != offset + length) {
        throw new CorruptDataException("Kryo payload has " + (offset + length - input.position())
            + " trailing bytes after the value");
      }
      return value;
    } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
      kryo.reset();
      SerializationException specific = specific(e);
      if (specific != null) {
        throw specific;
      }
      throw new CorruptDataException("Kryo payload cannot be decoded: " + e, e);
    } finally {
      input.setBuffer(KryoFactory.EMPTY);
      pool.free(pooled);
    }
  }

  /** The serialization exception a Kryo failure carries, if any. */
  private static SerializationException specific(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SerializationException s) {
        return s;
      }
    }
    return null;
  }
}
