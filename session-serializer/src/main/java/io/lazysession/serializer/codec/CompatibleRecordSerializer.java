package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.KryoException;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * A record serializer that survives components being added or removed between deploys, in the same
 * way as Kryo's {@code CompatibleFieldSerializer} with {@code readUnknownFieldData}: the first record of
 * a class in an attribute writes the component names, then each component is written with its class, so
 * a reader skips the components it no longer has and gives absent ones their default (null, 0, false)
 * before calling the canonical constructor. Kryo's own {@code RecordSerializer} writes components by
 * position only, so any change to a record breaks stored bytes.
 *
 * <p>One instance per Kryo instance and record class: not thread-safe, like Kryo.
 */
final class CompatibleRecordSerializer<T> extends Serializer<T> {
  private final Class<T> type;
  private final String[] names;
  private final Class<?>[] types;
  /** Per component: its type boxed (what a stored value must be), and its default when absent. */
  private final Class<?>[] boxedTypes;
  private final Object[] defaults;
  private final Method[] accessors;
  private final Constructor<T> constructor;
  private final Map<String, Integer> indexByName = new HashMap<>();
  /** The component names as written (see {@link SchemaHeader}); never null, names are unique. */
  private final byte[] header;
  /** The schema read from this version's own header: component i is stored i-th. */
  private final int[] ownSchema;

  CompatibleRecordSerializer(Class<T> type) {
    super(false, true);
    this.type = type;
    RecordComponent[] components = type.getRecordComponents();
    this.names = new String[components.length];
    this.types = new Class<?>[components.length];
    this.boxedTypes = new Class<?>[components.length];
    this.defaults = new Object[components.length];
    this.accessors = new Method[components.length];
    for (int i = 0; i < components.length; i++) {
      names[i] = components[i].getName();
      types[i] = components[i].getType();
      boxedTypes[i] = types[i].isPrimitive() ? box(types[i]) : types[i];
      defaults[i] = defaultValue(types[i]);
      accessors[i] = components[i].getAccessor();
      accessors[i].setAccessible(true);
      indexByName.put(names[i], i);
    }
    this.header = Objects.requireNonNull(SchemaHeader.of(names));
    this.ownSchema = IntStream.range(0, names.length).toArray();
    try {
      this.constructor = type.getDeclaredConstructor(types);
      constructor.setAccessible(true);
    } catch (NoSuchMethodException e) {
      throw new KryoException("record " + type.getName() + " has no canonical constructor", e);
    }
  }

  @Override
  public void write(Kryo kryo, Output output, T record) {
    if (kryo.getGraphContext().get(this) == null) {
      kryo.getGraphContext().put(this, names);
      output.writeBytes(header); // the count and each name, as writeVarInt and writeString write them
    }
    for (Method accessor : accessors) {
      Object value;
      try {
        value = accessor.invoke(record);
      } catch (IllegalAccessException | InvocationTargetException e) {
        throw new KryoException("cannot read " + type.getName() + "." + accessor.getName(), e);
      }
      kryo.writeClassAndObject(output, value);
    }
  }

  @Override
  public T read(Kryo kryo, Input input, Class<? extends T> ignored) {
    int[] schema = (int[]) kryo.getGraphContext().get(this);
    if (schema == null && input instanceof BoundedInput bounded && bounded.skipIfNext(header)) {
      schema = ownSchema; // stored by this version of the record: no name to decode
      kryo.getGraphContext().put(this, schema);
    }
    if (schema == null) {
      int count = input.readVarInt(true);
      if (input instanceof BoundedInput bounded) {
        bounded.require(count, 1); // field names, not elements
      }
      schema = new int[count];
      for (int i = 0; i < count; i++) {
        Integer index = indexByName.get(input.readString());
        schema[i] = index == null ? -1 : index;
      }
      kryo.getGraphContext().put(this, schema);
    }
    Object[] values = defaults.clone();
    for (int index : schema) {
      Object value = kryo.readClassAndObject(input);
      if (index >= 0 && value != null) {
        if (!boxedTypes[index].isInstance(value)) {
          throw new KryoException("stored component of type " + value.getClass().getName()
              + " does not fit " + types[index].getName() + " in " + type.getName());
        }
        values[index] = value;
      }
    }
    try {
      T record = constructor.newInstance(values);
      kryo.reference(record);
      return record;
    } catch (InvocationTargetException e) {
      throw new KryoException("constructor of " + type.getName() + " refused the stored components: "
          + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException | IllegalArgumentException e) {
      throw new KryoException("cannot construct " + type.getName() + ": " + e, e);
    }
  }

  private static Object defaultValue(Class<?> type) {
    if (!type.isPrimitive()) {
      return null;
    }
    if (type == boolean.class) {
      return false;
    }
    if (type == char.class) {
      return '\0';
    }
    if (type == long.class) {
      return 0L;
    }
    if (type == float.class) {
      return 0f;
    }
    if (type == double.class) {
      return 0d;
    }
    if (type == byte.class) {
      return (byte) 0;
    }
    if (type == short.class) {
      return (short) 0;
    }
    return 0;
  }

  private static Class<?> box(Class<?> primitive) {
    return java.lang.invoke.MethodType.methodType(primitive).wrap().returnType();
  }
}
