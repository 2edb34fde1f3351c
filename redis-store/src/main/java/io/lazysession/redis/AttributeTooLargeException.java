package io.lazysession.redis;

import io.lazysession.serializer.SerializationException;
import io.lazysession.serializer.ValueTooLargeException;

/**
 * A session could not be saved because one attribute encodes to more than
 * {@value ValueTooLargeException#PROPERTY}; nothing of that save was written. The message names the
 * attribute, the session, the value's class, its size and the setting; {@link #getCause()} is the
 * serializer's {@link ValueTooLargeException} with the figures.
 */
public class AttributeTooLargeException extends SerializationException {
  private static final long serialVersionUID = 1L;

  AttributeTooLargeException(String message, ValueTooLargeException cause) {
    super(message, cause);
  }

  /** The serializer's refusal: class, size and limit. */
  public ValueTooLargeException refusal() {
    return (ValueTooLargeException) getCause();
  }
}
