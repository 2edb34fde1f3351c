package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The stamp and lease logic of tracked reads, with a hand-moved clock: when a copy may be used
 * without a call, and that an invalidation arriving at any point after a request read its stamp
 * (while its call is out, or after its copy was stored) makes the copy untrusted.
 */
class NearCacheTrackingTest {
  private static final long BOUND = Duration.ofMillis(500).toNanos();

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final NearCacheTracking tracking = new NearCacheTracking(BOUND, now::get);
  private final NearCache cache = new NearCache(1 << 20, tracking);

  /** Tracking on and a lease taken by a PING sent now. */
  private void leased() {
    long generation = tracking.generation();
    assertThat(tracking.trackingOn(generation)).isTrue();
    tracking.answered(generation, now.get());
  }

  /** A copy with metadata as a find stores it, stamped {@code stamp}. */
  private void storeLoaded(String id, long stamp) {
    cache.put(id, new NearCache.Snapshot(3, 1, Map.of("a", new byte[] {1}), cache.epoch(),
        new NearCache.Metadata(5, 1800, null), StoredPack.NONE, stamp));
  }

  @Test
  void reopenRequested_commandConnectionDropped_leaseEndsAndTheRequestIsTakenOnce() {
    leased();
    storeLoaded("s1", cache.stamp("s1"));
    long generation = tracking.generation();

    tracking.reopenRequested();
    tracking.answered(generation, now.get()); // a renewal sent on the connection being replaced

    assertThat(cache.trusted("s1")).isNull();
    assertThat(tracking.isTracking()).as("tracking must be turned on again").isFalse();
    assertThat(tracking.takeReopenRequest()).isTrue();
    assertThat(tracking.takeReopenRequest()).isFalse();
    leased();
    assertThat(cache.trusted("s1")).as("stamped before tracking was on again").isNull();
  }

  @Test
  void trusted_copyStampedUnderALease_isServed() {
    leased();
    storeLoaded("s1", cache.stamp("s1"));

    assertThat(cache.trusted("s1")).isNotNull();
  }

  @Test
  void trusted_invalidationWhileTheFindIsOut_copyIsNotTrusted() {
    leased();
    long stamp = cache.stamp("s1"); // read before the find is sent
    tracking.invalidated("s1"); // another node writes; its push arrives before the answer
    storeLoaded("s1", stamp); // the answer (maybe older than that write) is stored

    assertThat(cache.trusted("s1")).isNull();
    assertThat(cache.get("s1")).as("still there to be confirmed by a call").isNotNull();
  }

  @Test
  void trusted_invalidationAfterTheCopyWasStored_copyIsNotTrusted() {
    leased();
    storeLoaded("s1", cache.stamp("s1"));
    tracking.invalidated("s1");

    assertThat(cache.trusted("s1")).isNull();
  }

  @Test
  void confirmed_byACallSentAfterTheInvalidation_trustedAgain() {
    leased();
    storeLoaded("s1", cache.stamp("s1"));
    tracking.invalidated("s1");
    long stamp = cache.stamp("s1"); // a validated call: stamp read before it is sent
    cache.confirmed("s1", cache.get("s1"), stamp);

    assertThat(cache.trusted("s1")).isNotNull();
  }

  @Test
  void trusted_olderCopyStoredByAReadRacingThisNodesSave_notServed() {
    leased();
    long stamp = cache.stamp("s1"); // a read on this node: stamp, then its find (answered: v3)
    NearCacheTracking.SaveStart start = cache.saveStart("s1"); // this node's save of s1 is sent
    // This node's save of s1 (v4) is acknowledged; its own invalidation has not arrived yet.
    LazySession saved = new LazySession(LazySessionLoadTest.CONTEXT, "s1", Instant.now(),
        Instant.now(), Duration.ofMinutes(30), 4, null, cache.epoch());
    cache.afterSave(saved, cache.epoch(), true, start);
    storeLoaded("s1", stamp); // the racing read stores v3 over the saved copy

    assertThat(cache.trusted("s1")).as("the next read must not be served v3 without a call")
        .isNull();
  }

  /** Session s1 at version 4 as this node's save left it, with its metadata known. */
  private LazySession savedV4() {
    LazySession saved = new LazySession(LazySessionLoadTest.CONTEXT, "s1", Instant.now(),
        Instant.now(), Duration.ofMinutes(30), 4, null, cache.epoch());
    saved.storedMetadata(new NearCache.Metadata(5, 1800, null));
    return saved;
  }

