package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.KryoException;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Kryo serializers for what Kryo 5 lacks or does unsafely: JDK immutable collections read with bounded
 * sizes, {@code Arrays.asList}, unmodifiable and synchronized wrappers, {@code EnumMap}, and guards that
 * check a declared count against the bytes that remain before anything is allocated.
 *
 * <p>Wrappers and immutable collections are written as their elements (never through reflection into
 * JDK internals, which Java 17 forbids without {@code --add-opens}); a wrapper is rebuilt around a fresh
 * collection of the same kind, so an application that shares the wrapped collection elsewhere in the
 * same attribute gets two collections back. Each serializer is stateless or one per Kryo instance.
 */
final class KryoSerializers {
  private KryoSerializers() {}

  /** {@code List.of}, {@code Set.of}, {@code Map.of} (nulls are impossible in them). */
  static final class ImmutableListSerializer extends BoundedSerializers.BoundedCollectionSerializer<List<Object>> {
    ImmutableListSerializer() {
      setElementsCanBeNull(false);
    }

    @Override
    protected List<Object> create(Kryo kryo, Input input, Class<? extends List<Object>> type, int size) {
      BoundedSerializers.countElements(kryo, size);
      return new ArrayList<>(BoundedSerializers.presize(size));
    }

    @Override
    public List<Object> read(Kryo kryo, Input input, Class<? extends List<Object>> type) {
      return List.copyOf(super.read(kryo, input, type));
    }
  }

  static final class ImmutableSetSerializer extends BoundedSerializers.BoundedCollectionSerializer<Set<Object>> {
    ImmutableSetSerializer() {
      setElementsCanBeNull(false);
    }

    @Override
    protected Set<Object> create(Kryo kryo, Input input, Class<? extends Set<Object>> type, int size) {
      BoundedSerializers.countElements(kryo, size);
      Set<Object> set = new LinkedHashSet<>();
      BoundedSerializers.hashes(kryo, set);
      return set;
    }

    @Override
    public Set<Object> read(Kryo kryo, Input input, Class<? extends Set<Object>> type) {
      return Set.copyOf(super.read(kryo, input, type));
    }
  }

  static final class ImmutableMapSerializer extends BoundedSerializers.BoundedMapSerializer<Map<Object, Object>> {
    ImmutableMapSerializer() {
      setKeysCanBeNull(false);
      setValuesCanBeNull(false);
    }

    @Override
    protected Map<Object, Object> create(Kryo kryo, Input input,
        Class<? extends Map<Object, Object>> type, int size) {
      BoundedSerializers.requireCount(kryo, input, size);
      Map<Object, Object> map = new LinkedHashMap<>();
      BoundedSerializers.hashes(kryo, map);
      return map;
    }

    @Override
    public Map<Object, Object> read(Kryo kryo, Input input, Class<? extends Map<Object, Object>> type) {
      return Map.copyOf(super.read(kryo, input, type));
    }
  }

  /** {@code Arrays.asList}: the list is backed by the array it reads into, so references to it work. */
  static final class ArraysAsListSerializer extends Serializer<List<Object>> {
    @Override
    public void write(Kryo kryo, Output output, List<Object> list) {
      BoundedSerializers.countElements(kryo, list.size());
      output.writeVarInt(list.size(), true);
      for (Object element : list) {
        kryo.writeClassAndObject(output, element);
      }
    }

    @Override
    public List<Object> read(Kryo kryo, Input input, Class<? extends List<Object>> type) {
      int size = input.readVarInt(true);
      BoundedSerializers.requireCount(kryo, input, size);
      Object[] elements = new Object[size];
      List<Object> list = Arrays.asList(elements);
      kryo.reference(list);
      for (int i = 0; i < size; i++) {
        elements[i] = kryo.readClassAndObject(input);
      }
      return list;
    }
  }

