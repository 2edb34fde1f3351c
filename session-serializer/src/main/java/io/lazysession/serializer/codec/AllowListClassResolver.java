package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.KryoException;
import com.esotericsoftware.kryo.kryo5.Registration;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import com.esotericsoftware.kryo.kryo5.util.DefaultClassResolver;
import com.esotericsoftware.kryo.kryo5.util.IntMap;
import com.esotericsoftware.kryo.kryo5.util.ObjectMap;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.ClassNotAllowedException;
import io.lazysession.serializer.IncompatibleDataException;
import io.lazysession.serializer.SerializationException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A Kryo class resolver that refuses, by name and before {@code Class.forName}, any class outside the
 * allow-list. Classes registered with an id in {@link KryoFactory} are JDK value types and never reach
 * the name path. Writing refuses them too, so a value that could not be read back is never stored: so
 * are lambdas and other hidden classes, whose names no class loader resolves, and JDK collection views
 * are written as the plain collection they show ({@link CollectionCopies}). One per Kryo instance, like
 * Kryo itself: not thread-safe.
 */
final class AllowListClassResolver extends DefaultClassResolver {
  private final ClassAllowList allowList;
  /** Refuse to write what JDK serialization could not write either: see {@link io.lazysession.serializer.NotSerializableException}. */
  private final boolean requireSerializable;
  private final CollectionCopies copies = new CollectionCopies();
  private final KnownClassNames known = new KnownClassNames();
  /**
   * Classes that passed {@link #writeName}'s checks: the allow-list never changes, so each class is
   * checked once per instance rather than at every value of it written.
   */
  private final Set<Class<?>> writable = Collections.newSetFromMap(new IdentityHashMap<>());
  /** Classes that passed the checks of a {@code Class} value, as {@link #writable} for objects. */
  private final Set<Class<?>> references = Collections.newSetFromMap(new IdentityHashMap<>());
  /** Classes outside the JDK read by name: their serializer, not the bytes, says where they end. */
  private long applicationClassesRead;

  AllowListClassResolver(ClassAllowList allowList) {
    this(allowList, false);
  }

  AllowListClassResolver(ClassAllowList allowList, boolean requireSerializable) {
    this.allowList = allowList;
    this.requireSerializable = requireSerializable;
  }

  /**
   * Kryo caches a class by name only after this method returned null for it and the class was then
   * loaded, which happens only once the name passed the allow-list: a cached name needs no new check.
   */
  @Override
  protected Class<?> getTypeByName(String className) {
    Class<?> cached = super.getTypeByName(className);
    if (cached != null) {
      return cached;
    }
    if (!allowList.isAllowed(className)) {
      throw new ClassNotAllowedException(className);
    }
    return super.getTypeByName(className);
  }

  /**
   * Kryo's own reading of a class name (an id per name within a graph, the name itself the first
   * time), except that a name this resolver has resolved before is recognised by its bytes
   * ({@link KnownClassNames}) instead of being decoded and looked up again.
   *
   * <p>A class that is found but cannot be loaded or set up here (a supertype or field type missing
   * from this node's class path, a static initializer that fails: any {@link LinkageError}) is
   * {@link IncompatibleDataException} naming it: the error comes from this node's class path, not
   * from the bytes nor from the JVM's health, and a node with the missing jar reads them.
   */
  @Override
  protected Registration readName(Input input) {
    return registration(readNamedType(input));
  }

  /** The class a name (or a name id) in the bytes stands for, allowed, loaded but not initialized. */
  private Class<?> readNamedType(Input input) {
    int nameId = input.readVarInt(true);
    if (nameIdToClass == null) {
      nameIdToClass = new IntMap<>();
    }
    Class<?> type = nameIdToClass.get(nameId);
    if (type != null) {
      return type;
    }
    int at = input.position();
    int length = KnownClassNames.asciiLength(input.getBuffer(), at, input.limit());
    if (length > 0) {
      type = known.find(input.getBuffer(), at, length);
      if (type != null) {
        input.setPosition(at + length);
        nameIdToClass.put(nameId, type);
        countApplicationClass(type);
        return type;
      }
    }
    String className = input.readString();
    try {
      type = getTypeByName(className);
      if (type == null) {
        type = load(className);
        if (nameToClass == null) {
          nameToClass = new ObjectMap<>();
        }
        nameToClass.put(className, type);
      }
    } catch (LinkageError e) {
      throw unloadable(className, e);
    }
    nameIdToClass.put(nameId, type);
    if (length > 0 && input.position() == at + length) {
      known.add(input.getBuffer(), at, length, type);
    }
    countApplicationClass(type);
    return type;
  }

