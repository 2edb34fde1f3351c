package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.KryoException;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * Kryo serializer for exceptions, which sessions do hold: Spring Security's form login keeps the last
 * {@code AuthenticationException} (a {@code BadCredentialsException} after a wrong password) under
 * {@code SPRING_SECURITY_LAST_EXCEPTION} for the login page to show. Kryo's field serializer cannot
 * read {@code Throwable}'s private fields on Java 17 ({@code java.lang} is not open), so an exception
 * is written as what its public API gives: message, cause (itself an allowed class) and stack trace,
 * and rebuilt through its public {@code (String)} or {@code (String, Throwable)} constructor. The
 * authentication request an {@code AuthenticationException} carries, credentials included, stays out
 * of the store. An exception class without such a constructor, or with fields of its own that this
 * would lose (an {@code OAuth2AuthenticationException}'s {@code OAuth2Error}), is refused when
 * writing, so that nothing is stored that could not be read back whole: the serializer stores it with
 * Java serialization instead (which keeps the authentication request too, as Spring Session Data
 * Redis does).
 *
 * <p>Stateless and thread-safe.
 */
final class ThrowableSerializer extends Serializer<Throwable> {
  /** Deepest cause chain written; deeper causes are cut (a chain is diagnostics, not data). */
  private static final int MAX_CAUSES = 16;

  @Override
  public void write(Kryo kryo, Output output, Throwable throwable) {
    writable(throwable.getClass()); // fails now rather than when reading
    writeNullable(output, throwable.getMessage());
    Throwable cause = throwable.getCause();
    int depth = kryo.getDepth();
    kryo.writeClassAndObject(output, cause == throwable || depth > MAX_CAUSES ? null : cause);
    StackTraceElement[] trace = throwable.getStackTrace();
    output.writeVarInt(trace.length, true);
    for (StackTraceElement element : trace) {
      writeNullable(output, element.getClassLoaderName());
      writeNullable(output, element.getModuleName());
      writeNullable(output, element.getModuleVersion());
      writeNullable(output, element.getClassName());
      writeNullable(output, element.getMethodName());
      writeNullable(output, element.getFileName());
      output.writeVarInt(element.getLineNumber(), false);
    }
  }

  @Override
  public Throwable read(Kryo kryo, Input input, Class<? extends Throwable> type) {
    String message = readNullable(input);
    Object cause = kryo.readClassAndObject(input);
    if (cause != null && !(cause instanceof Throwable)) {
      throw new KryoException("cause of " + type.getName() + " is a " + cause.getClass().getName());
    }
    int length = input.readVarInt(true);
    BoundedSerializers.requireCount(kryo, input, length);
    // Grown as frames arrive, never sized from the count the bytes declare.
    List<StackTraceElement> trace = new ArrayList<>(BoundedSerializers.presize(length));
    for (int i = 0; i < length; i++) {
      String classLoaderName = readNullable(input);
      String moduleName = readNullable(input);
      String moduleVersion = readNullable(input);
      String className = readNullable(input);
      String methodName = readNullable(input);
      String fileName = readNullable(input);
      int line = input.readVarInt(false);
      trace.add(new StackTraceElement(classLoaderName, moduleName, moduleVersion,
          className == null ? "" : className,
          methodName == null ? "" : methodName, fileName, line));
    }
    Throwable throwable = instantiate(type, message, (Throwable) cause);
    throwable.setStackTrace(trace.toArray(new StackTraceElement[0]));
    return throwable;
  }

  /** A presence flag, then the string (the bounded input checks a string's length as a count). */
  private static void writeNullable(Output output, String value) {
    output.writeBoolean(value != null);
    if (value != null) {
      output.writeString(value);
    }
  }

  private static String readNullable(Input input) {
    return input.readBoolean() ? input.readString() : null;
  }

  private static Throwable instantiate(Class<? extends Throwable> type, String message, Throwable cause) {
    Constructor<? extends Throwable> constructor = constructor(type);
    try {
      if (constructor.getParameterCount() == 2) {
        return constructor.newInstance(message, cause);
      }
      Throwable throwable = constructor.newInstance(message);
      if (cause != null && throwable.getCause() == null) {
        throwable.initCause(cause);
      }
      return throwable;
    } catch (InstantiationException | IllegalAccessException | InvocationTargetException
        | IllegalStateException | IllegalArgumentException e) {
      throw new KryoException("cannot rebuild " + type.getName() + ": " + e, e);
    }
  }

  /**
   * A field an exception class below the JDK declares, which this serializer would not keep: such an
   * exception is refused, so that it is stored with Java serialization instead, whole (Spring
   * Security's {@code OAuth2AuthenticationException} and its {@code OAuth2Error}: rebuilt from its
   * message, it would carry a wrong error code). {@code AuthenticationException}'s authentication
   * request is the exception: it is left out on purpose (see the class comment).
   */
  private static @org.jspecify.annotations.Nullable String ownField(Class<?> type) {
    for (Class<?> c = type; c != null && !c.getName().startsWith("java."); c = c.getSuperclass()) {
      for (java.lang.reflect.Field field : c.getDeclaredFields()) {
        int modifiers = field.getModifiers();
        if (!Modifier.isStatic(modifiers) && !Modifier.isTransient(modifiers)
            && !(field.getName().equals("authenticationRequest")
                && c.getName().equals(AUTHENTICATION_EXCEPTION))) {
          return c.getTypeName() + "." + field.getName();
        }
      }
    }
    return null;
  }

  private static final String AUTHENTICATION_EXCEPTION =
      "org.springframework.security.core.AuthenticationException";

  /** Refuses what could not be read back whole (values written before are still read). */
  private static void writable(Class<? extends Throwable> type) {
    String field = ownField(type);
    if (field != null) {
      throw new KryoException("cannot encode " + type.getTypeName() + " with Kryo: its field "
          + field + " would not be kept");
    }
    constructor(type);
  }

  /** The public (String, Throwable) constructor, else the public (String) one. */
  private static Constructor<? extends Throwable> constructor(Class<? extends Throwable> type) {
    if (Modifier.isAbstract(type.getModifiers()) || !Modifier.isPublic(type.getModifiers())) {
      throw new KryoException("cannot encode " + type.getTypeName()
          + ": an exception needs to be a public class with a public (String) or (String, Throwable)"
          + " constructor to be stored with Kryo; store its message instead, or use the JDK codec");
    }
    try {
      return type.getConstructor(String.class, Throwable.class);
    } catch (NoSuchMethodException e) {
      try {
        return type.getConstructor(String.class);
      } catch (NoSuchMethodException none) {
        throw new KryoException("cannot encode " + type.getTypeName()
            + ": an exception needs a public (String) or (String, Throwable) constructor to be stored"
            + " with Kryo; store its message instead, or use the JDK codec");
      }
    }
  }
}
