package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.KryoException;
import com.esotericsoftware.kryo.kryo5.Registration;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import java.lang.reflect.Modifier;
import java.security.cert.Certificate;
import java.util.AbstractMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Writes the JDK collections Kryo cannot rebuild — views ({@code subList}, {@code keySet()},
 * {@code values()}, {@code descendingMap()}, ...) and odd wrappers ({@code newSetFromMap},
 * {@code nCopies}, {@code checkedList}, ...) — as the plain collection a user expects back: a list as
 * {@link ArrayList}, a set as {@link LinkedHashSet}, a sorted set as {@link TreeSet} and a sorted map as
 * {@link TreeMap} with the same comparator, a map as {@link LinkedHashMap}, a queue as
 * {@link ArrayDeque}, a map entry as {@link AbstractMap.SimpleImmutableEntry}; iteration order is kept.
 *
 * <p>Such a class has no public constructor, so Kryo would name it in the bytes and later instantiate
 * it without running a constructor: a view with no backing collection, whose first use throws. Writing
 * the copy's class id instead, and the copy's encoding, leaves the read path unchanged: these bytes are
 * exactly what writing the copy gives.
 *
 * <p>A certificate of any provider's class ({@code sun.security.x509.X509CertImpl}) is written the
 * same way, as {@link Certificate}: its type and encoded form ({@link CertificateSerializer}), never
 * its own name, which no allow-list holds and no reader should load.
 *
 * <p>Which JDK classes are rebuilt as is: those registered with an id, {@link EnumSet}s, and public
 * classes with a public no-argument constructor ({@code Vector}, {@code IdentityHashMap}, ...). One per
 * Kryo instance (caches decisions per class): not thread-safe.
 */
final class CollectionCopies {
  /** Per class: its replacement, or {@link #AS_IS}. */
  private final Map<Class<?>, Object> decided = new IdentityHashMap<>();
  private static final Object AS_IS = new Object();

  /** The registration to write {@code type} with when it is replaced by a copy, or null. */
  @Nullable Registration replacement(Kryo kryo, Class<?> type) {
    Object known = decided.get(type);
    if (known == null) {
      known = decide(kryo, type);
      decided.put(type, known);
    }
    return known == AS_IS ? null : (Registration) known;
  }

  private static Object decide(Kryo kryo, Class<?> type) {
    if (type != Certificate.class && Certificate.class.isAssignableFrom(type)) {
      return kryo.getRegistration(Certificate.class);
    }
    Target target = target(kryo, type);
    if (target == null) {
      return AS_IS;
    }
    Registration real = kryo.getRegistration(target.type());
    return new Registration(target.type(), new CopyWriter(real.getSerializer(), target.copy()),
        real.getId());
  }

  /** What a class is written as: the plain type and how to copy a value into it. */
  private record Target(Class<?> type, Function<Object, Object> copy) {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static @Nullable Target target(Kryo kryo, Class<?> type) {
    boolean collection = Collection.class.isAssignableFrom(type);
    boolean map = Map.class.isAssignableFrom(type);
    boolean entry = Map.Entry.class.isAssignableFrom(type) && !collection && !map;
    if (!(collection || map || entry) || !isJdk(type) || EnumSet.class.isAssignableFrom(type)) {
      return null;
    }
    Registration registration = kryo.getClassResolver().getRegistration(type);
    if (registration != null && registration.getId() >= 0) {
      return null; // registered with its own serializer (wire format): keep
    }
    if (Modifier.isPublic(type.getModifiers()) && !Modifier.isAbstract(type.getModifiers())
        && hasPublicNoArgConstructor(type)) {
      return null; // Kryo rebuilds it with its constructor
    }
    if (entry) {
      if (type == AbstractMap.SimpleImmutableEntry.class || type == AbstractMap.SimpleEntry.class) {
        return null;
      }
      return new Target(AbstractMap.SimpleImmutableEntry.class,
          e -> new AbstractMap.SimpleImmutableEntry<>((Map.Entry) e));
    }
    if (SortedMap.class.isAssignableFrom(type)) {
      return new Target(TreeMap.class, m -> {
        TreeMap copy = new TreeMap(((SortedMap) m).comparator());
        copy.putAll((Map) m);
        return copy;
      });
    }
    if (map) {
      return new Target(LinkedHashMap.class, m -> new LinkedHashMap((Map) m));
    }
    if (SortedSet.class.isAssignableFrom(type)) {
      return new Target(TreeSet.class, s -> {
        TreeSet copy = new TreeSet(((SortedSet) s).comparator());
        copy.addAll((Collection) s);
        return copy;
      });
    }
    if (Set.class.isAssignableFrom(type)) {
      return new Target(LinkedHashSet.class, s -> new LinkedHashSet((Collection) s));
    }
    if (Queue.class.isAssignableFrom(type) && !List.class.isAssignableFrom(type)) {
      // queues hold no nulls (ArrayDeque's rule too), except a few that a List copy keeps
      return new Target(ArrayDeque.class, q -> ((Collection) q).contains(null)
          ? failNull(type) : new ArrayDeque((Collection) q));
    }
    return new Target(ArrayList.class, c -> new ArrayList((Collection) c));
  }

  private static Object failNull(Class<?> type) {
    throw new KryoException("a " + type.getName() + " holding null cannot be stored; copy it into"
        + " a List");
  }

  private static boolean isJdk(Class<?> type) {
    String name = type.getName();
    return type.getClassLoader() == null
        && (name.startsWith("java.util.") && name.lastIndexOf('.') == "java.util".length()
        || name.startsWith("java.util.concurrent.")
        && name.lastIndexOf('.') == "java.util.concurrent".length());
  }

  private static boolean hasPublicNoArgConstructor(Class<?> type) {
    try {
      return Modifier.isPublic(type.getConstructor().getModifiers());
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  /** Writes a copy with the copy type's own serializer; never reads (the bytes name the copy type). */
  private static final class CopyWriter extends Serializer<Object> {
    private final Serializer<Object> delegate;
    private final Function<Object, Object> copy;

    @SuppressWarnings("unchecked")
    CopyWriter(Serializer<?> delegate, Function<Object, Object> copy) {
      this.delegate = (Serializer<Object>) delegate;
      this.copy = copy;
    }

    @Override
    public void write(Kryo kryo, Output output, Object value) {
      Object plain;
      synchronized (value) { // synchronized wrappers lock on themselves; harmless for the others
        plain = copy.apply(value);
      }
      delegate.write(kryo, output, plain);
    }

    @Override
    public Object read(Kryo kryo, Input input, Class<?> type) {
      throw new UnsupportedOperationException("write only");
    }
  }
}
