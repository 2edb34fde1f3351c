package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The near cache's own upkeep: done by the thread that writes, not by a pool. */
class NearCacheTest {
  private static final int VALUE_BYTES = 1_000;

  @Test
  void put_overTheBoundWhileTheCommonPoolIsBusy_evictsBeforeReturning() throws Exception {
    NearCache cache = new NearCache(10 * VALUE_BYTES);
    // Every thread of the common pool waits: upkeep handed to it would not run before the release.
    int threads = Math.max(1, ForkJoinPool.getCommonPoolParallelism());
    CountDownLatch started = new CountDownLatch(threads);
    CountDownLatch release = new CountDownLatch(1);
    for (int i = 0; i < threads; i++) {
      ForkJoinPool.commonPool().execute(() -> {
        started.countDown();
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    try {
      assertThat(started.await(10, TimeUnit.SECONDS)).as("common pool busy").isTrue();

      for (int i = 0; i < 40; i++) {
        cache.put("s" + i, new NearCache.Snapshot(1, 1,
            Map.of("cart", new byte[VALUE_BYTES]), cache.epoch()));
      }

      assertThat(cache.estimatedSize()).isLessThan(10);
    } finally {
      release.countDown();
    }
  }

  @Test
  void rounded_aFewBytesMore_sameWeightAndNeverAnEighthOver() {
    assertThat(NearCache.rounded(1_843)).isEqualTo(NearCache.rounded(1_850)).isEqualTo(1_920);
    assertThat(NearCache.rounded(2_048)).isEqualTo(2_048);
    assertThat(NearCache.rounded(40)).isEqualTo(40);
    int previous = 0;
    for (long bytes = 1; bytes < 1_000_000; bytes += 7) {
      int weight = NearCache.rounded(bytes);
      assertThat(weight).isGreaterThanOrEqualTo((int) bytes).isGreaterThanOrEqualTo(previous)
          .isLessThanOrEqualTo((int) (bytes + bytes / 8));
      previous = weight;
    }
    assertThat(NearCache.rounded(Long.MAX_VALUE / 2)).isEqualTo(Integer.MAX_VALUE);
  }
}
