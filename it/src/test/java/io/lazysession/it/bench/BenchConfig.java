package io.lazysession.it.bench;

import io.lazysession.it.bench.shop.SessionSize;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * How long and how wide a benchmark run is. Every loop of the run is bounded both by a request count
 * and by a duration. Immutable.
 *
 * @param globalWarmup least time every store runs each workload, before anything is measured, so that
 *     the JIT has compiled the code of all stores alike (the first store measured is not penalised);
 *     it runs on until the JIT is quiet ({@link JitWarmup}); zero: no warm-up
 * @param warmupCap most time a store runs each workload in that warm-up, quiet JIT or not
 * @param warmup time each cell runs before it is measured
 * @param measure time each cell is measured for (at most; the request cap may end it sooner)
 * @param maxRequests request cap of one cell (warm-up and measurement each), shared by its threads
 * @param threads the thread counts each cell runs with
 * @param sessions sessions created per store and size; requests spread over them
 * @param sizes the session sizes
 * @param stores names of the stores to run ({@code all}, or names as {@link StoreSpec#name()})
 * @param workloads the workloads
 * @param createBudgetBytes bound on what the creation workload stores per cell (estimated from the
 *     measured size of one session), so that large sessions do not fill Redis
 * @param outputDirectory where the table, the CSV and the chart go
 * @param extras whether to run, after the matrix, the cells that are not per store and size: MEMORY
 *     USAGE with {@code hash-max-listpack-value} raised, durable saves on a primary with a replica,
 *     1 MB and 10 MB values, and a 20 MB value
 * @param largeRequests request cap of each 1 MB and 10 MB cell (warm-up and measurement each)
 * @param floorRounds rounds of the interleaved floor cells (PING, read, change of the stores the
 *     CPU targets are checked on, one after the other in each round); 0 skips them
 * @param pairedRounds measured rounds of the paired floor measurement (the same stores and requests
 *     on one request thread, alternating between the stores every {@code pairedBatch} requests; see
 *     {@link PairedRounds}); 0 skips it
 * @param pairedSlices slices of each paired round: in each, every store runs one batch of each
 *     request
 * @param pairedBatch requests of one paired batch, between two readings of the thread's CPU time
 */
public record BenchConfig(Duration globalWarmup, Duration warmupCap, Duration warmup, Duration measure, int maxRequests, List<Integer> threads,
    int sessions, List<SessionSize> sizes, List<String> stores, List<Workload> workloads,
    long createBudgetBytes, Path outputDirectory, boolean extras, int largeRequests,
    int floorRounds, int pairedRounds, int pairedSlices, int pairedBatch) {

  /**
   * The full run: 0.9 seconds per cell (250 ms warm-up, 650 ms measured); about nine minutes for
   * the whole matrix and the extra cells on 2 cores.
   */
  public static BenchConfig full() {
    return new BenchConfig(Duration.ofSeconds(2), Duration.ofSeconds(20), Duration.ofMillis(250),
        Duration.ofMillis(650),
        200_000, List.of(1, 16),
        ReplicationCostHarness.MEMORY_SESSIONS, List.of(SessionSize.values()), List.of("all"), List.of(Workload.values()),
        256L << 20, Path.of("target", "benchmark"), true, 12, 5, 0, 40, 32);
  }

  /** A run of about twenty requests per cell, for the smoke test. */
  public static BenchConfig tiny() {
    return new BenchConfig(Duration.ZERO, Duration.ZERO, Duration.ofMillis(50),
        Duration.ofMillis(2000), 20,
        List.of(1, 16), 16,
        List.of(SessionSize.values()), List.of("all"), List.of(Workload.values()), 16L << 20,
        Path.of("target", "benchmark-smoke"), true, 2, 2, 1, 1, 2);
  }

  /**
   * This configuration with every {@code bench.*} system property that is set applied:
   * {@code bench.globalWarmupMillis}, {@code bench.warmupCapMillis}, {@code bench.warmupMillis}, {@code bench.measureMillis}, {@code bench.maxRequests},
   * {@code bench.threads} (e.g. {@code 1,16}), {@code bench.sessions}, {@code bench.sizes} (e.g.
   * {@code small,reference}), {@code bench.stores} (e.g. {@code spring,lazy-kryo-zstd}),
   * {@code bench.workloads} (e.g. {@code read,write}), {@code bench.createBudgetMb},
   * {@code bench.outputDir}, {@code bench.extras} ({@code true} or {@code false}),
   * {@code bench.largeRequests}, {@code bench.floorRounds}, {@code bench.pairedRounds},
   * {@code bench.pairedSlices}, {@code bench.pairedBatch}.
   */
  public BenchConfig withSystemProperties() {
    return new BenchConfig(
        property("bench.globalWarmupMillis", globalWarmup,
            v -> Duration.ofMillis(Long.parseLong(v))),
        property("bench.warmupCapMillis", warmupCap, v -> Duration.ofMillis(Long.parseLong(v))),
        property("bench.warmupMillis", warmup, v -> Duration.ofMillis(Long.parseLong(v))),
        property("bench.measureMillis", measure, v -> Duration.ofMillis(Long.parseLong(v))),
        property("bench.maxRequests", maxRequests, Integer::parseInt),
        property("bench.threads", threads, v -> list(v, Integer::parseInt)),
        property("bench.sessions", sessions, Integer::parseInt),
        property("bench.sizes", sizes,
            v -> list(v, s -> SessionSize.valueOf(s.toUpperCase(Locale.ROOT)))),
        property("bench.stores", stores, v -> list(v, s -> s)),
        property("bench.workloads", workloads, v -> list(v, Workload::parse)),
        property("bench.createBudgetMb", createBudgetBytes, v -> Long.parseLong(v) << 20),
        property("bench.outputDir", outputDirectory, Path::of),
        property("bench.extras", extras, BenchConfig::bool),
        property("bench.largeRequests", largeRequests, Integer::parseInt),
        property("bench.floorRounds", floorRounds, Integer::parseInt),
        property("bench.pairedRounds", pairedRounds, Integer::parseInt),
        property("bench.pairedSlices", pairedSlices, Integer::parseInt),
        property("bench.pairedBatch", pairedBatch, Integer::parseInt)).validated();
  }

  BenchConfig validated() {
    if (measure.isNegative() || measure.isZero()) {
      throw new IllegalArgumentException("bench.measureMillis must be > 0, was " + measure.toMillis());
    }
    if (maxRequests < 1) {
      throw new IllegalArgumentException("bench.maxRequests must be >= 1, was " + maxRequests);
    }
    if (largeRequests < 1) {
      throw new IllegalArgumentException("bench.largeRequests must be >= 1, was " + largeRequests);
    }
    if (floorRounds < 0) {
      throw new IllegalArgumentException("bench.floorRounds must be >= 0, was " + floorRounds);
    }
    if (pairedRounds < 0) {
      throw new IllegalArgumentException("bench.pairedRounds must be >= 0, was " + pairedRounds);
    }
    if (pairedSlices < 1) {
      throw new IllegalArgumentException("bench.pairedSlices must be >= 1, was " + pairedSlices);
    }
    if (pairedBatch < 1) {
      throw new IllegalArgumentException("bench.pairedBatch must be >= 1, was " + pairedBatch);
    }
    if (sessions < 1) {
      throw new IllegalArgumentException("bench.sessions must be >= 1, was " + sessions);
    }
    if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1 || t > 256)) {
      throw new IllegalArgumentException("bench.threads must be between 1 and 256, was " + threads);
    }
    return this;
  }

  boolean runs(StoreSpec store) {
    return stores.contains("all") || stores.contains(store.name());
  }

  private static <T> T property(String name, T defaultValue, Function<String, T> parser) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      return defaultValue;
    }
    try {
      return parser.apply(value.trim());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(name + " cannot be read: '" + value + "' (" + e.getMessage()
          + ")", e);
    }
  }

  private static boolean bool(String value) {
    if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
      throw new IllegalArgumentException("expected true or false");
    }
    return Boolean.parseBoolean(value);
  }

  private static <T> List<T> list(String value, Function<String, T> parser) {
    return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).map(parser)
        .toList();
  }
}
