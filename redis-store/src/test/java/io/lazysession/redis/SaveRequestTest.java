package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Numbers in the scripts' arguments. */
class SaveRequestTest {
  @Test
  void decimal_manyNumbers_asLongToStringWritesThem() {
    long[] edges = {0, 1, -1, 9, 10, -10, 99, 100, Long.MAX_VALUE, Long.MIN_VALUE,
        Long.MIN_VALUE + 1, Integer.MAX_VALUE, Integer.MIN_VALUE, 1_763_900_000_000L};
    for (long value : edges) {
      assertThat(new String(SaveRequest.decimal(value), UTF_8)).isEqualTo(Long.toString(value));
    }
    SplittableRandom random = new SplittableRandom(11);
    for (int i = 0; i < 10_000; i++) {
      long value = random.nextLong() >> random.nextInt(64);
      assertThat(new String(SaveRequest.decimal(value), UTF_8)).isEqualTo(Long.toString(value));
    }
  }
}
