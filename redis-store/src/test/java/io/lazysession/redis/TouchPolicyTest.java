package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** When a read-only request writes the last access time. */
class TouchPolicyTest {
  @Test
  void dividedBy_manyDurations_asDurationDividedBy() {
    SplittableRandom random = new SplittableRandom(5);
    Duration[] edges = {Duration.ofNanos(1), Duration.ofNanos(99), Duration.ofMinutes(30),
        Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L - 1, 999_999_999),
        Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L), Duration.ofSeconds(Long.MAX_VALUE)};
    for (Duration edge : edges) {
      assertThat(TouchPolicy.dividedBy(edge, 100)).isEqualTo(edge.dividedBy(100));
      assertThat(TouchPolicy.dividedBy(edge, 10)).isEqualTo(edge.dividedBy(10));
    }
    for (int i = 0; i < 10_000; i++) {
      Duration duration = Duration.ofSeconds(random.nextLong(1L << random.nextInt(1, 40)),
          random.nextInt(1_000_000_000));
      assertThat(TouchPolicy.dividedBy(duration, 100)).isEqualTo(duration.dividedBy(100));
      assertThat(TouchPolicy.dividedBy(duration, 10)).isEqualTo(duration.dividedBy(10));
    }
  }
}
