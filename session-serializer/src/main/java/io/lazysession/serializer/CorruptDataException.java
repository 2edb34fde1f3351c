package io.lazysession.serializer;

/** The bytes are not a valid envelope or payload: truncated, corrupted, random or hostile. */
public class CorruptDataException extends SerializationException {
  private static final long serialVersionUID = 1L;

  public CorruptDataException(String message) {
    super(message);
  }

  public CorruptDataException(String message, Throwable cause) {
    super(message, cause);
  }
}
