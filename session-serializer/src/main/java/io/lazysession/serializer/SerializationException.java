package io.lazysession.serializer;

/** Base of every failure to encode or decode an attribute. Unchecked. */
public class SerializationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SerializationException(String message) {
    super(message);
  }

  public SerializationException(String message, Throwable cause) {
    super(message, cause);
  }
}
