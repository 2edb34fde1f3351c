package io.lazysession.redis.micrometer;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.RepositoryMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Publishes a {@link LazyRedisSessionRepository}'s {@linkplain LazyRedisSessionRepository#metrics()
 * metrics} as Micrometer function counters named {@code lazysession.*}, tagged with the namespace.
 * The counters read the repository's own counters when scraped; nothing is recorded twice. The
 * find and save timers are {@link TimedSessionRepository}'s.
 *
 * <p>Sizes, recorded as each save is made ({@link LazyRedisSessionRepository#addSizeListener}):
 * distribution summaries {@code lazysession.session.stored.bytes} (each saved session's stored
 * size) and {@code lazysession.attribute.stored.bytes} (each attribute of it; tag {@code
 * attribute}). The attribute tag is bounded: a name has its own value while it is among the {@code
 * maxAttributeNames} largest seen on this node (by its largest sample; a larger newcomer displaces
 * the smallest, whose summary is removed), every other sample is {@code attribute=other}: at most
 * {@code maxAttributeNames + 1} values at any time. {@link #largestAttributes()} lists the ranking.
 *
 * <pre>{@code
 * new LazySessionMetrics(repository).bindTo(meterRegistry);
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class LazySessionMetrics implements MeterBinder {
  /** Default of the number of attribute names with summaries of their own. */
  public static final int DEFAULT_MAX_ATTRIBUTE_NAMES = 20;

  private final LazyRedisSessionRepository repository;
  private final int maxAttributeNames;
  private volatile @Nullable AttributeSizeSummaries sizes;

  public LazySessionMetrics(LazyRedisSessionRepository repository) {
    this(repository, DEFAULT_MAX_ATTRIBUTE_NAMES);
  }

  /** With at most {@code maxAttributeNames} attribute names tagged by name (the rest: other). */
  public LazySessionMetrics(LazyRedisSessionRepository repository, int maxAttributeNames) {
    this.repository = Objects.requireNonNull(repository, "repository must not be null");
    if (maxAttributeNames < 1) {
      throw new IllegalArgumentException("maxAttributeNames must be >= 1, was "
          + maxAttributeNames);
    }
    this.maxAttributeNames = maxAttributeNames;
  }

  /**
   * One attribute name among the largest seen on this node since the metrics were bound.
   *
   * @param name the attribute name
   * @param largestBytes the largest stored bytes recorded for it
   * @param samples how many saves recorded it since it entered the ranking
   */
  public record LargestAttribute(String name, long largestBytes, long samples) {}

  /**
   * The attribute names with summaries of their own, largest first (of the registry bound last);
   * empty before {@link #bindTo}.
   */
  public List<LargestAttribute> largestAttributes() {
    AttributeSizeSummaries bound = sizes;
    return bound == null ? List.of() : bound.largest();
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Tags tags = Tags.of("namespace", repository.namespace());
    AttributeSizeSummaries summaries =
        new AttributeSizeSummaries(registry, tags, maxAttributeNames);
    repository.addSizeListener(summaries);
    sizes = summaries;
    counter(registry, tags, "lazysession.loads", "sessions loaded from Redis", null,
        RepositoryMetrics::loads);
    counter(registry, tags, "lazysession.near.cache.hits",
        "loads answered from the near cache after Redis confirmed the version", null,
        RepositoryMetrics::nearCacheHits);
    counter(registry, tags, "lazysession.near.cache.trusted.hits",
        "finds answered from the near cache without a Redis call (near-cache mode track)", null,
        RepositoryMetrics::nearCacheTrustedHits);
    counter(registry, tags, "lazysession.saves", "sessions written to Redis", null,
        RepositoryMetrics::saves);
    counter(registry, tags, "lazysession.saves.skipped", "saves with nothing to write", null,
        RepositoryMetrics::savesSkipped);
    counter(registry, tags, "lazysession.round.trips", "commands sent to Redis", null,
        RepositoryMetrics::roundTrips);
    counter(registry, tags, "lazysession.bytes.read", "payload bytes read from Redis", "bytes",
        RepositoryMetrics::bytesRead);
    counter(registry, tags, "lazysession.bytes.written", "payload bytes written to Redis", "bytes",
        RepositoryMetrics::bytesWritten);
    counter(registry, tags, "lazysession.decode.failures", "attributes that could not be decoded",
        null, RepositoryMetrics::decodeFailures);
    counter(registry, tags.and("state", "inflated"), "lazysession.attributes",
        "loaded attributes, by whether a request decoded them", null,
        RepositoryMetrics::attributesInflated);
    counter(registry, tags.and("state", "compressed"), "lazysession.attributes",
        "loaded attributes, by whether a request decoded them", null,
        RepositoryMetrics::attributesLeftCompressed);
    counter(registry, tags, "lazysession.sessions.expired", "sessions reported as expired", null,
        RepositoryMetrics::sessionsExpired);
    counter(registry, tags, "lazysession.sessions.deleted", "sessions deleted", null,
        RepositoryMetrics::sessionsDeleted);
    counter(registry, tags, "lazysession.script.reloads", "scripts sent again after Redis lost them",
        null, RepositoryMetrics::scriptReloads);
    // The mean since start, from the two counters above: exact under concurrency, where a
    // per-save figure would need a hook in the repository's save path.
    Gauge.builder("lazysession.save.bytes", repository, r -> {
          RepositoryMetrics metrics = r.metrics();
          return metrics.saves() == 0 ? 0 : (double) metrics.bytesWritten() / metrics.saves();
        })
        .description("mean payload bytes written per save since start")
        .baseUnit("bytes")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder("lazysession.codec.fallbacks", repository,
            r -> r.serializer().codecFallbacks())
        .description("values stored with Java serialization because Kryo could not encode them")
        .tags(tags)
        .register(registry);
    Gauge.builder("lazysession.encryption.accepts.unprotected", repository,
            r -> r.acceptsUnprotectedValues() ? 1 : 0)
        .description("1 while this node has keys and still reads values stored without "
            + "protection (a rollout), else 0")
        .tags(tags)
        .register(registry);
    Gauge.builder("lazysession.allow.list.outside", repository,
            r -> r.serializer().allowList().outsideClasses().size())
        .description("classes outside the allow-list that audit mode let through")
        .tags(tags)
        .register(registry);
    counter(registry, tags, "lazysession.sessions.migrated",
        "sessions taken over from Spring Session Data Redis", null,
        RepositoryMetrics::sessionsMigrated);
    counter(registry, tags, "lazysession.values.rejected",
        "stored values refused by encryption (forged, copied, or unprotected when refused)", null,
        RepositoryMetrics::rejectedValues);
    counter(registry, tags, "lazysession.values.unprotected",
        "values read without protection while encryption keys are set", null,
        RepositoryMetrics::unprotectedValuesRead);
  }

  private void counter(MeterRegistry registry, Tags tags, String name, String description,
      @Nullable String unit, ToDoubleFunction<RepositoryMetrics> value) {
    FunctionCounter.builder(name, repository, r -> value.applyAsDouble(r.metrics()))
        .description(description)
        .baseUnit(unit)
        .tags(tags)
        .register(registry);
  }
}
