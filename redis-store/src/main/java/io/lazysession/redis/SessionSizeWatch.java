package io.lazysession.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures each save before it is sent, when a {@link SessionBudget} or a {@link
 * SessionSizeListener} asks for it: refuses saves over the budget's maximum, logs those over its
 * warning level (once per attribute name), and tells the listeners. Thread-safe.
 *
 * <p>Design: sizes come from what the saving session holds ({@link SessionSizes#afterSave}), so
 * measuring costs no command and no encoding; nothing is measured while neither is set.
 */
final class SessionSizeWatch {
  private static final Logger log = LoggerFactory.getLogger(SessionSizeWatch.class);
  /** Attribute names warned about; past this many, warnings stop (said once). */
  static final int MAX_WARNED_NAMES = 10_000;
  private static final int NAMED_LARGEST = 5;

  private final SessionBudget budget;
  private final SessionKeys keys;
  private final List<SessionSizeListener> listeners = new CopyOnWriteArrayList<>();
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  SessionSizeWatch(SessionBudget budget, SessionKeys keys) {
    this.budget = budget;
    this.keys = keys;
  }

  /** Whether a save may be refused: a maximum is set. */
  boolean refuses() {
    return budget.maxBytes() != null;
  }

  void add(SessionSizeListener listener) {
    listeners.add(listener);
  }

  /**
   * Checks and reports the save {@code request} of {@code session}; with {@code refuse} false only
   * reports (the budget was checked before an id change took the old hash).
   *
   * @throws SessionBudgetExceededException when it would take the session over the maximum
   */
  void check(LazySession session, SaveRequest request, boolean refuse) {
    if (!budget.on() && listeners.isEmpty()) {
      return;
    }
    int keyBytes = keys.session(session.getId()).length;
    SessionSizes.Saved after = SessionSizes.afterSave(session, request, keyBytes);
    long was = budget.on() ? storedBefore(session, keyBytes) : 0;
    if (refuse) {
      refuse(session, request, after, was);
    }
    Long warn = budget.warnBytes();
    if (warn != null && after.storedBytes() > warn && after.storedBytes() > was) {
      warn(session.getId(), crossing(request, after), after, warn);
    }
    for (SessionSizeListener listener : listeners) {
      try {
        listener.saved(after.storedBytes(), after.attributes());
      } catch (RuntimeException e) {
        log.warn("session size listener {} failed; the save goes on", listener, e);
      }
    }
  }

  /**
   * Refuses {@code request} when it would take the session over the maximum.
   *
   * @throws SessionBudgetExceededException then
   */
  void refuseOverBudget(LazySession session, SaveRequest request) {
    int keyBytes = keys.session(session.getId()).length;
    refuse(session, request, SessionSizes.afterSave(session, request, keyBytes),
        storedBefore(session, keyBytes));
  }

  private static long storedBefore(LazySession session, int keyBytes) {
    SessionSizes.Saved before = SessionSizes.beforeSave(session, keyBytes);
    return before == null ? 0 : before.storedBytes();
  }

  private void refuse(LazySession session, SaveRequest request, SessionSizes.Saved after,
      long was) {
    Long max = budget.maxBytes();
    if (max != null && after.storedBytes() > max && after.storedBytes() > was) {
      String crossed = crossing(request, after);
      throw new SessionBudgetExceededException(crossed, after.storedBytes(), max, "session "
          + session.getId() + " was not saved: attribute '" + crossed + "' takes its stored size "
          + "to " + after.storedBytes() + " bytes, above " + SessionBudget.MAX_PROPERTY + "="
          + max + "; nothing was written. Largest attributes: " + largest(after)
          + ". Keep less in the session, or raise " + SessionBudget.MAX_PROPERTY + ".");
    }
  }

  private void warn(String id, String crossed, SessionSizes.Saved after, long warn) {
    if (warned.contains(crossed)) {
      return;
    }
    if (warned.size() >= MAX_WARNED_NAMES) {
      if (warned.add("")) { // the empty name marks the notice, said once
        log.warn("sessions went over {} with {} different attribute names; no more such "
            + "warnings are logged until a restart", SessionBudget.WARN_PROPERTY, MAX_WARNED_NAMES);
      }
      return;
    }
    if (warned.add(crossed)) {
      log.warn("session {}: attribute '{}' took its stored size to {} bytes, above {}={} "
          + "(logged once per attribute name). Largest attributes: {}", id, crossed,
          after.storedBytes(), SessionBudget.WARN_PROPERTY, warn, largest(after));
    }
  }

  /**
   * The attribute that crossed: the largest this save writes, or when it writes none (a principal,
   * a timeout), the largest of the session.
   */
  private static String crossing(SaveRequest request, SessionSizes.Saved after) {
    String crossed = null;
    long size = -1;
    for (Map.Entry<String, Long> attribute : after.attributes().entrySet()) {
      String name = attribute.getKey();
      boolean written = request.writes().containsKey(name)
          || (request.pack() != null && request.pack().sets().containsKey(name));
      if (written && attribute.getValue() > size) {
        crossed = name;
        size = attribute.getValue();
      }
    }
    if (crossed != null) {
      return crossed;
    }
    for (Map.Entry<String, Long> attribute : after.attributes().entrySet()) {
      if (attribute.getValue() > size) {
        crossed = attribute.getKey();
        size = attribute.getValue();
      }
    }
    return crossed == null ? "(none)" : crossed;
  }

  /** The largest attributes, largest first: {@code name (bytes)}. */
  static String largest(SessionSizes.Saved after) {
    List<Map.Entry<String, Long>> sorted = new ArrayList<>(after.attributes().entrySet());
    sorted.sort(Map.Entry.<String, Long>comparingByValue().reversed());
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < Math.min(NAMED_LARGEST, sorted.size()); i++) {
      out.append(i == 0 ? "" : ", ").append(sorted.get(i).getKey()).append(" (")
          .append(sorted.get(i).getValue()).append(" bytes)");
    }
    return sorted.size() > NAMED_LARGEST ? out + ", ..." : out.toString();
  }
}
