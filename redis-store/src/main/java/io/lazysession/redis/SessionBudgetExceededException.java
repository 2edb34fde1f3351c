package io.lazysession.redis;

/**
 * A save was refused because it would take the session's stored size above {@value
 * SessionBudget#MAX_PROPERTY}; nothing of that save was written. The message names the session, the
 * attribute that crossed the budget, the size, the budget and the property, and the largest
 * attributes. Immutable.
 */
public class SessionBudgetExceededException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String attributeName;
  private final long storedBytes;
  private final long maxBytes;

  SessionBudgetExceededException(String attributeName, long storedBytes, long maxBytes,
      String message) {
    super(message);
    this.attributeName = attributeName;
    this.storedBytes = storedBytes;
    this.maxBytes = maxBytes;
  }

  /** The attribute this save wrote that took the session over the budget (its largest). */
  public String attributeName() {
    return attributeName;
  }

  /** The session's stored size had the save been written. */
  public long storedBytes() {
    return storedBytes;
  }

  /** The budget: {@value SessionBudget#MAX_PROPERTY}. */
  public long maxBytes() {
    return maxBytes;
  }
}
