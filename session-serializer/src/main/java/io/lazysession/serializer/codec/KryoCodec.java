package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.Registration;
import com.esotericsoftware.kryo.kryo5.io.KryoBufferUnderflowException;
import com.esotericsoftware.kryo.kryo5.io.Output;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.CorruptDataException;
import io.lazysession.serializer.IncompatibleDataException;
import io.lazysession.serializer.SerializationException;
import io.lazysession.serializer.ValueTooLargeException;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Kryo serialization. Thread-safe: Kryo instances (each with its own input and output buffers) live in
 * a pool and are used by one thread at a time, never shared.
 *
 * <p>Configuration lives in {@link KryoFactory}; this class only borrows, runs and maps failures to
 * {@link SerializationException}s. Decode failures are classified so that the store never deletes
 * bytes another node could read: only a payload that holds null, or that ends before its value (or
 * declares more items than bytes remain, or refers back to nothing), or goes on after it, while
 * naming no class but the JDK's, is {@link CorruptDataException}. Kryo's bytes do not say where an
 * object ends, its class's serializer does: a class that changed kind between deploys (an enum that
 * became a class or a record, a list subclass that became a plain class) reads the same valid bytes
 * out of step and meets those very failures, so with an application's class in the payload they are
 * {@link IncompatibleDataException}. So is everything else a serializer throws (an enum constant or
 * a class this node does not have, a field whose type changed, Kryo's depth limit, a stack
 * overflow), naming the root class and Kryo's reason. A more specific serialization exception thrown
 * inside (such as {@link io.lazysession.serializer.ClassNotAllowedException}) is passed on as is.
 *
 * <p>{@link StackOverflowError} while decoding is classified, not propagated: a legitimately deep
 * value can exceed a small request thread's stack, the error is raised by this thread's own recursion
 * into the serializers and fully unwound by the time it is caught, so the thread is healthy; the
 * bytes are kept for a node (or a thread) with more stack. So is a {@link LinkageError} (a class of
 * the value whose supertype or field type is missing here, a static initializer that fails): it says
 * what this node's class path lacks, not that the bytes are wrong or the JVM unwell.
 * {@link OutOfMemoryError} and other {@link VirtualMachineError}s are never caught: they say nothing
 * about the bytes. A Kryo instance that saw an error is not returned to the pool, in case a
 * serializer left it half-way.
 */
final class KryoCodec implements Codec {
  /** Output buffers that grew beyond this are not kept in the pool. */
  private static final int RETAINED_BUFFER_BYTES = 64 * 1024;
  /** Far above any registration list this library will have (a few hundred ids). */
  private static final int MAX_PLAUSIBLE_CLASS_ID = 65_536;
  /** Why bytes that run out of step with an application's class are not called corrupt. */
  private static final String KIND_CHANGE = ", read with this node's version of the classes they"
      + " name: one may have changed kind since they were written (enum, record, class, collection)";

  private final ClassAllowList allowList;
  private final int maxPayloadBytes;
  private final KryoPool pool;

  KryoCodec(ClassAllowList allowList, ClassLoader classLoader, int maxPayloadBytes) {
    this(allowList, classLoader, maxPayloadBytes, true);
  }

  /** See {@link KryoFactory#create(ClassAllowList, ClassLoader, int, boolean)}. */
  KryoCodec(ClassAllowList allowList, ClassLoader classLoader, int maxPayloadBytes, boolean compatible) {
    this(allowList, classLoader, maxPayloadBytes, compatible, false);
  }

  /** With {@code requireSerializable}, see {@link Codecs#of(CodecKind, ClassAllowList, ClassLoader, int, boolean)}. */
  KryoCodec(ClassAllowList allowList, ClassLoader classLoader, int maxPayloadBytes, boolean compatible,
      boolean requireSerializable) {
    this.allowList = allowList;
    this.maxPayloadBytes = maxPayloadBytes;
    int capacity = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    this.pool = new KryoPool(capacity,
        () -> KryoFactory.create(allowList, classLoader, maxPayloadBytes, compatible,
            requireSerializable));
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
    byte[] bytes = encode(value, null, 0, 0);
    assert bytes != null;
    return bytes;
  }

  /** Compares in the pooled output buffer: an unchanged value costs the encode and no allocation. */
  @Override
  public byte @Nullable [] encodeUnlessEqual(Object value, byte[] bytes, int offset, int length) {
    return encode(value, Objects.requireNonNull(bytes, "bytes must not be null"), offset, length);
  }

