package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import com.esotericsoftware.kryo.kryo5.serializers.CollectionSerializer;
import com.esotericsoftware.kryo.kryo5.serializers.CompatibleFieldSerializer;
import com.esotericsoftware.kryo.kryo5.serializers.DefaultSerializers;
import com.esotericsoftware.kryo.kryo5.serializers.MapSerializer;
import com.esotericsoftware.kryo.kryo5.util.ObjectMap;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Kryo's own collection and field serializers, bounded: a declared count is checked against the bytes
 * that remain and counted against {@link DecodeLimits} before anything is allocated, and no collection
 * is pre-sized beyond a small bound from a count the bytes declare (it grows as elements arrive).
 * Each serializer is stateless or one per Kryo instance.
 */
final class BoundedSerializers {
  private BoundedSerializers() {}

  /**
   * Fails unless {@code count} elements of at least one byte each can follow in the input, and counts
   * them against {@link DecodeLimits#MAX_ELEMENTS}.
   */
  static void requireCount(Kryo kryo, Input input, long count) {
    if (input instanceof BoundedInput bounded) {
      bounded.elements(count);
    }
    countElements(kryo, count);
  }

  /**
   * Counts elements against {@link DecodeLimits#MAX_ELEMENTS}, when reading a declared count (no byte
   * check: Kryo writes a collection of nulls as its size alone) or writing a collection.
   */
  static void countElements(Kryo kryo, long count) {
    if (kryo instanceof BoundedKryo bounded) {
      bounded.countElements(count);
    }
  }

  /**
   * Tells the Kryo that {@code container}, being read or written, hashes what it holds (a set its
   * elements, a map its keys), so that the {@code equals} calls of colliding hash codes are counted
   * ({@link DecodeLimits#MAX_COLLISION_WORK}). Sorted, identity and enum containers do not hash, nor
   * does a copy-on-write set, whose cost {@link #copyOnWrite} counts from its size.
   */
  static void hashes(Kryo kryo, Object container) {
    if (kryo instanceof BoundedKryo bounded) {
      if (container instanceof java.util.concurrent.CopyOnWriteArraySet<?>) {
        return;
      }
      if (container instanceof Set<?> && !(container instanceof SortedSet<?>)) {
        bounded.hashesChildren(container, false);
      } else if (container instanceof Map<?, ?> && !(container instanceof SortedMap<?, ?>)
          && !(container instanceof IdentityHashMap<?, ?>) && !(container instanceof EnumMap<?, ?>)) {
        bounded.hashesChildren(container, true);
      }
    }
  }

  /**
   * Counts a copy-on-write list or set ({@link BoundedKryo#countCopyOnWrite}): read element by
   * element, n of them cost n²/2 copies (and compares), whatever they are.
   */
  static void copyOnWrite(Kryo kryo, Class<?> type, int size) {
    if (kryo instanceof BoundedKryo bounded
        && (java.util.concurrent.CopyOnWriteArrayList.class.isAssignableFrom(type)
            || java.util.concurrent.CopyOnWriteArraySet.class.isAssignableFrom(type))) {
      bounded.countCopyOnWrite(size);
    }
  }

  /**
   * The capacity to create a collection with for a declared size: never more than
   * {@link DecodeLimits#PRESIZE_LIMIT}, so a lying count allocates nothing; a real one grows as its
   * elements arrive.
   */
  static int presize(int size) {
    return Math.min(size, DecodeLimits.PRESIZE_LIMIT);
  }

  /** Checks the varint count a wrapped serializer reads first before letting it allocate. */
  static final class CountGuard<T> extends Serializer<T> {
    private final Serializer<T> delegate;
    private final boolean elements;

    /** For object arrays: each element is counted against {@link DecodeLimits#MAX_ELEMENTS}. */
    CountGuard(Serializer<T> delegate) {
      this(delegate, true);
    }

    /**
     * @param elements false for primitive arrays (Kryo's serializers allocate them before reading),
     *     whose length is only checked against the bytes that remain
     */
    CountGuard(Serializer<T> delegate, boolean elements) {
      super(delegate.getAcceptsNull(), delegate.isImmutable());
      this.delegate = delegate;
      this.elements = elements;
    }

    @Override
    public void write(Kryo kryo, Output output, T object) {
      if (object instanceof Object[] array) {
        countElements(kryo, array.length);
      }
      delegate.write(kryo, output, object);
    }

    @Override
    public T read(Kryo kryo, Input input, Class<? extends T> type) {
      if (input instanceof BoundedInput bounded) {
        long count = bounded.requireCountAhead();
        if (elements) {
          countElements(kryo, count);
        }
      }
      return delegate.read(kryo, input, type);
    }
  }

  /** {@link CollectionSerializer} whose declared size is counted and never pre-sizes beyond a bound. */
  static class BoundedCollectionSerializer<T extends Collection> extends CollectionSerializer<T> {
    @Override
    public void write(Kryo kryo, Output output, T collection) {
      countElements(kryo, collection.size());
      copyOnWrite(kryo, collection.getClass(), collection.size());
      hashes(kryo, collection);
      super.write(kryo, output, collection);
    }

    @Override
    protected T create(Kryo kryo, Input input, Class<? extends T> type, int size) {
      countElements(kryo, size);
      copyOnWrite(kryo, type, size);
      T collection = super.create(kryo, input, type, presize(size));
      hashes(kryo, collection);
      return collection;
    }
  }

