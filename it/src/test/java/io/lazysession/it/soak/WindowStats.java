package io.lazysession.it.soak;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one {@link SoakMode} saw during one window (the baseline, or one fault until the next fault
 * starts). Request counters are thread-safe; the loss and stale-read figures are added by the
 * verification at the end of the window.
 */
final class WindowStats {
  final LongAdder requests = new LongAdder();
  final LongAdder failed = new LongAdder();
  final LongAdder acknowledgedWrites = new LongAdder();
  private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
  private final AtomicLong firstSuccessAfterEnd = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong lastFailureEnd = new AtomicLong(Long.MIN_VALUE);
  private volatile long faultEnd = Long.MAX_VALUE;
  long lostWrites;
  long sessionsLost;
  long staleReads;
  long staleBeyondBound;
  long staleAfterLoss;
  long unverified;

  void faultEnded(long nanos) {
    faultEnd = nanos;
  }

  void success(long startNanos) {
    requests.increment();
    if (startNanos >= faultEnd) {
      firstSuccessAfterEnd.accumulateAndGet(startNanos, Math::min);
    }
  }

  void failure(String what, long endNanos) {
    requests.increment();
    failed.increment();
    failures.computeIfAbsent(what, key -> new LongAdder()).increment();
    lastFailureEnd.accumulateAndGet(endNanos, Math::max);
  }

  /** Failure kinds by count, most frequent first. */
  Map<String, Long> failures() {
    Map<String, Long> sorted = new TreeMap<>();
    failures.forEach((what, count) -> sorted.put(what, count.sum()));
    return sorted;
  }

  /**
   * Milliseconds from the fault's end to the start of the first request that then succeeded; -1 if
   * none.
   */
  long firstSuccessMillis() {
    long first = firstSuccessAfterEnd.get();
    return first == Long.MAX_VALUE ? -1 : Math.max(0, (first - faultEnd) / 1_000_000);
  }

  /**
   * Milliseconds from the fault's end to the end of the last failed request (0 if all were before).
   */
  long lastFailureMillis() {
    long last = lastFailureEnd.get();
    if (last == Long.MIN_VALUE || faultEnd == Long.MAX_VALUE) {
      return 0;
    }
    return Math.max(0, (last - faultEnd) / 1_000_000);
  }
}
