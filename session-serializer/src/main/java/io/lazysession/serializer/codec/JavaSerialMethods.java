package io.lazysession.serializer.codec;

import java.io.Serializable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A class's {@code writeReplace} and {@code readResolve}, found as Java serialization finds them
 * ({@code ObjectStreamClass}): a method of that name taking nothing and returning {@code Object},
 * declared by the class or inherited from a superclass, not static nor abstract, and visible to
 * the class (public or protected from any superclass, package-private from a superclass of the same
 * package and class loader, private only when the class itself declares it); only for a
 * {@link Serializable} class that is neither an enum, an array nor a proxy. The JDK's own classes
 * (boot and platform class loaders) are left out: their serial forms are the serializers registered
 * in {@link KryoFactory}. Found once per class ({@link ClassValue}). Immutable: thread-safe.
 */
final class JavaSerialMethods {
  static final JavaSerialMethods NONE = new JavaSerialMethods(null, null);

  private static final ClassValue<JavaSerialMethods> BY_CLASS = new ClassValue<>() {
    @Override
    protected JavaSerialMethods computeValue(Class<?> type) {
      if (!Serializable.class.isAssignableFrom(type) || type.isArray() || type.isPrimitive()
          || Enum.class.isAssignableFrom(type) || Proxy.isProxyClass(type) || isJdk(type)) {
        return NONE;
      }
      Method writeReplace = inheritable(type, "writeReplace");
      Method readResolve = inheritable(type, "readResolve");
      return writeReplace == null && readResolve == null ? NONE
          : new JavaSerialMethods(writeReplace, readResolve);
    }
  };

  private final @Nullable Method writeReplace;
  private final @Nullable Method readResolve;

  private JavaSerialMethods(@Nullable Method writeReplace, @Nullable Method readResolve) {
    this.writeReplace = writeReplace;
    this.readResolve = readResolve;
  }

  static JavaSerialMethods of(Class<?> type) {
    return BY_CLASS.get(type);
  }

  boolean hasWriteReplace() {
    return writeReplace != null;
  }

  boolean hasReadResolve() {
    return readResolve != null;
  }

  /** What Java serialization writes instead of {@code object}: its {@code writeReplace()}. */
  @Nullable Object writeReplace(Object object) {
    return invoke(Objects.requireNonNull(writeReplace), object);
  }

  /** What Java serialization returns instead of {@code object} just read: its {@code readResolve()}. */
  @Nullable Object readResolve(Object object) {
    return invoke(Objects.requireNonNull(readResolve), object);
  }

  private static @Nullable Object invoke(Method method, Object object) {
    try {
      return method.invoke(object);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(object.getClass().getName() + "." + method.getName()
          + "() failed: " + cause, cause);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean isJdk(Class<?> type) {
    ClassLoader loader = type.getClassLoader();
    return loader == null || loader == ClassLoader.getPlatformClassLoader();
  }

  /** ObjectStreamClass.getInheritableMethod's rules, with no argument and an Object result. */
  private static @Nullable Method inheritable(Class<?> type, String name) {
    Method method = null;
    Class<?> declaring = type;
    while (declaring != null) {
      try {
        method = declaring.getDeclaredMethod(name);
        break;
      } catch (NoSuchMethodException e) {
        declaring = declaring.getSuperclass();
      }
    }
    if (method == null || method.getReturnType() != Object.class) {
      return null;
    }
    int modifiers = method.getModifiers();
    boolean visible;
    if ((modifiers & (Modifier.STATIC | Modifier.ABSTRACT)) != 0) {
      visible = false;
    } else if ((modifiers & (Modifier.PUBLIC | Modifier.PROTECTED)) != 0) {
      visible = true;
    } else if ((modifiers & Modifier.PRIVATE) != 0) {
      visible = declaring == type;
    } else {
      visible = declaring.getClassLoader() == type.getClassLoader()
          && declaring.getPackageName().equals(type.getPackageName());
    }
    if (!visible || isJdk(declaring)) {
      return null;
    }
    try {
      method.setAccessible(true);
      return method;
    } catch (RuntimeException e) { // a named module that does not open the class's package
      return null;
    }
  }
}
