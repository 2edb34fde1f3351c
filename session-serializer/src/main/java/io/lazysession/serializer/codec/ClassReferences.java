package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import com.esotericsoftware.kryo.kryo5.serializers.ImmutableSerializer;
import com.esotericsoftware.kryo.kryo5.util.Util;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.ClassNotAllowedException;
import io.lazysession.serializer.SerializationException;
import java.lang.reflect.Proxy;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A {@code java.lang.Class} value (Spring's destruction callback holds {@code PreDestroy.class}; an
 * application keeps a {@code Class<?>} in a record) is a reference to a class by its name, not an
 * object of that class: both codecs check it by the rules for names ({@link #check}), so that what is
 * stored is what any node can read back. Java serialization stores any {@code Class}, whatever class
 * it names, so no {@code Serializable} check applies to the class named.
 *
 * <p>Reading one never widens what bytes can make a node do: the named class is allowed by name
 * before it is loaded (an array by its element class; primitives always), is loaded without running
 * its static initializer, and Kryo builds no serializer for it ({@link
 * AllowListClassResolver#readClassReference}). The JDK codec's stream does the same through its
 * {@code resolveClass} and filter; the JDK itself reads a serializable class's declared
 * {@code serialVersionUID}, which initializes that class, for a {@code Class} value as for an object.
 * Stateless: thread-safe.
 */
final class ClassReferences {
  /** For Kryo's name writing, which asks a registration only whether the name is ASCII. */
  static final Serializer<Object> NAME_ONLY = new Serializer<>() {
    @Override
    public void write(Kryo kryo, Output output, Object object) {
      throw new UnsupportedOperationException("names a class only");
    }

    @Override
    public Object read(Kryo kryo, Input input, Class<?> type) {
      throw new UnsupportedOperationException("names a class only");
    }
  };

  private static final Map<String, Class<?>> PRIMITIVES = Map.of("boolean", boolean.class,
      "byte", byte.class, "char", char.class, "short", short.class, "int", int.class,
      "long", long.class, "float", float.class, "double", double.class, "void", void.class);

  private ClassReferences() {}

  /** The primitive class of this name, or null: {@code Class.forName} finds none of them. */
  static @Nullable Class<?> primitive(String name) {
    return PRIMITIVES.get(name);
  }

  /**
   * Refuses a class that could not be named in stored bytes and read back: outside the allow-list by
   * its name (an array by its element class), a dynamic proxy, a lambda or another hidden class.
   */
  static void check(ClassAllowList allowList, Class<?> type) {
    Class<?> element = type;
    while (element.isArray()) {
      element = element.getComponentType();
    }
    if (element.isHidden() || Proxy.isProxyClass(element)) {
      throw new SerializationException("cannot store the class " + type.getTypeName() + " as a "
          + "value: a lambda, proxy or other hidden class cannot be found by name when read back");
    }
    if (!allowList.isAllowed(type.getName())) {
      throw new ClassNotAllowedException(type.getName());
    }
  }

  /**
   * Kryo's serializer for {@code Class} values, with the bytes of Kryo's own {@code ClassSerializer}
   * (the class, then for a primitive or its wrapper whether it is the primitive), so that values
   * stored before read the same. Stateless: one may serve any number of Kryo instances.
   */
  @SuppressWarnings("rawtypes")
  static final class ClassValueSerializer extends ImmutableSerializer<Class> {
    ClassValueSerializer() {
      setAcceptsNull(true);
    }

    @Override
    public void write(Kryo kryo, Output output, @Nullable Class type) {
      if (type == null) {
        output.writeByte(Kryo.NULL);
        return;
      }
      ((AllowListClassResolver) kryo.getClassResolver()).writeClassReference(output, type);
      if (type.isPrimitive() || Util.isWrapperClass(type)) {
        output.writeBoolean(type.isPrimitive());
      }
    }

    @Override
    public @Nullable Class read(Kryo kryo, Input input, Class<? extends Class> ignored) {
      Class<?> type = ((AllowListClassResolver) kryo.getClassResolver()).readClassReference(input);
      if (type == null || !type.isPrimitive() || input.readBoolean()) {
        return type;
      }
      return Util.getWrapperClass(type);
    }
  }
}
