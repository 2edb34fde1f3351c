package io.lazysession.serializer;

/**
 * A value encodes to more bytes than the configured maximum payload size; nothing was written.
 * The message names the class, the size and the limit, and the setting that raises the limit.
 */
public class ValueTooLargeException extends SerializationException {
  private static final long serialVersionUID = 1L;
  /** The setting that configures the limit. */
  public static final String PROPERTY = "lazysession.max-value-bytes";

  private final String className;
  private final long size;
  private final int limit;

  /**
   * @param size the encoded size, or -1 when encoding stopped at the limit before the end was known
   */
  public ValueTooLargeException(String className, long size, int limit, Throwable cause) {
    super(message(className, size, limit), cause);
    this.className = className;
    this.size = size;
    this.limit = limit;
  }

  public ValueTooLargeException(String className, long size, int limit) {
    super(message(className, size, limit));
    this.className = className;
    this.size = size;
    this.limit = limit;
  }

  private static String message(String className, long size, int limit) {
    return "value of " + TypeNames.ofBinaryName(className) + " encodes to " + (size < 0 ? "" : size + " bytes, ")
        + "more than the maximum of " + limit + " bytes set by " + PROPERTY
        + "; raise " + PROPERTY + " or keep less in this attribute";
  }

  /** The class of the value refused, as given (a binary name: {@code [B} for a byte array). */
  public String className() {
    return className;
  }

  /** Its encoded size in bytes, or -1 when only known to exceed {@link #limit()}. */
  public long size() {
    return size;
  }

  /** The maximum payload size in bytes. */
  public int limit() {
    return limit;
  }
}
