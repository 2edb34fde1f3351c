package io.lazysession.serializer;

/**
 * A value is, or holds, an object whose class is not {@link java.io.Serializable}, and the serializer
 * requires it to be ({@link AttributeSerializer.Builder#requireSerializable}, the setting
 * {@value #PROPERTY}): nothing was written. Spring Session Data Redis and a distributable Servlet
 * container refuse such a value too, so a session that lazysession stores can always be stored by
 * them, or by lazysession with {@code lazysession.codec=jdk}.
 */
public class NotSerializableException extends SerializationException {
  private static final long serialVersionUID = 1L;
  /** The setting that allows values that are not Serializable (stored with Kryo). */
  public static final String PROPERTY = "lazysession.require-serializable";

  private final String className;

  /** @param className the class that is not Serializable, as source names it */
  public NotSerializableException(String className) {
    super(className + " is not java.io.Serializable, and lazysession stores only what Java "
        + "serialization can store (as Spring Session Data Redis and distributable Servlet "
        + "containers do); make " + className + " implement java.io.Serializable (or mark the field "
        + "that holds it transient), or set " + PROPERTY + "=false to store it with Kryo anyway");
    this.className = className;
  }

  /** The class that is not Serializable. */
  public String className() {
    return className;
  }
}