  /** The collection wrappers of {@link Collections}: their backing kind and how to wrap one. */
  enum Wrapper {
    UNMODIFIABLE_COLLECTION(ArrayList::new, c -> Collections.unmodifiableCollection((Collection<?>) c)),
    UNMODIFIABLE_RANDOM_ACCESS_LIST(ArrayList::new, c -> Collections.unmodifiableList((List<?>) c)),
    UNMODIFIABLE_LIST(LinkedList::new, c -> Collections.unmodifiableList((List<?>) c)),
    UNMODIFIABLE_SET(LinkedHashSet::new, c -> Collections.unmodifiableSet((Set<?>) c)),
    UNMODIFIABLE_SORTED_SET(null, c -> Collections.unmodifiableSortedSet((TreeSet<?>) c)),
    UNMODIFIABLE_NAVIGABLE_SET(null, c -> Collections.unmodifiableNavigableSet((TreeSet<?>) c)),
    UNMODIFIABLE_MAP(LinkedHashMap::new, m -> Collections.unmodifiableMap((Map<?, ?>) m)),
    UNMODIFIABLE_SORTED_MAP(null, m -> Collections.unmodifiableSortedMap((TreeMap<?, ?>) m)),
    UNMODIFIABLE_NAVIGABLE_MAP(null, m -> Collections.unmodifiableNavigableMap((TreeMap<?, ?>) m)),
    SYNCHRONIZED_COLLECTION(ArrayList::new, c -> Collections.synchronizedCollection((Collection<?>) c)),
    SYNCHRONIZED_RANDOM_ACCESS_LIST(ArrayList::new, c -> Collections.synchronizedList((List<?>) c)),
    SYNCHRONIZED_LIST(LinkedList::new, c -> Collections.synchronizedList((List<?>) c)),
    SYNCHRONIZED_SET(LinkedHashSet::new, c -> Collections.synchronizedSet((Set<?>) c)),
    SYNCHRONIZED_SORTED_SET(null, c -> Collections.synchronizedSortedSet((TreeSet<?>) c)),
    SYNCHRONIZED_NAVIGABLE_SET(null, c -> Collections.synchronizedNavigableSet((TreeSet<?>) c)),
    SYNCHRONIZED_MAP(LinkedHashMap::new, m -> Collections.synchronizedMap((Map<?, ?>) m)),
    SYNCHRONIZED_SORTED_MAP(null, m -> Collections.synchronizedSortedMap((TreeMap<?, ?>) m)),
    SYNCHRONIZED_NAVIGABLE_MAP(null, m -> Collections.synchronizedNavigableMap((TreeMap<?, ?>) m));

    /** Creates the backing collection; null for sorted kinds, which need the comparator. */
    private final Supplier<Object> backing;
    private final Function<Object, Object> wrap;

    Wrapper(Supplier<Object> backing, Function<Object, Object> wrap) {
      this.backing = backing;
      this.wrap = wrap;
    }

    boolean sorted() {
      return backing == null;
    }

    boolean map() {
      return name().endsWith("MAP");
    }

    /** The runtime class of this wrapper, from an empty example. */
    Class<?> type() {
      Object inner = sorted() ? (map() ? new TreeMap<>() : new TreeSet<>()) : backing.get();
      return wrap.apply(inner).getClass();
    }

    Object newBacking(Comparator<?> comparator) {
      if (!sorted()) {
        return backing.get();
      }
      return map() ? new TreeMap<>(comparator) : new TreeSet<>(comparator);
    }

    Object wrap(Object backing) {
      return wrap.apply(backing);
    }
  }

  /** Writes a wrapper as (comparator,) size and elements; reads a new backing collection and wraps it. */
  static final class WrapperSerializer extends Serializer<Object> {
    private final Wrapper kind;

    WrapperSerializer(Wrapper kind) {
      this.kind = kind;
    }

    @Override
    public void write(Kryo kryo, Output output, Object wrapper) {
      synchronized (wrapper) { // the lock synchronized wrappers use; harmless for the others
        BoundedSerializers.hashes(kryo, wrapper);
        if (kind.sorted()) {
          kryo.writeClassAndObject(output, wrapper instanceof SortedMap<?, ?> m ? m.comparator()
              : ((SortedSet<?>) wrapper).comparator());
        }
        if (kind.map()) {
          Map<?, ?> map = (Map<?, ?>) wrapper;
          BoundedSerializers.countElements(kryo, map.size());
          output.writeVarInt(map.size(), true);
          for (Map.Entry<?, ?> e : map.entrySet()) {
            kryo.writeClassAndObject(output, e.getKey());
            kryo.writeClassAndObject(output, e.getValue());
          }
        } else {
          Collection<?> collection = (Collection<?>) wrapper;
          BoundedSerializers.countElements(kryo, collection.size());
          output.writeVarInt(collection.size(), true);
          for (Object element : collection) {
            kryo.writeClassAndObject(output, element);
          }
        }
      }
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object read(Kryo kryo, Input input, Class<?> type) {
      Comparator<Object> comparator = null;
      if (kind.sorted()) {
        Object read = kryo.readClassAndObject(input);
        if (read != null && !(read instanceof Comparator)) {
          throw new KryoException("sorted wrapper comparator is a " + read.getClass().getName());
        }
        comparator = (Comparator<Object>) read;
      }
      Object backing = kind.newBacking(comparator);
      Object wrapper = kind.wrap(backing);
      kryo.reference(wrapper);
      BoundedSerializers.hashes(kryo, backing);
      int size = input.readVarInt(true);
      BoundedSerializers.requireCount(kryo, input, size);
      for (int i = 0; i < size; i++) {
        if (kind.map()) {
          Object key = kryo.readClassAndObject(input);
          ((Map<Object, Object>) backing).put(key, kryo.readClassAndObject(input));
        } else {
          ((Collection<Object>) backing).add(kryo.readClassAndObject(input));
        }
      }
      return wrapper;
    }
  }

