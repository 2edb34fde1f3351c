package io.lazysession.serializer;

import org.jspecify.annotations.Nullable;

/**
 * The bytes are a well-formed envelope, but this node cannot turn them into a value: a class it does
 * not have, an enum constant or a field type its version of a class does not know, a class whose
 * {@code readObject} or serializer disagrees with what was written, a limit of this node (depth,
 * stack, payload size) that the value exceeds. Another node, typically one running another version of
 * the application during a rolling deploy, may read them: they must be kept, never deleted. Contrast
 * with {@link CorruptDataException}, which is only thrown for bytes that are provably broken.
 */
public class IncompatibleDataException extends SerializationException {
  private static final long serialVersionUID = 1L;
  private final @Nullable String className;

  /**
   * @param className the class that could not be decoded, when known
   * @param reason why, in words (the codec's own explanation)
   */
  public IncompatibleDataException(@Nullable String className, String reason, @Nullable Throwable cause) {
    super(message(className, reason), cause);
    this.className = className;
  }

  private static String message(@Nullable String className, String reason) {
    return "cannot decode " + (className == null ? "the value" : "a value of " + className)
        + " on this node: " + reason + "; the bytes are well-formed and kept, a node running "
        + "another version of that class may read them";
  }

  /** The fully qualified name of the class that could not be decoded, when the codec could tell. */
  public @Nullable String className() {
    return className;
  }
}
