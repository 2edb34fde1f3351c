package io.lazysession.redis.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The attribute tag of {@code lazysession.attribute.stored.bytes} is bounded: with 10,000 distinct
 * attribute names, at most 20 names and {@code other} have summaries, and they are the largest.
 */
class AttributeSizeSummariesTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AttributeSizeSummaries summaries =
      new AttributeSizeSummaries(registry, Tags.of("namespace", "t"), 20);

  private Set<String> attributeTags() {
    return registry.find(AttributeSizeSummaries.ATTRIBUTE_METER).summaries().stream()
        .map(s -> s.getId().getTag("attribute")).collect(Collectors.toSet());
  }

  @Test
  void record_tenThousandNamesGrowingInSize_onlyTheTwentyLargestAndOtherTagged() {
    for (int i = 0; i < 10_000; i++) {
      summaries.saved(1_000 + i, Map.of("name" + i, (long) i));
    }

    Set<String> expected = new java.util.HashSet<>();
    for (int i = 9_980; i < 10_000; i++) {
      expected.add("name" + i);
    }
    expected.add("other");
    assertThat(attributeTags()).isEqualTo(expected);
    assertThat(registry.find(AttributeSizeSummaries.SESSION_METER).summary().count())
        .isEqualTo(10_000);
  }

  @Test
  void record_tenThousandNamesInRandomOrder_boundedAndNoUnrankedNameLargerThanARankedOne() {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      order.add(i);
    }
    Collections.shuffle(order, new Random(42));
    Random sizes = new Random(7);
    Map<String, Long> largest = new HashMap<>();
    for (int round = 0; round < 3; round++) {
      for (int i : order) {
        long bytes = 10 + sizes.nextInt(100_000);
        largest.merge("name" + i, bytes, Math::max);
        summaries.saved(bytes, Map.of("name" + i, bytes));
      }
    }

    Set<String> tags = attributeTags();
    assertThat(tags).hasSize(21).contains("other");
    long smallestRanked = summaries.largest().stream()
        .mapToLong(LazySessionMetrics.LargestAttribute::largestBytes).min().orElseThrow();
    largest.forEach((name, bytes) -> {
      if (!tags.contains(name)) {
        assertThat(bytes).as(name).isLessThanOrEqualTo(smallestRanked);
      }
    });
    assertThat(summaries.largest()).hasSize(20).isSortedAccordingTo((a, b) ->
        Long.compare(b.largestBytes(), a.largestBytes()));
  }

  @Test
  void record_aNameCalledOther_sharesTheOtherSummary() {
    summaries.saved(10, Map.of("other", 5L));

    assertThat(attributeTags()).containsExactly("other");
    DistributionSummary other = registry.find(AttributeSizeSummaries.ATTRIBUTE_METER)
        .tag("attribute", "other").summary();
    assertThat(other.count()).isEqualTo(1);
    assertThat(summaries.largest()).isEmpty();
  }

  @Test
  void record_rankedName_summaryHasItsSamples() {
    summaries.saved(100, Map.of("cart", 60L, "user", 20L));
    summaries.saved(120, Map.of("cart", 80L));

    DistributionSummary cart = registry.find(AttributeSizeSummaries.ATTRIBUTE_METER)
        .tag("attribute", "cart").summary();
    assertThat(cart.count()).isEqualTo(2);
    assertThat(cart.max()).isEqualTo(80);
    assertThat(summaries.largest()).containsExactly(
        new LazySessionMetrics.LargestAttribute("cart", 80, 2),
        new LazySessionMetrics.LargestAttribute("user", 20, 1));
  }
}