  /** A map entry as key then value; read as the immutable or the mutable JDK entry. */
  static final class EntrySerializer extends Serializer<Map.Entry<Object, Object>> {
    private final boolean immutable;

    EntrySerializer(boolean immutable) {
      this.immutable = immutable;
    }

    @Override
    public void write(Kryo kryo, Output output, Map.Entry<Object, Object> entry) {
      kryo.writeClassAndObject(output, entry.getKey());
      kryo.writeClassAndObject(output, entry.getValue());
    }

    @Override
    public Map.Entry<Object, Object> read(Kryo kryo, Input input,
        Class<? extends Map.Entry<Object, Object>> type) {
      Object key = kryo.readClassAndObject(input);
      Object value = kryo.readClassAndObject(input);
      return immutable ? new AbstractMap.SimpleImmutableEntry<>(key, value)
          : new AbstractMap.SimpleEntry<>(key, value);
    }
  }

  /** {@link EnumMap}: key enum class, size, then entries (keys by name, like every enum here). */
  @SuppressWarnings({"rawtypes", "unchecked"})
  static final class EnumMapSerializer extends Serializer<EnumMap> {
    @Override
    public void write(Kryo kryo, Output output, EnumMap map) {
      Class keyType = keyType(map);
      kryo.writeClass(output, keyType);
      BoundedSerializers.countElements(kryo, map.size());
      output.writeVarInt(map.size(), true);
      Serializer keySerializer = kryo.getSerializer(keyType);
      for (Object o : map.entrySet()) {
        Map.Entry e = (Map.Entry) o;
        keySerializer.write(kryo, output, e.getKey());
        kryo.writeClassAndObject(output, e.getValue());
      }
    }

    @Override
    public EnumMap read(Kryo kryo, Input input, Class<? extends EnumMap> type) {
      Class keyType = kryo.readClass(input).getType();
      if (!keyType.isEnum()) {
        throw new KryoException("EnumMap key type " + keyType.getName() + " is not an enum");
      }
      EnumMap map = new EnumMap(keyType);
      kryo.reference(map);
      int size = input.readVarInt(true);
      BoundedSerializers.requireCount(kryo, input, size);
      Serializer keySerializer = kryo.getSerializer(keyType);
      for (int i = 0; i < size; i++) {
        Object key = keySerializer.read(kryo, input, keyType);
        map.put(key, kryo.readClassAndObject(input));
      }
      return map;
    }

    /**
     * The key type: from a key, or for an empty map from its JDK serialized form, the only public way
     * to see it without opening java.util to reflection. Runs on our own value when writing, never on
     * bytes read.
     */
    static Class keyType(EnumMap map) {
      if (!map.isEmpty()) {
        return ((Enum) map.keySet().iterator().next()).getDeclaringClass();
      }
      try {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
          out.writeObject(map);
        }
        Class[] found = new Class[1];
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray())) {
          @Override
          protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            if (!desc.getName().equals(EnumMap.class.getName())) {
              Class<?> c = Class.forName(desc.getName(), false, map.getClass().getClassLoader() == null
                  ? Thread.currentThread().getContextClassLoader() : map.getClass().getClassLoader());
              if (c.isEnum() && found[0] == null) {
                found[0] = c;
                throw new IOException("found");
              }
              return c;
            }
            return super.resolveClass(desc);
          }
        }) {
          in.readObject();
        } catch (IOException expected) {
          // stopped as soon as the key type was seen
        }
        if (found[0] == null) {
          throw new KryoException("cannot find the key type of an empty EnumMap");
        }
        return found[0];
      } catch (IOException | ClassNotFoundException e) {
        throw new KryoException("cannot find the key type of an empty EnumMap", e);
      }
    }
  }
}