  /** The encoding of {@code value}; null if {@code compareTo} is given and holds exactly that. */
  private byte @Nullable [] encode(Object value, byte @Nullable [] compareTo, int offset, int length) {
    KryoFactory.PooledKryo pooled = pool.obtain();
    Kryo kryo = pooled.kryo();
    Output output = pooled.output();
    boolean healthy = false;
    try {
      output.reset();
      kryo.writeClassAndObject(output, value);
      byte[] bytes = compareTo != null && Arrays.equals(output.getBuffer(), 0, output.position(),
          compareTo, offset, offset + length) ? null : output.toBytes();
      healthy = true;
      return bytes;
    } catch (RuntimeException | StackOverflowError e) {
      kryo.reset();
      healthy = e instanceof RuntimeException;
      SerializationException specific = specific(e);
      if (specific != null) {
        throw specific;
      }
      if (output.position() >= maxPayloadBytes || e.getMessage() != null
          && e.getMessage().startsWith("Buffer overflow")) {
        throw new ValueTooLargeException(value.getClass().getTypeName(), -1, maxPayloadBytes, e);
      }
      throw new SerializationException("cannot encode " + value.getClass().getTypeName()
          + " with Kryo: " + e, e);
    } finally {
      // An instance that saw an Error is dropped; the pool creates a fresh one when empty.
      if (healthy) {
        pool.free(output.getBuffer().length > RETAINED_BUFFER_BYTES
            ? KryoFactory.withFreshOutput(pooled, maxPayloadBytes) : pooled);
      }
    }
  }

  @Override
  public Object decode(byte[] bytes, int offset, int length) {
    KryoFactory.PooledKryo pooled = pool.obtain();
    Kryo kryo = pooled.kryo();
    BoundedInput input = pooled.input();
    AllowListClassResolver resolver = (AllowListClassResolver) kryo.getClassResolver();
    long applicationClasses = resolver.applicationClassesRead();
    boolean healthy = false;
    try {
      input.setBuffer(bytes, offset, length);
      Object value = kryo.readClassAndObject(input);
      if (value == null) {
        throw new CorruptDataException("Kryo payload holds null");
      }
      if (input.position() != offset + length) {
        String trailing = (offset + length - input.position())
            + " trailing bytes after the value of " + value.getClass().getTypeName();
        if (resolver.applicationClassesRead() != applicationClasses) {
          throw new IncompatibleDataException(value.getClass().getName(), "Kryo: " + trailing
              + KIND_CHANGE, null);
        }
        throw new CorruptDataException("Kryo payload has " + trailing);
      }
      healthy = true;
      return value;
    } catch (RuntimeException | StackOverflowError | LinkageError e) {
      kryo.reset();
      healthy = e instanceof RuntimeException;
      SerializationException specific = specific(e);
      if (specific != null) {
        healthy = true;
        throw specific;
      }
      boolean broken = broken(e);
      if (broken && resolver.applicationClassesRead() == applicationClasses) {
        throw new CorruptDataException("Kryo payload is broken: " + e.getMessage(), e);
      }
      String reason = e instanceof StackOverflowError
          ? "the value is nested deeper than this thread's stack allows"
          : e instanceof LinkageError ? "a class cannot be loaded or initialized on this node (" + e + ")"
          : broken ? e.getMessage() + KIND_CHANGE
          : String.valueOf(e.getMessage() == null ? e : e.getMessage());
      throw new IncompatibleDataException(e instanceof StackOverflowError ? null
          : rootClass(kryo, input, bytes, offset, length), "Kryo: " + reason, e);
    } finally {
      input.setBuffer(KryoFactory.EMPTY);
      if (healthy) {
        pool.free(pooled);
      }
    }
  }

  /**
   * Whether Kryo failed as bytes that are structurally broken do: they run out (underflow, or a
   * declared count larger than the bytes that remain, see {@link BoundedInput}), or a back-reference
   * points at an object never read. No version of any class reads such bytes, unless they were read
   * out of step by a class whose kind changed: the caller tells the two apart.
   */
  private static boolean broken(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof KryoBufferUnderflowException) {
        return true;
      }
      String message = t.getMessage();
      if (message != null && (message.startsWith("declared count") && message.contains("bytes that remain")
          || message.startsWith("Unable to resolve reference") || impossibleClassId(message))) {
        return true;
      }
    }
    return false;
  }

  /**
   * A registered class id no version could have written. Ids of a few hundred may be registrations a
   * newer version added (incompatible, not broken); one past {@link #MAX_PLAUSIBLE_CLASS_ID} is noise.
   */
  private static boolean impossibleClassId(String message) {
    String prefix = "Encountered unregistered class ID: ";
    if (!message.startsWith(prefix)) {
      return false;
    }
    try {
      return Long.parseLong(message.substring(prefix.length()).trim()) > MAX_PLAUSIBLE_CLASS_ID;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** The class named at the start of the payload, for messages; null when it cannot be read. */
  private static @Nullable String rootClass(Kryo kryo, BoundedInput input, byte[] bytes, int offset,
      int length) {
    try {
      input.setBuffer(bytes, offset, length);
      Registration registration = kryo.readClass(input);
      return registration == null ? null : registration.getType().getName();
    } catch (RuntimeException | LinkageError e) {
      return null;
    } finally {
      kryo.reset();
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