  /**
   * As Kryo loads a class by name: never initialized, from Kryo's class loader if not found; a
   * primitive's name (Kryo writes {@code void}, the one it does not register, by name) as that
   * primitive.
   */
  private Class<?> load(String className) {
    Class<?> primitive = ClassReferences.primitive(className);
    if (primitive != null) {
      return primitive;
    }
    try {
      return Class.forName(className, false, kryo.getClassLoader());
    } catch (ClassNotFoundException e) {
      try {
        return Class.forName(className, false, Kryo.class.getClassLoader());
      } catch (ClassNotFoundException ignored) {
        throw new KryoException("Unable to find class: " + className, e);
      }
    }
  }

  private void countApplicationClass(Class<?> type) {
    if (!type.getName().startsWith("java.")) {
      applicationClassesRead++;
    }
  }

  /**
   * How many times a class outside the JDK was read by name, since this resolver was made: a
   * decode that sees the count move read a class whose kind (enum, record, class, collection) may
   * differ from the writer's. The JDK's classes are written by serializers this library fixes.
   */
  long applicationClassesRead() {
    return applicationClassesRead;
  }

  private Registration registration(Class<?> type) {
    try {
      return kryo.getRegistration(type);
    } catch (LinkageError e) {
      throw unloadable(type.getName(), e);
    }
  }

  private static IncompatibleDataException unloadable(String className, LinkageError e) {
    return new IncompatibleDataException(className, "Kryo: the class cannot be loaded or initialized"
        + " on this node (" + e + ")", e);
  }

  /**
   * Writes a {@code Class} value: the bytes Kryo's own {@code ClassSerializer} writes (the class's
   * id, or its name), checked as a reference to the class ({@link ClassReferences}) rather than as
   * the class of an object, and without a registration, nor a serializer, for the class it names.
   * A class registered with an id is written by its id; any other by its own name, even one
   * {@link CollectionCopies} writes as another class when it is the class of an object.
   */
  void writeClassReference(Output output, Class<?> type) {
    if (!references.contains(type)) {
      ClassReferences.check(allowList, type);
      references.add(type);
    }
    Registration registration = getRegistration(type);
    if (registration != null && registration.getId() != NAME) {
      output.writeVarInt(registration.getId() + 2, true);
      return;
    }
    super.writeName(output, type, registration != null ? registration
        : new Registration(type, ClassReferences.NAME_ONLY, NAME));
  }

  /**
   * Reads what {@link #writeClassReference} (or Kryo's {@code ClassSerializer}) wrote: the class,
   * allowed by name before it is loaded, loaded without being initialized, and given no
   * registration. Null for Kryo's null class.
   */
  @Nullable Class<?> readClassReference(Input input) {
    int id = input.readVarInt(true);
    if (id == Kryo.NULL) {
      return null;
    }
    if (id == NAME + 2) {
      return readNamedType(input);
    }
    Registration registration = getRegistration(id - 2);
    if (registration == null) {
      throw new KryoException("Encountered unregistered class ID: " + (id - 2));
    }
    return registration.getType();
  }

  @Override
  public Registration writeClass(Output output, Class type) {
    if (type != null) {
      Registration copy = copies.replacement(kryo, type);
      if (copy != null) {
        super.writeClass(output, copy.getType());
        return copy;
      }
    }
    return super.writeClass(output, type);
  }

  /**
   * A replaced class's own serializer is the copy writer too: collection serializers that find all
   * elements of one class write that class once and then call its serializer directly.
   */
  @Override
  public Registration registerImplicit(Class type) {
    Registration copy = copies.replacement(kryo, type);
    if (copy != null) {
      return register(new Registration(type, copy.getSerializer(), NAME));
    }
    return super.registerImplicit(type);
  }

  @Override
  protected void writeName(Output output, Class type, Registration registration) {
    if (!writable.contains(type)) {
      if (type.isHidden() || type.isSynthetic()) {
        throw new SerializationException("cannot store an instance of " + type.getTypeName()
            + ": a lambda or hidden class cannot be found by name when read back; use a named "
            + "class (for a comparator, a class implementing Comparator)");
      }
      if (!allowList.isAllowed(type)) {
        throw new ClassNotAllowedException(type.getName());
      }
      if (requireSerializable && !type.isArray() && !type.isPrimitive()
          && !java.io.Serializable.class.isAssignableFrom(type)) {
        throw new io.lazysession.serializer.NotSerializableException(type.getTypeName());
      }
      writable.add(type);
    }
    super.writeName(output, type, registration);
  }
}
