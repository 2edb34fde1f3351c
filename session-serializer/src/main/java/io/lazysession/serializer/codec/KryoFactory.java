package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.SerializerFactory;
import com.esotericsoftware.kryo.kryo5.io.Output;
import com.esotericsoftware.kryo.kryo5.objenesis.strategy.StdInstantiatorStrategy;
import com.esotericsoftware.kryo.kryo5.serializers.CompatibleFieldSerializer;
import com.esotericsoftware.kryo.kryo5.serializers.DefaultArraySerializers;
import com.esotericsoftware.kryo.kryo5.serializers.DefaultSerializers;
import com.esotericsoftware.kryo.kryo5.serializers.EnumNameSerializer;
import com.esotericsoftware.kryo.kryo5.util.DefaultInstantiatorStrategy;
import io.lazysession.serializer.ClassAllowList;
import java.util.AbstractMap;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Builds configured Kryo instances. The class ids registered here are part of the wire format: never
 * renumber or remove one, only append (golden vectors in the tests pin them).
 */
final class KryoFactory {
  static final byte[] EMPTY = new byte[0];

  /** Deepest object nesting accepted; deeper graphs fail instead of overflowing the stack. */
  static final int MAX_DEPTH = DecodeLimits.MAX_DEPTH;

  /**
   * Class evolution: field names are written once per class per attribute and every field value with
   * its class, so a reader skips fields it no longer has (reading them by their class) and leaves new
   * ones at their default. Not chunked: chunked reads go through a separate {@code InputChunked} that
   * would escape the {@link BoundedInput} checks.
   */
  private static final CompatibleFieldSerializer.CompatibleFieldSerializerConfig COMPATIBLE =
      new CompatibleFieldSerializer.CompatibleFieldSerializerConfig();

  static {
    COMPATIBLE.setChunkedEncoding(false);
    COMPATIBLE.setReadUnknownFieldData(true);
  }

  private KryoFactory() {}

  /** A Kryo instance with its buffers; used by one thread at a time. */
  record PooledKryo(Kryo kryo, Output output, BoundedInput input) {}

  static PooledKryo create(ClassAllowList allowList, ClassLoader classLoader, int maxPayloadBytes) {
    return create(allowList, classLoader, maxPayloadBytes, true);
  }

  /**
   * @param compatible false only to measure what class evolution costs: plain {@code FieldSerializer},
   *     whose bytes break when a field is added or removed
   */
  static PooledKryo create(ClassAllowList allowList, ClassLoader classLoader, int maxPayloadBytes,
      boolean compatible) {
    return create(allowList, classLoader, maxPayloadBytes, compatible, false);
  }

