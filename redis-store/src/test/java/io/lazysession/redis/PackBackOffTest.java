package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The pause between attempts of a save whose pack other requests keep rewriting: none after the
 * first conflict, then random and growing up to a cap; the reactive writer waits it on a timer, not
 * on the subscribing thread, and only then rebases. No timing is asserted.
 */
class PackBackOffTest {
  @Test
  void backOffNanos_firstConflict_noPause() {
    assertThat(AttributePacking.backOffNanos(1)).isZero();
  }

  @Test
  void backOffNanos_laterConflicts_randomBelowABoundThatGrowsToACap() {
    long[] second = IntStream.range(0, 2_000).mapToLong(i -> AttributePacking.backOffNanos(2))
        .toArray();
    long[] late = IntStream.range(0, 2_000).mapToLong(i -> AttributePacking.backOffNanos(100))
        .toArray();

    assertThat(java.util.Arrays.stream(second).min().orElseThrow()).isNotNegative();
    assertThat(java.util.Arrays.stream(second).max().orElseThrow()).isLessThan(100_000L);
    assertThat(java.util.Arrays.stream(late).min().orElseThrow()).isNotNegative();
    assertThat(java.util.Arrays.stream(late).max().orElseThrow()).isLessThan(25_600_000L);
    assertThat(java.util.Arrays.stream(late).max().orElseThrow()).as("grows past the second's")
        .isGreaterThan(100_000L);
    assertThat(java.util.Arrays.stream(second).distinct().count()).as("random").isGreaterThan(1);
  }

  @Test
  void afterPause_none_isTheNextStepItself() {
    Mono<String> next = Mono.just("rebased");

    assertThat(ReactiveSessionWriter.afterPause(0, next)).isSameAs(next);
  }

  @Test
  void afterPause_pending_neitherBlocksTheSubscriberNorRunsTheNextStepEarly() {
    AtomicBoolean rebased = new AtomicBoolean();
    Mono<String> next = Mono.fromCallable(() -> {
      rebased.set(true);
      return "rebased";
    });

    Disposable subscription = ReactiveSessionWriter.afterPause(TimeUnit.HOURS.toNanos(1), next)
        .subscribe();

    assertThat(rebased).as("not before the pause").isFalse();
    assertThat(subscription.isDisposed()).as("still waiting, on a timer").isFalse();
    subscription.dispose();
  }

  @Test
  void afterPause_short_runsTheNextStepThen() {
    Mono<String> paused = ReactiveSessionWriter.afterPause(1_000, Mono.just("rebased"));

    assertThat(paused.block(Duration.ofSeconds(10))).isEqualTo("rebased");
  }
}
