package io.lazysession.redis.micrometer;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.LazySession;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.session.FindByIndexNameSessionRepository;

/**
 * A {@link LazyRedisSessionRepository} that times {@code findById} and {@code save} (Micrometer
 * timers {@code lazysession.find} and {@code lazysession.save}, tagged with the namespace and
 * {@code outcome} = {@code success} or {@code error}); everything else goes straight through.
 * Until {@link #bindTo} is called the timers are not recorded (Spring Boot binds every
 * {@link MeterBinder} bean to its registries at startup).
 *
 * <pre>{@code
 * TimedSessionRepository timed = new TimedSessionRepository(repository);
 * timed.bindTo(meterRegistry);
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class TimedSessionRepository
    implements FindByIndexNameSessionRepository<LazySession>, MeterBinder {
  private static final Logger log = LoggerFactory.getLogger(TimedSessionRepository.class);

  private final LazyRedisSessionRepository repository;
  private final CopyOnWriteArrayList<MeterRegistry> registries = new CopyOnWriteArrayList<>();

  public TimedSessionRepository(LazyRedisSessionRepository repository) {
    this.repository = Objects.requireNonNull(repository, "repository must not be null");
  }

  /** The repository this one times. */
  public LazyRedisSessionRepository delegate() {
    return repository;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    registries.addIfAbsent(registry);
  }

  @Override
  public LazySession createSession() {
    return repository.createSession();
  }

  @Override
  public void save(LazySession session) {
    timed("lazysession.save", "sessions written (or found unchanged) at the end of a request",
        () -> {
          repository.save(session);
          return null;
        });
  }

  @Override
  public @Nullable LazySession findById(String id) {
    return timed("lazysession.find", "sessions looked up by id, near cache check included",
        () -> repository.findById(id));
  }

  @Override
  public void deleteById(String id) {
    repository.deleteById(id);
  }

  @Override
  public Map<String, LazySession> findByIndexNameAndIndexValue(String indexName,
      String indexValue) {
    return repository.findByIndexNameAndIndexValue(indexName, indexValue);
  }

  private <T> T timed(String name, String description, Supplier<T> call) {
    if (registries.isEmpty()) {
      return call.get();
    }
    long start = System.nanoTime();
    String outcome = "error";
    try {
      T result = call.get();
      outcome = "success";
      return result;
    } finally {
      long elapsed = System.nanoTime() - start;
      for (MeterRegistry registry : registries) {
        record(registry, name, description, outcome, elapsed);
      }
    }
  }

  private void record(MeterRegistry registry, String name, String description, String outcome,
      long nanos) {
    try {
      Timer.builder(name)
          .description(description)
          .tags("namespace", repository.namespace(), "outcome", outcome)
          .register(registry)
          .record(nanos, TimeUnit.NANOSECONDS);
    } catch (RuntimeException e) {
      // A registry's failure (e.g. a meter filter throwing) must not fail the user's request.
      log.debug("Could not record {}", name, e);
    }
  }
}
