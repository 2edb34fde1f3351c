package io.lazysession.redis;

import org.jspecify.annotations.Nullable;

/**
 * Limits on what one session may take in Redis (its stored size: key, field names and values, as
 * {@link SessionSize#storedBytes()} counts them). Immutable and thread-safe; {@link #NONE} by
 * default.
 *
 * <ul>
 *   <li>over {@code warnBytes}: a save that takes a session above it is logged, naming the largest
 *       attributes; once per attribute name (the attribute the save wrote that is largest), so a
 *       warning per problem, not per request;
 *   <li>over {@code maxBytes}: a save that takes a session above it, or grows one that is above it,
 *       is refused with {@link SessionBudgetExceededException} and nothing of it is written. Saves
 *       that do not grow the session (a touch, a removal) still go through.
 * </ul>
 *
 * <p>Sizes are what the saving node knows: the session as it loaded it with this save's changes,
 * the pack counted as one field.
 *
 * @param warnBytes the size above which saves are logged; null: never
 * @param maxBytes the size above which saves are refused; null: never
 */
public record SessionBudget(@Nullable Long warnBytes, @Nullable Long maxBytes) {
  /** Property of {@link #warnBytes}. */
  public static final String WARN_PROPERTY = "lazysession.session-budget.warn-bytes";
  /** Property of {@link #maxBytes}. */
  public static final String MAX_PROPERTY = "lazysession.session-budget.max-bytes";
  /** No budget: nothing logged, nothing refused. */
  public static final SessionBudget NONE = new SessionBudget(null, null);

  public SessionBudget {
    if (warnBytes != null && warnBytes <= 0) {
      throw new IllegalArgumentException("warnBytes must be > 0, was " + warnBytes);
    }
    if (maxBytes != null && maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be > 0, was " + maxBytes);
    }
  }

  /** Whether saves must be measured at all. */
  boolean on() {
    return warnBytes != null || maxBytes != null;
  }
}
