package io.lazysession.it.soak;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The ledger of one session: the highest version whose write was acknowledged (a save that
 * returned), when each recent version was acknowledged, and the stale reads seen since the last
 * verification. Written by the thread that owns the session, read and reset by the verification
 * while that thread is held off (the soak's request lock), so it needs no synchronization of its
 * own.
 */
final class SoakSession {
  private static final int KEPT_VERSIONS = 256;

  final String id;
  private long acknowledged;
  private final NavigableMap<Long, Long> acknowledgedAt = new TreeMap<>();
  private int staleReads;
  private int staleBeyondBound;
  private boolean gone;

  SoakSession(String id, long version, long nanos) {
    this.id = id;
    acknowledge(version, nanos);
  }

  long acknowledged() {
    return acknowledged;
  }

  /** The version the next write stores: above anything read or acknowledged. */
  long nextVersion(long read) {
    return Math.max(read, acknowledged) + 1;
  }

  void acknowledge(long version, long nanos) {
    acknowledged = version;
    acknowledgedAt.put(version, nanos);
    while (acknowledgedAt.size() > KEPT_VERSIONS) {
      acknowledgedAt.pollFirstEntry();
    }
  }

  /**
   * Checks a read that started at {@code startNanos} and saw {@code version}: stale when an
   * acknowledged write had replaced that version before the read started (every write of this
   * session comes from the reading thread, so each acknowledged one completed before the read
   * started); beyond the bound when it had been replaced more than {@code allowedNanos} earlier.
   */
  void read(long version, long startNanos, long allowedNanos) {
    if (version >= acknowledged) {
      return;
    }
    staleReads++;
    Map.Entry<Long, Long> replaced = acknowledgedAt.ceilingEntry(version + 1);
    if (replaced == null || startNanos - replaced.getValue() > allowedNanos) {
      staleBeyondBound++;
    }
  }

  int staleReads() {
    return staleReads;
  }

  int staleBeyondBound() {
    return staleBeyondBound;
  }

  /**
   * Takes what Redis holds as the truth after a verification: the writes above it are counted lost
   * once, and the stale-read counters start again.
   */
  void verified(long stored) {
    if (stored < acknowledged) {
      acknowledged = stored;
      acknowledgedAt.tailMap(stored, false).clear();
    }
    staleReads = 0;
    staleBeyondBound = 0;
  }

  /** The session was not found: its owner signs in again. */
  void markGone() {
    gone = true;
    staleReads = 0;
    staleBeyondBound = 0;
  }

  boolean gone() {
    return gone;
  }
}
