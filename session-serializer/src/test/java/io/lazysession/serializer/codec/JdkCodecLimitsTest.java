package io.lazysession.serializer.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.fixtures.ConstantHashEntity;
import io.lazysession.serializer.fixtures.SharedSets;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The JDK codec's limits one at a time, which the public API cannot separate: the graph limit with
 * no CPU budget, and the CPU budget (50 ms, nothing per byte) on clocks that advance one microsecond
 * per {@code equals} call of {@link ConstantHashEntity}: the work hash flooding costs, counted, so
 * nothing depends on this machine's speed or load.
 */
class JdkCodecLimitsTest {
  private static final ClassAllowList ALLOW = ClassAllowList.builder()
      .allowPackage(ConstantHashEntity.class.getPackageName()).build();
  private static final LongSupplier EQUALS_CLOCK = () -> ConstantHashEntity.EQUALS_CALLS.get() * 1_000;
  private static final long BUDGET_NANOS = 50_000_000L;

  private final JdkCodec budgeted = codec(new DecodeBudget(BUDGET_NANOS, 0, EQUALS_CLOCK, EQUALS_CLOCK));

  private JdkCodec codec(DecodeBudget budget) {
    return new JdkCodec(ALLOW, getClass().getClassLoader(), Codecs.DEFAULT_MAX_PAYLOAD_BYTES, budget);
  }

  @BeforeEach
  void resetClock() {
    ConstantHashEntity.EQUALS_CALLS.set(0);
  }

  private static Set<ConstantHashEntity> entities(int count) {
    Set<ConstantHashEntity> entities = new HashSet<>();
    for (int i = 0; i < count; i++) {
      entities.add(new ConstantHashEntity(i, "product " + i));
    }
    return entities;
  }

  @Test
  void decode_serialDosHashSetsWithoutBudget_refusedByGraphLimit() {
    JdkCodec unbudgeted = codec(new DecodeBudget(Long.MAX_VALUE / 2, 0, () -> 0, () -> 0));
    byte[] depth40 = unbudgeted.encode(SharedSets.serialDos(40));

    assertThatThrownBy(() -> unbudgeted.decode(depth40, 0, depth40.length))
        .isInstanceOf(DecodeLimitException.class).hasMessageContaining("maxGraphVisits");
  }

  @Test
  void decode_hashSetPastBudget_refusedBetweenElements() {
    byte[] payload = budgeted.encode(entities(2_000)); // 2,000,000 equals calls: 2 s on this clock
    ConstantHashEntity.EQUALS_CALLS.set(0);

    assertThatThrownBy(() -> budgeted.decode(payload, 0, payload.length))
        .isInstanceOf(DecodeLimitException.class)
        .hasMessageContaining("more than 50 ms of CPU time").hasMessageContaining("decodeCpuTime");
    // stopped a few elements past the budget, not at the end of the set
    assertThat(ConstantHashEntity.EQUALS_CALLS.get())
        .isBetween(BUDGET_NANOS / 1_000, 2 * BUDGET_NANOS / 1_000);
  }

  @Test
  void decode_hashSetWithinBudget_readBack() {
    Set<ConstantHashEntity> entities = entities(300); // 45,000 equals calls: 45 ms
    byte[] payload = budgeted.encode(entities);
    ConstantHashEntity.EQUALS_CALLS.set(0);

    assertThat(budgeted.decode(payload, 0, payload.length)).isEqualTo(entities);
  }
}
