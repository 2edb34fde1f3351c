package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.KryoException;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * Kryo writes a {@code Map} or {@code Collection} through its entries or elements only, so a
 * subclass that adds fields of its own (Spring MVC's {@code FlashMap}: its target path and
 * parameters) would lose them without a word. Such a class is refused when writing, which makes the
 * serializer store it with Java serialization instead (see {@code CodecFallback}), keeping every
 * field; reading is left to the usual serializer, so that values written before still read.
 * Stateless and thread-safe.
 */
final class FieldKeepingCheck {
  private FieldKeepingCheck() {}

  /** {@code serializer}, or a wrapper refusing to write when {@code type} has fields it would lose. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  static Serializer wrap(Class<?> type, Serializer serializer) {
    if (!hasOwnFields(type)) {
      return serializer;
    }
    return new Serializer(serializer.getAcceptsNull(), serializer.isImmutable()) {
      @Override
      public void write(Kryo kryo, Output output, Object object) {
        throw new KryoException(type.getTypeName() + " adds fields to a " + (java.util.Map.class
            .isAssignableFrom(type) ? "Map" : "Collection") + ", which Kryo's serializer of its "
            + "entries would not keep");
      }

      @Override
      public Object read(Kryo kryo, Input input, Class type) {
        return serializer.read(kryo, input, type);
      }
    };
  }

  /** Whether a class below the JDK declares instance fields that are not transient. */
  private static boolean hasOwnFields(Class<?> type) {
    for (Class<?> c = type; c != null && !c.getName().startsWith("java."); c = c.getSuperclass()) {
      for (Field field : c.getDeclaredFields()) {
        int modifiers = field.getModifiers();
        if (!Modifier.isStatic(modifiers) && !Modifier.isTransient(modifiers)) {
          return true;
        }
      }
    }
    return false;
  }
}
