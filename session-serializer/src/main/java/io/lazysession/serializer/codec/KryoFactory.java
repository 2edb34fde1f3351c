package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.io.Output;
import com.esotericsoftware.kryo.kryo5.objenesis.strategy.StdInstantiatorStrategy;
import com.esotericsoftware.kryo.kryo5.serializers.CompatibleFieldSerializer;
import com.esotericsoftware.kryo.kryo5.serializers.EnumNameSerializer;
import com.esotericsoftware.kryo.kryo5.util.DefaultInstantiatorStrategy;
import com.esotericsoftware.kryo.kryo5.util.MapReferenceResolver;
import com.esotericsoftware.kryo.kryo5.SerializerFactory;

/**
 * Builds configured Kryo instances. The class ids registered here are part of the wire format: never
 * renumber or remove one, only append (golden vectors in the tests pin them).
 */
final class KryoFactory {
  static final byte[] EMPTY = new byte[0];

  /** Deepest object nesting accepted; deeper graphs fail instead of overflowing the stack. */
  static final int MAX_DEPTH = 512;

  private KryoFactory() {}

  /** A Kryo instance with its buffers; used by one thread at a time. */
  record PooledKryo(Kryo kryo, Output output, BoundedInput input) {}

  static PooledKryo create(ClassAllowList allowList, ClassLoader classLoader, int maxPayloadBytes) {
    Kryo kryo = new Kryo(new AllowListClassResolver(allowList), new MapReferenceResolver());
    kryo.setRegistrationRequired(false);
    kryo.setWarnUnregisteredClasses(false);
    kryo.setReferences(true);
    kryo.setClassLoader(classLoader);
    kryo.setMaxDepth(MAX_DEPTH);
    kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));

    CompatibleFieldSerializer.CompatibleFieldSerializerConfig config =
        new CompatibleFieldSerializer.CompatibleFieldSerializerConfig();
    config.setChunkedEncoding(true);
    config.setReadUnknownFieldData(false);
    kryo.setDefaultSerializer(new SerializerFactory.CompatibleFieldSerializerFactory(config));
    kryo.addDefaultSerializer(Enum.class, EnumNameSerializer.class);

    KryoRegistrations.register(kryo);
    return new PooledKryo(kryo, newOutput(maxPayloadBytes), new BoundedInput());
  }

  static PooledKryo withFreshOutput(PooledKryo pooled, int maxPayloadBytes) {
    return new PooledKryo(pooled.kryo(), newOutput(maxPayloadBytes), pooled.input());
  }

  private static Output newOutput(int maxPayloadBytes) {
    return new Output(512, maxPayloadBytes);
  }
}