  /** @param requireSerializable refuse to write objects of classes that are not Serializable */
  static PooledKryo create(ClassAllowList allowList, ClassLoader classLoader, int maxPayloadBytes,
      boolean compatible, boolean requireSerializable) {
    Kryo kryo = new BoundedKryo(new AllowListClassResolver(allowList, requireSerializable));
    kryo.setRegistrationRequired(false);
    kryo.setWarnUnregisteredClasses(false);
    kryo.setReferences(true);
    kryo.setClassLoader(classLoader);
    kryo.setMaxDepth(MAX_DEPTH);
    kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));

    if (compatible) {
      kryo.setDefaultSerializer(new SerializerFactory.BaseSerializerFactory<>() {
        @Override
        public Serializer newSerializer(Kryo k, Class type) {
          return new BoundedSerializers.BoundedCompatibleFieldSerializer<>(k, type, COMPATIBLE);
        }
      });
    }
    kryo.addDefaultSerializer(Enum.class, EnumNameSerializer.class);
    // A Class value is a reference to a class by name, checked as such (ClassReferences).
    kryo.addDefaultSerializer(Class.class, new ClassReferences.ClassValueSerializer());
    // Throwable's fields are closed to reflection on Java 17: exceptions travel as their public state.
    kryo.addDefaultSerializer(Throwable.class, new ThrowableSerializer());
    // java.sql.Timestamp is millis and nanos: Kryo's Date serializer, which it would otherwise get,
    // keeps only the millis. Guarded: a runtime image without java.sql has no Timestamp to write.
    if (ModuleLayer.boot().findModule("java.sql").isPresent()) {
      kryo.addDefaultSerializer(java.sql.Timestamp.class, DefaultSerializers.TimestampSerializer.class);
    }
    if (compatible) {
      kryo.addDefaultSerializer(Record.class, new SerializerFactory.BaseSerializerFactory<>() {
        @Override
        public Serializer newSerializer(Kryo k, Class type) {
          return new CompatibleRecordSerializer<>(type);
        }
      });
    }
    kryo.addDefaultSerializer(Collection.class, new SerializerFactory.BaseSerializerFactory<>() {
      @Override
      public Serializer newSerializer(Kryo k, Class type) {
        return FieldKeepingCheck.wrap(type, new BoundedSerializers.BoundedCollectionSerializer<>());
      }
    });
    kryo.addDefaultSerializer(Map.class, new SerializerFactory.BaseSerializerFactory<>() {
      @Override
      public Serializer newSerializer(Kryo k, Class type) {
        return FieldKeepingCheck.wrap(type, new BoundedSerializers.BoundedMapSerializer<>());
      }
    });
    // Kryo's own serializers for these, which the two general ones above would otherwise shadow.
    kryo.addDefaultSerializer(EnumSet.class, DefaultSerializers.EnumSetSerializer.class);
    // (same bytes as Kryo's, with their declared sizes counted)
    kryo.addDefaultSerializer(TreeSet.class, factory(BoundedSerializers.BoundedTreeSetSerializer::new));
    kryo.addDefaultSerializer(TreeMap.class, factory(BoundedSerializers.BoundedTreeMapSerializer::new));
    kryo.addDefaultSerializer(ConcurrentSkipListMap.class,
        factory(BoundedSerializers.BoundedConcurrentSkipListMapSerializer::new));
    kryo.addDefaultSerializer(Collections.emptyList().getClass(),
        DefaultSerializers.CollectionsEmptyListSerializer.class);
    kryo.addDefaultSerializer(Collections.emptySet().getClass(),
        DefaultSerializers.CollectionsEmptySetSerializer.class);
    kryo.addDefaultSerializer(Collections.emptyMap().getClass(),
        DefaultSerializers.CollectionsEmptyMapSerializer.class);
    kryo.addDefaultSerializer(Collections.singletonList(1).getClass(),
        DefaultSerializers.CollectionsSingletonListSerializer.class);
    kryo.addDefaultSerializer(Collections.singleton(1).getClass(),
        DefaultSerializers.CollectionsSingletonSetSerializer.class);
    kryo.addDefaultSerializer(Collections.singletonMap(1, 1).getClass(),
        DefaultSerializers.CollectionsSingletonMapSerializer.class);
    kryo.addDefaultSerializer(java.util.concurrent.ConcurrentSkipListSet.class,
        factory(BoundedSerializers.NaturalOrderOnlySerializer::new));
    kryo.addDefaultSerializer(java.util.concurrent.PriorityBlockingQueue.class,
        factory(BoundedSerializers.NaturalOrderOnlySerializer::new));
    kryo.addDefaultSerializer(PriorityQueue.class, factory(BoundedSerializers.BoundedPriorityQueueSerializer::new));
    kryo.addDefaultSerializer(Object[].class, new SerializerFactory.BaseSerializerFactory<>() {
      @Override
      public Serializer newSerializer(Kryo k, Class type) {
        return new BoundedSerializers.CountGuard<>(new DefaultArraySerializers.ObjectArraySerializer(k, type));
      }
    });
    kryo.addDefaultSerializer(String[].class,
        new BoundedSerializers.CountGuard<>(new DefaultArraySerializers.StringArraySerializer()));
    // Kryo's primitive array serializers allocate the declared length before reading: check it first
    kryo.addDefaultSerializer(byte[].class,
        new BoundedSerializers.CountGuard<>(new DefaultArraySerializers.ByteArraySerializer(), false));
    kryo.addDefaultSerializer(boolean[].class,
        new BoundedSerializers.CountGuard<>(new DefaultArraySerializers.BooleanArraySerializer(), false));
    kryo.addDefaultSerializer(char[].class,
        new BoundedSerializers.CountGuard<>(new DefaultArraySerializers.CharArraySerializer(), false));
    kryo.addDefaultSerializer(short[].class,
        new BoundedSerializers.CountGuard<>(new DefaultArraySerializers.ShortArraySerializer(), false));
    kryo.addDefaultSerializer(int[].class,
        new BoundedSerializers.CountGuard<>(new DefaultArraySerializers.IntArraySerializer(), false));
    kryo.addDefaultSerializer(long[].class,
        new BoundedSerializers.CountGuard<>(new DefaultArraySerializers.LongArraySerializer(), false));
    kryo.addDefaultSerializer(float[].class,
        new BoundedSerializers.CountGuard<>(new DefaultArraySerializers.FloatArraySerializer(), false));
    kryo.addDefaultSerializer(double[].class,
        new BoundedSerializers.CountGuard<>(new DefaultArraySerializers.DoubleArraySerializer(), false));
    kryo.addDefaultSerializer(UUID.class, new DefaultSerializers.UUIDSerializer());
    // Map entries: JDK internals are closed to reflection, and entry views are written as these
    kryo.addDefaultSerializer(AbstractMap.SimpleImmutableEntry.class,
        new KryoSerializers.EntrySerializer(true));
    kryo.addDefaultSerializer(AbstractMap.SimpleEntry.class, new KryoSerializers.EntrySerializer(false));

    KryoRegistrations.register(kryo);
    return new PooledKryo(kryo, newOutput(maxPayloadBytes), new BoundedInput());
  }

  /** A factory making a new serializer per class, from a package-private serializer type. */
  private static SerializerFactory<Serializer> factory(java.util.function.Supplier<Serializer> supplier) {
    return new SerializerFactory.BaseSerializerFactory<>() {
      @Override
      public Serializer newSerializer(Kryo k, Class type) {
        return supplier.get();
      }
    };
  }

  static PooledKryo withFreshOutput(PooledKryo pooled, int maxPayloadBytes) {
    return new PooledKryo(pooled.kryo(), newOutput(maxPayloadBytes), pooled.input());
  }

  private static Output newOutput(int maxPayloadBytes) {
    return new Output(512, maxPayloadBytes);
  }
}
