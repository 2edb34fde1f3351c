package io.lazysession.serializer.codec;

import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.ClassNotAllowedException;
import io.lazysession.serializer.CorruptDataException;
import io.lazysession.serializer.IncompatibleDataException;
import io.lazysession.serializer.SerializationException;
import io.lazysession.serializer.ValueTooLargeException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.Externalizable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.StreamCorruptedException;
import java.io.UTFDataFormatException;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.IdentityHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * JDK serialization. Thread-safe: every call uses its own streams.
 *
 * <p>Two gates stand before any object is constructed: {@link #resolveClass} refuses a class name
 * outside the allow-list before it is even loaded, and an {@link ObjectInputFilter} set on every stream
 * checks the allow-list again (for classes resolved by other paths) and bounds depth, references, array
 * lengths and total bytes, so hostile streams fail instead of exhausting memory or stack.
 *
 * <p>Decode failures are classified so that the store never deletes bytes another node could read:
 * only a stream the JDK finds malformed ({@link StreamCorruptedException}), one that ends before its
 * value, or one with trailing bytes is {@link CorruptDataException}. The stream's own grammar is
 * fixed by the writer's class descriptors, whatever class reads it; the data a class's
 * {@code readObject} or {@code readExternal} reads is not: a version that reads more than an older
 * one wrote runs out where the stream ends, just as truncated bytes do. So a stream naming such a
 * class outside the JDK that runs out (or holds malformed UTF-8, which its {@code readUTF} may meet)
 * is {@link IncompatibleDataException}. A missing class, a class of another
 * serialVersionUID, a {@code readObject} that refuses what it reads ({@code InvalidObjectException},
 * {@code ClassCastException}, an unknown enum constant), a class that cannot be loaded or initialized
 * here (any {@link LinkageError}), a filter limit or a stack overflow is
 * {@link IncompatibleDataException}. {@link OutOfMemoryError} is never caught. See {@link KryoCodec}
 * for why a stack overflow and a linkage error are classified rather than propagated.
 */
final class JdkCodec implements Codec {
  static final int MAX_DEPTH = 256;
  static final int MAX_REFERENCES = 1_000_000;

  /**
   * Whether a class outside the JDK reads data of its own from the stream: {@code Externalizable},
   * or declaring {@code readObject}. The JDK's classes read what their own {@code writeObject} wrote.
   */
  private static final ClassValue<Boolean> CUSTOM_READS = new ClassValue<>() {
    @Override
    protected Boolean computeValue(Class<?> type) {
      if (type.getName().startsWith("java.")) {
        return false;
      }
      if (Externalizable.class.isAssignableFrom(type)) {
        return true;
      }
      try {
        type.getDeclaredMethod("readObject", ObjectInputStream.class);
        return true;
      } catch (NoSuchMethodException e) {
        return false;
      } catch (SecurityException | LinkageError e) {
        return true; // cannot tell: it may
      }
    }
  };

  private final ClassAllowList allowList;
  private final ClassLoader classLoader;
  private final int maxPayloadBytes;
  private final DecodeBudget budget;

  JdkCodec(ClassAllowList allowList, ClassLoader classLoader, int maxPayloadBytes) {
    this(allowList, classLoader, maxPayloadBytes, DecodeBudget.DEFAULT);
  }

  JdkCodec(ClassAllowList allowList, ClassLoader classLoader, int maxPayloadBytes, DecodeBudget budget) {
    this.allowList = allowList;
    this.classLoader = classLoader;
    this.maxPayloadBytes = maxPayloadBytes;
    this.budget = budget;
  }

  @Override
  public CodecKind kind() {
    return CodecKind.JDK;
  }

  @Override
  public ClassAllowList allowList() {
    return allowList;
  }

  @Override
  public byte[] encode(Object value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (ObjectOutputStream out = new CheckedObjectOutputStream(bytes)) {
      out.writeObject(value);
    } catch (ClassNotAllowedException e) {
      throw e;
    } catch (SerializationException e) {
      throw new SerializationException(e.getMessage().replace("the value holds",
          "a value of " + value.getClass().getTypeName() + " holds"), e);
    } catch (IOException | RuntimeException | StackOverflowError e) {
      throw new SerializationException("cannot encode " + value.getClass().getTypeName()
          + " with JDK serialization: " + e, e);
    }
    if (bytes.size() > maxPayloadBytes) {
      throw new ValueTooLargeException(value.getClass().getTypeName(), bytes.size(), maxPayloadBytes);
    }
    return bytes.toByteArray();
  }

  @Override
  public Object decode(byte[] bytes, int offset, int length) {
    ByteArrayInputStream source = new ByteArrayInputStream(bytes, offset, length);
    FilteredObjectInputStream in;
    try {
      in = new FilteredObjectInputStream(source, length, budget.start(length));
    } catch (IOException | RuntimeException e) {
      throw new CorruptDataException("JDK payload does not start with a serialization stream header", e);
    }
    try {
      Object value = in.readObject();
      if (in.read() >= 0) {
        throw new CorruptDataException("JDK payload has trailing bytes after the value of "
            + value.getClass().getTypeName());
      }
      return value;
    } catch (ClassNotAllowedException | CorruptDataException | DecodeLimitException
        | IncompatibleDataException e) {
      throw e;
    } catch (ClassNotFoundException e) {
      throw new IncompatibleDataException(e.getMessage(), "class not found on this node's class path", e);
    } catch (LinkageError e) {
      throw new IncompatibleDataException(in.rootClass, "JDK serialization: a class cannot be loaded"
          + " or initialized on this node (" + e + ")", e);
    } catch (IOException | RuntimeException | StackOverflowError e) {
      if (in.refusedClass != null) {
        throw new ClassNotAllowedException(in.refusedClass);
      }
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof ClassNotAllowedException || t instanceof DecodeLimitException) {
          throw (SerializationException) t; // thrown by the filter, which the stream wraps
        }
      }
      boolean runsOut = e instanceof EOFException && source.available() == 0;
      if (e instanceof StreamCorruptedException
          || !in.customReads && (e instanceof UTFDataFormatException || runsOut)) {
        throw new CorruptDataException("JDK payload is not a valid serialization stream: " + e, e);
      }
      String reason = e instanceof StackOverflowError
          ? "the value is nested deeper than this thread's stack allows" : e.toString();
      throw new IncompatibleDataException(e instanceof InvalidClassException invalid ? invalid.classname
          : null, "JDK serialization: " + reason, e);
    }
  }

  /** Refuses to write what could not be read back: a value is never stored only to be lost. */
  private final class CheckedObjectOutputStream extends ObjectOutputStream {
    CheckedObjectOutputStream(OutputStream out) throws IOException {
      super(out);
      enableReplaceObject(true);
    }

    /**
     * A URL travels as a {@link SerializedUrl}: java.net.URL itself is never decoded (URLDNS). An
     * object that is not Serializable is refused here, by name: left to the stream, it would fail
     * with a NotSerializableException that the stream then tries to write into itself, which the
     * allow-list refuses, hiding the class at fault.
     */
    @Override
    protected Object replaceObject(Object obj) {
      if (!(obj instanceof Serializable)) {
        throw new SerializationException("cannot encode with JDK serialization: the value holds a "
            + obj.getClass().getTypeName() + ", which is not Serializable");
      }
      return JavaNetSerializers.replaceForJdk(obj);
    }

    /**
     * Every class the stream names, of an object or a {@code Class} value, is read back by its name:
     * checked by the rules for names ({@link ClassReferences#check}).
     */
    @Override
    protected void annotateClass(Class<?> type) {
      ClassReferences.check(allowList, type);
    }

    @Override
    protected void annotateProxyClass(Class<?> type) {
      throw new ClassNotAllowedException(type.getName());
    }
  }

  /**
   * Refuses classes outside the allow-list and streams beyond the filter's limits, and bounds the
   * hashing work of nested collections ({@link DecodeLimits#MAX_GRAPH_VISITS}): a hash collection
   * hashes each element it reads, and the hash of a collection walks all it holds, so collections
   * sharing children (nested sets, the SerialDOS pattern) cost 2^depth while the bytes grow linearly.
   * Each collection or map is given, as it is read (children before parents), the number of objects a
   * walk of it visits, shared children counted at each place; one beyond the limit stops the decode
   * before its container hashes it. Objects of other classes count as one: a value class whose
   * {@code hashCode} walks its fields is not followed (Kryo's codec counts those too).
   *
   * <p>The {@code equals} calls of elements sharing a hash code cannot be counted before they are
   * made (a hash set inserts each element inside its own {@code readObject}, right after reading it):
   * the {@link DecodeBudget} bounds them instead. The filter is called for every object and
   * back-reference read, and {@link #resolveObject} for every object, string and array, so the budget
   * is checked between any two elements a container reads.
   */
  private final class FilteredObjectInputStream extends ObjectInputStream {
    private final IdentityHashMap<Object, Long> walks = new IdentityHashMap<>();
    private final DecodeBudget.Deadline deadline;
    private @Nullable String refusedClass;
    /** The first class the stream names: the value's own, unless it is a string or an array. */
    private @Nullable String rootClass;
    /** Whether the stream names a class outside the JDK reading its own data ({@link #CUSTOM_READS}). */
    private boolean customReads;

    FilteredObjectInputStream(InputStream in, int length, DecodeBudget.Deadline deadline)
        throws IOException {
      super(in);
      this.deadline = deadline;
      setObjectInputFilter(info -> check(info, length));
      enableResolveObject(true);
    }

    @Override
    protected Object resolveObject(Object obj) {
      deadline.check();
      long walk = 1;
      if (obj instanceof Collection<?> collection && followed(obj)) {
        for (Object element : collection) {
          walk += walkOf(element);
        }
      } else if (obj instanceof Map<?, ?> map && followed(obj)) {
        for (Map.Entry<?, ?> entry : map.entrySet()) {
          walk += walkOf(entry.getKey()) + walkOf(entry.getValue());
        }
      } else {
        return obj;
      }
      if (walk > DecodeLimits.MAX_GRAPH_VISITS) {
        throw new DecodeLimitException("decoding stopped: walking a " + obj.getClass().getName()
            + " would visit " + walk + " objects (collections sharing children; limit maxGraphVisits "
            + DecodeLimits.MAX_GRAPH_VISITS + ")");
      }
      walks.put(obj, walk);
      return obj;
    }

    private long walkOf(@Nullable Object element) {
      Long walk = element == null ? null : walks.get(element);
      return walk == null ? 1 : walk;
    }

    /** JDK collections, and any hash-based one: reading what they hold has no side effect. */
    private boolean followed(Object obj) {
      return obj.getClass().getName().startsWith("java.") || obj instanceof HashMap<?, ?>
          || obj instanceof HashSet<?> || obj instanceof Hashtable<?, ?>;
    }

    private ObjectInputFilter.Status check(ObjectInputFilter.FilterInfo info, int length) {
      deadline.check();
      if (info.depth() > MAX_DEPTH || info.references() > MAX_REFERENCES
          || info.streamBytes() > length || info.arrayLength() > length) {
        return ObjectInputFilter.Status.REJECTED;
      }
      Class<?> type = info.serialClass();
      if (type != null && !allowList.isAllowed(type)) {
        refusedClass = type.getName();
        return ObjectInputFilter.Status.REJECTED;
      }
      return ObjectInputFilter.Status.UNDECIDED;
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
      String name = desc.getName();
      if (!allowList.isAllowed(name)) {
        throw new ClassNotAllowedException(name);
      }
      if (rootClass == null) {
        rootClass = name;
      }
      try {
        Class<?> type;
        try {
          type = Class.forName(name, false, classLoader);
        } catch (ClassNotFoundException e) {
          type = super.resolveClass(desc);
        }
        customReads |= CUSTOM_READS.get(type);
        return type;
      } catch (LinkageError e) {
        // found, but its supertype or a type it names is missing here: the class path's doing
        throw new IncompatibleDataException(name, "JDK serialization: the class cannot be loaded on"
            + " this node (" + e + ")", e);
      }
    }

    @Override
    protected Class<?> resolveProxyClass(String[] interfaces) {
      // Dynamic proxies are how JDK-only gadget chains reach an InvocationHandler: never.
      throw new ClassNotAllowedException("java.lang.reflect.Proxy" + Arrays.toString(interfaces));
    }
  }
}
