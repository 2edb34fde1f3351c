package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import io.lazysession.serializer.SerializationException;
import org.jspecify.annotations.Nullable;

/**
 * Java serialization's {@code writeReplace} and {@code readResolve} kept by Kryo, around the
 * serializer Kryo would otherwise use for the class ({@link #wrap}, called once per class and Kryo
 * instance when Kryo makes that serializer: classes without them keep their serializer as it was,
 * at no cost per value).
 *
 * <p>Writing: {@code writeReplace()} is called and what it returns is written in place of the
 * object, when it is of the same class (a copy without the transient parts, or the object itself),
 * with the bytes Kryo has always written for that class, so every version reads them. A replacement
 * of another class (a serialization proxy), or null, is not written by Kryo: the class was already
 * named in the bytes, and a reader of an earlier version would get the proxy back instead of the
 * object. The value is refused with {@link SerializationException}, and {@code CodecFallback} stores
 * it with Java serialization, which every node reads with Java serialization's semantics.
 *
 * <p>Reading: the object read, then its {@code readResolve()}; what it returns is the value (a
 * singleton stays itself), and what later back-references in the same value get, as in Java
 * serialization. References to the object from inside its own fields, read before it was resolved,
 * get the object as read: Java serialization does the same. Bytes written by earlier versions, which
 * did not call {@code writeReplace}, read the same way.
 *
 * <p>One instance per Kryo instance and class, like the serializer it wraps: not thread-safe.
 */
final class JavaSerialSemantics<T> extends Serializer<T> {
  private final Class<?> type;
  private final JavaSerialMethods methods;
  private final Serializer<T> delegate;

  private JavaSerialSemantics(Class<?> type, JavaSerialMethods methods, Serializer<T> delegate) {
    super(delegate.getAcceptsNull(), delegate.isImmutable());
    this.type = type;
    this.methods = methods;
    this.delegate = delegate;
  }

  /** {@code serializer}, kept as is unless {@code type} has a writeReplace or readResolve. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  static Serializer wrap(Class<?> type, Serializer serializer) {
    JavaSerialMethods methods = JavaSerialMethods.of(type);
    return methods == JavaSerialMethods.NONE || serializer instanceof JavaSerialSemantics
        ? serializer : new JavaSerialSemantics<>(type, methods, serializer);
  }

  @Override
  @SuppressWarnings("unchecked")
  public void write(Kryo kryo, Output output, T object) {
    if (!methods.hasWriteReplace() || object == null) {
      delegate.write(kryo, output, object);
      return;
    }
    Object replacement = methods.writeReplace(object);
    if (replacement == null || replacement.getClass() != object.getClass()) {
      throw new SerializationException("cannot encode " + object.getClass().getTypeName()
          + " with Kryo: its writeReplace() returns " + (replacement == null ? "null"
          : "a " + replacement.getClass().getTypeName()) + ", which only Java serialization "
          + "stores in its place");
    }
    delegate.write(kryo, output, (T) replacement);
  }

  @Override
  @SuppressWarnings("unchecked")
  public T read(Kryo kryo, Input input, Class<? extends T> readType) {
    if (!methods.hasReadResolve()) {
      return delegate.read(kryo, input, readType);
    }
    BoundedKryo.CostingReferences references =
        kryo.getReferenceResolver() instanceof BoundedKryo.CostingReferences costing ? costing : null;
    int id = references == null ? -1 : references.lastReadId();
    T read = delegate.read(kryo, input, readType);
    if (read == null) {
      return null;
    }
    Object resolved = methods.readResolve(read);
    if (resolved != read && references != null) {
      references.resolved(id, read, resolved);
    }
    return (T) resolved;
  }

  @Override
  public @Nullable T copy(Kryo kryo, T original) {
    return delegate.copy(kryo, original);
  }

  @Override
  public String toString() {
    return "JavaSerialSemantics[" + type.getName() + ", " + delegate + "]";
  }
}
