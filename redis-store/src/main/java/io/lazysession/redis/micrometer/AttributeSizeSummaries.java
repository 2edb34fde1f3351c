package io.lazysession.redis.micrometer;

import io.lazysession.redis.SessionSizeListener;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The distribution summaries of stored bytes per session and per attribute name, with a bounded
 * number of attribute names. Thread-safe.
 *
 * <p>Design: a name gets a summary of its own (tag {@code attribute=<name>}) while it is among the
 * {@code maxNames} largest seen on this node, ranked by the largest size ever recorded for it; every
 * other sample goes to {@code attribute=other}. A name whose sample is larger than the smallest
 * ranked name's largest takes that name's place, and the summary of the name it displaces is removed
 * from the registry, so at any time there are at most {@code maxNames + 1} attribute summaries. A
 * sample of a ranked name, or one too small to enter, takes no lock; only a name entering the
 * ranking does.
 */
final class AttributeSizeSummaries implements SessionSizeListener {
  static final String SESSION_METER = "lazysession.session.stored.bytes";
  static final String ATTRIBUTE_METER = "lazysession.attribute.stored.bytes";
  static final String OTHER = "other";

  private final MeterRegistry registry;
  private final Tags tags;
  private final int maxNames;
  private final DistributionSummary sessions;
  private final DistributionSummary other;
  private final Map<String, Ranked> ranked = new ConcurrentHashMap<>();
  /** While the ranking is full: no ranked name's largest is below this (read without a lock). */
  private volatile long floor = -1;

  /** A ranked name: its summary, its largest sample and its sample count. */
  private record Ranked(DistributionSummary summary, AtomicLong largest, LongAdder samples) {}

  AttributeSizeSummaries(MeterRegistry registry, Tags tags, int maxNames) {
    this.registry = registry;
    this.tags = tags;
    this.maxNames = maxNames;
    this.sessions = DistributionSummary.builder(SESSION_METER)
        .description("stored size of each session a save writes (key, field names and values)")
        .baseUnit("bytes").tags(tags).register(registry);
    this.other = attributeSummary(OTHER);
  }

  private DistributionSummary attributeSummary(String name) {
    return DistributionSummary.builder(ATTRIBUTE_METER)
        .description("stored bytes of each attribute a saved session holds (a packed one: its "
            + "share of the pack), for the largest attribute names; the rest as other")
        .baseUnit("bytes").tags(tags.and("attribute", name)).register(registry);
  }

  @Override
  public void saved(long storedBytes, Map<String, Long> attributes) {
    sessions.record(storedBytes);
    attributes.forEach(this::record);
  }

  void record(String name, long bytes) {
    Ranked entry = ranked.get(name);
    if (entry == null && !OTHER.equals(name) && bytes > floor) {
      entry = enter(name, bytes);
    }
    if (entry == null) {
      other.record(bytes);
      return;
    }
    entry.largest().accumulateAndGet(bytes, Math::max);
    entry.samples().increment();
    entry.summary().record(bytes);
  }

  /** Ranks {@code name} when there is room or it beats the smallest; null when it does not. */
  private synchronized @Nullable Ranked enter(String name, long bytes) {
    Ranked entry = ranked.get(name);
    if (entry != null) {
      return entry;
    }
    if (ranked.size() >= maxNames) {
      Map.Entry<String, Ranked> smallest = smallest();
      if (smallest == null || bytes <= smallest.getValue().largest().get()) {
        return null;
      }
      ranked.remove(smallest.getKey());
      registry.remove(smallest.getValue().summary());
    }
    entry = new Ranked(attributeSummary(name), new AtomicLong(bytes), new LongAdder());
    ranked.put(name, entry);
    if (ranked.size() >= maxNames) {
      Map.Entry<String, Ranked> smallest = smallest();
      floor = smallest == null ? -1 : smallest.getValue().largest().get();
    }
    return entry;
  }

  private Map.@Nullable Entry<String, Ranked> smallest() {
    return ranked.entrySet().stream()
        .min(Comparator.comparingLong(e -> e.getValue().largest().get())).orElse(null);
  }

  /** The ranked names, largest first. */
  List<LazySessionMetrics.LargestAttribute> largest() {
    List<LazySessionMetrics.LargestAttribute> largest = new ArrayList<>(ranked.size());
    ranked.forEach((name, entry) -> largest.add(new LazySessionMetrics.LargestAttribute(name,
        entry.largest().get(), entry.samples().sum())));
    largest.sort(Comparator.comparingLong(LazySessionMetrics.LargestAttribute::largestBytes)
        .reversed().thenComparing(LazySessionMetrics.LargestAttribute::name));
    return List.copyOf(largest);
  }
}