  /**
   * The general collection serializer for concurrent sorted collections, whose comparator it does not
   * write: one with a comparator would come back in natural order, so it is refused when written.
   */
  static final class NaturalOrderOnlySerializer extends BoundedCollectionSerializer<Collection> {
    @Override
    public void write(Kryo kryo, Output output, Collection collection) {
      Comparator<?> comparator = collection instanceof SortedSet<?> sorted ? sorted.comparator()
          : collection instanceof java.util.concurrent.PriorityBlockingQueue<?> queue
              ? queue.comparator() : null;
      if (comparator != null) {
        throw new io.lazysession.serializer.SerializationException("cannot store a "
            + collection.getClass().getName() + " with a comparator: it would be read back in"
            + " natural order; store a TreeSet or PriorityQueue, whose comparator is kept");
      }
      super.write(kryo, output, collection);
    }
  }

  /** Kryo's {@code PriorityQueue} serializer, counted and bounded like the others. */
  static final class BoundedPriorityQueueSerializer extends DefaultSerializers.PriorityQueueSerializer {
    @Override
    public void write(Kryo kryo, Output output, PriorityQueue collection) {
      countElements(kryo, collection.size());
      super.write(kryo, output, collection);
    }

    @Override
    protected PriorityQueue create(Kryo kryo, Input input, Class<? extends PriorityQueue> type, int size) {
      countElements(kryo, size);
      return super.create(kryo, input, type, Math.max(1, presize(size)));
    }
  }

  /** Kryo's {@code TreeSet} serializer (comparator kept), counted. */
  static final class BoundedTreeSetSerializer extends DefaultSerializers.TreeSetSerializer {
    @Override
    public void write(Kryo kryo, Output output, java.util.TreeSet collection) {
      countElements(kryo, collection.size());
      super.write(kryo, output, collection);
    }

    @Override
    protected java.util.TreeSet create(Kryo kryo, Input input, Class<? extends java.util.TreeSet> type,
        int size) {
      countElements(kryo, size);
      return super.create(kryo, input, type, size);
    }
  }

  /** Kryo's {@code TreeMap} serializer (comparator kept), counted. */
  static final class BoundedTreeMapSerializer extends DefaultSerializers.TreeMapSerializer {
    @Override
    public void write(Kryo kryo, Output output, TreeMap map) {
      countElements(kryo, map.size());
      super.write(kryo, output, map);
    }

    @Override
    protected TreeMap create(Kryo kryo, Input input, Class<? extends TreeMap> type, int size) {
      requireCount(kryo, input, size);
      return super.create(kryo, input, type, size);
    }
  }

  /** Kryo's {@code ConcurrentSkipListMap} serializer (comparator kept), counted. */
  static final class BoundedConcurrentSkipListMapSerializer
      extends DefaultSerializers.ConcurrentSkipListMapSerializer {
    @Override
    public void write(Kryo kryo, Output output, java.util.concurrent.ConcurrentSkipListMap map) {
      countElements(kryo, map.size());
      super.write(kryo, output, map);
    }

    @Override
    protected java.util.concurrent.ConcurrentSkipListMap create(Kryo kryo, Input input,
        Class<? extends java.util.concurrent.ConcurrentSkipListMap> type, int size) {
      requireCount(kryo, input, size);
      return super.create(kryo, input, type, size);
    }
  }

  /** {@link MapSerializer} whose declared size is counted and never pre-sizes beyond a bound. */
  static class BoundedMapSerializer<T extends Map> extends MapSerializer<T> {
    @Override
    public void write(Kryo kryo, Output output, T map) {
      countElements(kryo, map.size());
      hashes(kryo, map);
      super.write(kryo, output, map);
    }

    @Override
    protected T create(Kryo kryo, Input input, Class<? extends T> type, int size) {
      requireCount(kryo, input, size);
      T map = super.create(kryo, input, type, presize(size));
      hashes(kryo, map);
      return map;
    }
  }

  /**
   * {@link CompatibleFieldSerializer} that checks the declared field count of the schema it reads
   * first in a graph (field names, written once per class per attribute).
   */
  static final class BoundedCompatibleFieldSerializer<T> extends CompatibleFieldSerializer<T> {
    /** The field names as Kryo writes them ({@link SchemaHeader}); null if a name repeats. */
    private final byte @Nullable [] header;

    BoundedCompatibleFieldSerializer(Kryo kryo, Class<T> type, CompatibleFieldSerializerConfig config) {
      super(kryo, type, config);
      CachedField[] fields = getFields();
      String[] names = new String[fields.length];
      for (int i = 0; i < fields.length; i++) {
        names[i] = fields[i].getName();
      }
      this.header = SchemaHeader.of(names);
    }

    /**
     * Writes the header of field names itself, from bytes computed once, and marks it written in the
     * graph context the way {@code super.write} does, which then writes the values only.
     */
    @Override
    public void write(Kryo kryo, Output output, T object) {
      ObjectMap<Object, Object> context = kryo.getGraphContext();
      if (header != null && !context.containsKey(this)) {
        context.put(this, null);
        output.writeBytes(header);
      }
      super.write(kryo, output, object);
    }

    /**
     * A header equal to this version's own is consumed as bytes and stands for this class's fields in
     * their order, what Kryo's name matching would find (names are unique and Kryo orders fields by
     * name); any other header is read and matched by Kryo, so added, removed and renamed fields are
     * handled as before. The header sits right after the object's reference id: {@code super.read}
     * creates the object before it reads anything more.
     */
    @Override
    public T read(Kryo kryo, Input input, Class<? extends T> type) {
      ObjectMap<Object, Object> context = kryo.getGraphContext();
      if (context.get(this) == null && input instanceof BoundedInput bounded) {
        bounded.requireCountAhead();
        if (header != null && bounded.skipIfNext(header)) {
          context.put(this, getFields());
        }
      }
      return super.read(kryo, input, type);
    }
  }
}
