package io.lazysession.redis;

import java.util.concurrent.atomic.LongAdder;

/**
 * The counters behind {@link RepositoryMetrics}, and the {@link OutageLog} that every user of them
 * reports Redis outages to. Thread-safe; increments never block.
 */
final class MetricsRecorder {
  final OutageLog outage = new OutageLog();
  final LongAdder loads = new LongAdder();
  final LongAdder nearCacheHits = new LongAdder();
  final LongAdder nearCacheTrustedHits = new LongAdder();
  final LongAdder saves = new LongAdder();
  final LongAdder savesSkipped = new LongAdder();
  final LongAdder roundTrips = new LongAdder();
  final LongAdder bytesRead = new LongAdder();
  final LongAdder bytesWritten = new LongAdder();
  final LongAdder decodeFailures = new LongAdder();
  final LongAdder attributesInflated = new LongAdder();
  final LongAdder attributesLeftCompressed = new LongAdder();
  final LongAdder sessionsExpired = new LongAdder();
  final LongAdder sessionsDeleted = new LongAdder();
  final LongAdder scriptReloads = new LongAdder();
  final LongAdder sessionsMigrated = new LongAdder();

  /** Counts the loaded attributes a request decoded and those it left as bytes. */
  void count(LazySession.Inflation inflation) {
    attributesInflated.add(inflation.inflated());
    attributesLeftCompressed.add(inflation.leftCompressed());
  }

  RepositoryMetrics snapshot() {
    return new RepositoryMetrics(
        loads.sum(),
        nearCacheHits.sum(),
        saves.sum(),
        savesSkipped.sum(),
        roundTrips.sum(),
        bytesRead.sum(),
        bytesWritten.sum(),
        decodeFailures.sum(),
        attributesInflated.sum(),
        attributesLeftCompressed.sum(),
        sessionsExpired.sum(),
        sessionsDeleted.sum(),
        scriptReloads.sum(),
        sessionsMigrated.sum(),
        nearCacheTrustedHits.sum());
  }
}