  @Test
  void afterSave_exactAndNothingCountedSinceItWasSent_trustedWithoutACall() {
    leased();
    NearCacheTracking.SaveStart start = cache.saveStart("s1"); // read before the save is sent

    cache.afterSave(savedV4(), cache.epoch(), true, start);

    assertThat(cache.trusted("s1")).isNotNull().extracting(NearCache.Snapshot::version)
        .isEqualTo(4L);
  }

  @Test
  void afterSave_anInvalidationCountedWhileItWasInFlight_notTrusted() {
    leased();
    NearCacheTracking.SaveStart start = cache.saveStart("s1");
    tracking.invalidated("s1"); // another node's write, pushed before this save's answer came

    cache.afterSave(savedV4(), cache.epoch(), true, start);

    assertThat(cache.trusted("s1")).isNull();
  }

  @Test
  void afterSave_anotherSaveOfThisNodeAcknowledgedWhileItWasInFlight_notTrusted() {
    leased();
    NearCacheTracking.SaveStart start = cache.saveStart("s1");
    tracking.saved("s1", cache.saveStart("s1")); // another request's save of s1, acknowledged first

    cache.afterSave(savedV4(), cache.epoch(), true, start);

    assertThat(cache.trusted("s1")).isNull();
  }

  @Test
  void afterSave_trustedCopy_asksRedisOnceMoreThanMaxStalenessOld() {
    leased();
    cache.afterSave(savedV4(), cache.epoch(), true, cache.saveStart("s1"));
    now.addAndGet(BOUND + 1);
    tracking.answered(tracking.generation(), now.get()); // the lease itself is renewed

    assertThat(cache.trusted("s1")).as("a save's own copy is trusted for the bound only").isNull();
    long stamp = cache.stamp("s1"); // the call that asks Redis confirms it
    cache.confirmed("s1", cache.get("s1"), stamp);
    now.addAndGet(BOUND + 1);
    tracking.answered(tracking.generation(), now.get());
    assertThat(cache.trusted("s1")).as("a confirmed copy lives by its stamp").isNotNull();
  }

  @Test
  void afterSave_trustedCopy_boundCountsFromWhenTheSaveWasSent() {
    leased();
    NearCacheTracking.SaveStart start = cache.saveStart("s1");
    now.addAndGet(BOUND - 1_000); // the save's answer took almost the whole bound
    tracking.answered(tracking.generation(), now.get());
    cache.afterSave(savedV4(), cache.epoch(), true, start);
    assertThat(cache.trusted("s1")).isNotNull();

    now.addAndGet(2_000);

    assertThat(cache.trusted("s1")).isNull();
  }

  @Test
  void afterSave_sessionNamedOnAnotherStripeSinceTheSaveBegan_notTrusted() {
    leased();
    NearCacheTracking.SaveStart start = cache.saveStart("s1");
    String other = otherStripeThan("s1");
    tracking.nameTokens(id -> id.equals("s1") ? other : id); // located under another name meanwhile

    cache.afterSave(savedV4(), cache.epoch(), true, start);

    assertThat(cache.trusted("s1")).isNull();
  }

  /**
   * A loaded copy whose id is named by another token since (keyed names during a rollout: the
   * session located under its other name) after an invalidation made it untrusted: the stripe of
   * the new token saw none of its invalidations, and its counter must not vouch for the copy.
   */
  @Test
  void trusted_invalidatedCopyWhoseIdIsNamedOnAnotherStripeSince_notTrusted() {
    leased();
    storeLoaded("s1", cache.stamp("s1"));
    tracking.invalidated("s1"); // another node wrote it
    assertThat(cache.trusted("s1")).isNull();
    String other = otherStripeThan("s1");

    tracking.nameTokens(id -> id.equals("s1") ? other : id);

    assertThat(cache.trusted("s1")).isNull();
  }

  @Test
  void ownSave_registeredMarkOnce_thenNotAfterAFailureNorForAnotherWriter() {
    String mark = tracking.nextSaveMark();
    assertThat(tracking.ownSave(mark)).isTrue();
    assertThat(tracking.ownSave(mark)).as("its invalidation came: not again").isFalse();

    String failed = tracking.nextSaveMark();
    tracking.saveFailed("s1");
    assertThat(tracking.ownSave(failed)).as("Redis may run a failed save late: counted").isFalse();

    String next = tracking.nextSaveMark();
    String number = next.substring(next.lastIndexOf('.'));
    assertThat(tracking.ownSave("another-writer" + number)).isFalse();
    assertThat(tracking.ownSave("garbage")).isFalse();
    assertThat(tracking.ownSave(next)).isTrue();
  }

