package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.micrometer.LazySessionMetrics;
import io.lazysession.testing.RedisServerExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LazySessionMetrics}' size summaries fed by real saves: 100 sessions of 100 attributes
 * each, 10,000 distinct attribute names, give at most 21 values of the {@code attribute} tag (the
 * 20 largest names and {@code other}), and one session sample per save.
 */
class SessionSizeMetricsIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  @Test
  void save_tenThousandDistinctAttributeNames_attributeTagBoundedToTheLargest() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LazySessionMetrics metrics = new LazySessionMetrics(nodes.a());
    metrics.bindTo(registry);
    Map<String, Long> largest = new HashMap<>();
    nodes.a().addSizeListener((stored, attributes) ->
        attributes.forEach((name, bytes) -> largest.merge(name, bytes, Math::max)));
    Random random = new Random(3);

    for (int s = 0; s < 100; s++) {
      LazySession session = nodes.a().createSession();
      for (int a = 0; a < 100; a++) {
        session.setAttribute("attr-" + s + "-" + a, "x".repeat(random.nextInt(3_000)));
      }
      nodes.a().save(session);
    }

    assertThat(largest).hasSize(10_000);
    Set<String> tags = registry.find("lazysession.attribute.stored.bytes").summaries().stream()
        .map(summary -> summary.getId().getTag("attribute")).collect(Collectors.toSet());
    assertThat(tags).hasSize(21).contains("other");
    long smallestRanked = metrics.largestAttributes().stream()
        .mapToLong(LazySessionMetrics.LargestAttribute::largestBytes).min().orElseThrow();
    largest.forEach((name, bytes) -> {
      if (!tags.contains(name)) {
        assertThat(bytes).as(name).isLessThanOrEqualTo(smallestRanked);
      }
    });
    assertThat(registry.find("lazysession.session.stored.bytes").tag("namespace",
        nodes.namespace()).summary().count()).isEqualTo(100);
  }
}