  @Test
  void deleted_withKeyedNames_movesTheStampOfTheNameToken() {
    tracking.nameTokens(id -> "token-of-" + id);
    leased();
    long stamp = cache.stamp("s1"); // a read on this node: stamp, then its find
    cache.deleted("s1");
    storeLoaded("s1", stamp);

    assertThat(cache.trusted("s1")).isNull();
  }

  @Test
  void trusted_copyStoredByAReadRacingThisNodesDelete_notServed() {
    leased();
    long stamp = cache.stamp("s1"); // a read on this node: stamp, then its find (answered: v3)
    cache.deleted("s1"); // this node's delete is acknowledged; its invalidation has not arrived
    storeLoaded("s1", stamp); // the racing read stores the deleted session

    assertThat(cache.trusted("s1")).as("a deleted session must not be served").isNull();
  }

  @Test
  void trusted_invalidationOfAnotherSession_staysTrusted() {
    leased();
    storeLoaded("s1", cache.stamp("s1"));
    tracking.invalidated(otherStripeThan("s1"));

    assertThat(cache.trusted("s1")).isNotNull();
  }

  @Test
  void trusted_leaseOlderThanTheBound_notServed() {
    leased();
    storeLoaded("s1", cache.stamp("s1"));
    now.addAndGet(BOUND);
    assertThat(cache.trusted("s1")).as("exactly the bound").isNotNull();

    now.addAndGet(1);

    assertThat(cache.trusted("s1")).isNull();
    assertThat(tracking.leaseValid()).isFalse();
  }

  @Test
  void trusted_afterDisconnect_notServedAndEarlierCopiesNeverAgain() {
    leased();
    storeLoaded("s1", cache.stamp("s1"));
    long before = tracking.generation();
    tracking.disconnected();
    assertThat(cache.trusted("s1")).isNull();

    // A PING sent before the drop and answered after it renews nothing.
    tracking.answered(before, now.get());
    assertThat(tracking.leaseValid()).isFalse();
    // Nor does a CLIENT TRACKING sent before the drop turn tracking on.
    assertThat(tracking.trackingOn(before)).isFalse();
    // A copy stamped while tracking was off: writes then were never pushed.
    storeLoaded("s2", cache.stamp("s2"));

    leased();

    assertThat(cache.trusted("s1")).isNull();
    assertThat(cache.trusted("s2")).isNull();
    storeLoaded("s3", cache.stamp("s3"));
    assertThat(cache.trusted("s3")).isNotNull();
  }

  @Test
  void trusted_flushPushed_nothingTrusted() {
    leased();
    storeLoaded("s1", cache.stamp("s1"));
    tracking.invalidatedAll();

    assertThat(cache.trusted("s1")).isNull();
  }

  @Test
  void trusted_copyWithoutMetadataOrFromASave_notServed() {
    leased();
    cache.put("s1", new NearCache.Snapshot(3, 1, Map.of(), cache.epoch(), null, StoredPack.NONE,
        cache.stamp("s1")));
    cache.put("s2", new NearCache.Snapshot(3, 1, Map.of(), cache.epoch(),
        new NearCache.Metadata(5, 1800, null), StoredPack.NONE));

    assertThat(cache.trusted("s1")).isNull();
    assertThat(cache.trusted("s2")).isNull();
  }

  @Test
  void trusted_noLeaseYet_notServed() {
    long generation = tracking.generation();
    tracking.trackingOn(generation);
    storeLoaded("s1", cache.stamp("s1"));

    assertThat(cache.trusted("s1")).isNull();
  }

  @Test
  void trusted_trackingOff_neverServed() {
    NearCache validated = new NearCache(1 << 20);
    validated.put("s1", new NearCache.Snapshot(3, 1, Map.of(), validated.epoch(),
        new NearCache.Metadata(5, 1800, null), StoredPack.NONE, validated.stamp("s1")));

    assertThat(validated.trusted("s1")).isNull();
    assertThat(validated.stamp("s1")).isEqualTo(NearCacheTracking.UNTRUSTED);
  }

  @Test
  void checked_clusterOrNoNearCache_refusedNamingTheProperty() {
    assertThatThrownBy(() -> NearCacheTracking.checked(Duration.ofSeconds(1), true, 1))
        .hasMessageContaining("lazysession.near-cache.mode").hasMessageContaining("Cluster");
    assertThatThrownBy(() -> NearCacheTracking.checked(Duration.ofSeconds(1), false, 0))
        .hasMessageContaining("lazysession.near-cache.mode")
        .hasMessageContaining("lazysession.near-cache.max-bytes");
  }

  private static String otherStripeThan(String id) {
    for (int i = 0; ; i++) {
      if (NearCacheTracking.stripe("other-" + i) != NearCacheTracking.stripe(id)) {
        return "other-" + i;
      }
    }
  }
}
