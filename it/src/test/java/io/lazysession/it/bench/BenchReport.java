package io.lazysession.it.bench;

import io.lazysession.it.bench.shop.SessionSize;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Turns the cells of a run into a Markdown report (tables, ratios to Spring Session Data Redis, the
 * design targets met or missed), a CSV of every cell, and an SVG chart of bytes and latency per
 * store. Not thread-safe.
 */
final class BenchReport {
  static final String MARKDOWN = "replication-cost.md";
  static final String CSV = "replication-cost.csv";
  static final String SVG = "replication-cost.svg";
  /** The store every ratio is taken against. */
  static final String PEER = "spring";
  /** The lazysession store the targets are checked on: its default configuration. */
  static final String DEFAULT_LAZY = "lazy-kryo-zstd";
  static final String DICTIONARY_LAZY = "lazy-kryo-zstd-dict";

  /** What the run was: where, on what, with which settings. */
  record RunInfo(String date, String machine, String jvm, String redis, BenchConfig config,
      List<StoreSpec> stores) {}

  private final List<CellResult> results;
  private final ReplicationCostHarness.Run run;
  private final RunInfo info;
  private final int fewThreads;
  private final int manyThreads;

  BenchReport(ReplicationCostHarness.Run run, RunInfo info) {
    this.results = List.copyOf(run.cells());
    this.run = run;
    this.info = info;
    this.fewThreads = info.config().threads().stream().mapToInt(Integer::intValue).min().orElse(1);
    this.manyThreads = info.config().threads().stream().mapToInt(Integer::intValue).max().orElse(1);
  }

  /** Writes the three files into the configured output directory; returns the Markdown. */
  String write() {
    Path directory = info.config().outputDirectory();
    String markdown = markdown();
    try {
      Files.createDirectories(directory);
      Files.writeString(directory.resolve(MARKDOWN), markdown);
      Files.writeString(directory.resolve(CSV), csv());
      Files.writeString(directory.resolve(SVG), svg());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the benchmark report to " + directory, e);
    }
    return markdown;
  }

  // ---- Markdown ---------------------------------------------------------------------------------

  String markdown() {
    StringBuilder md = new StringBuilder();
    BenchConfig config = info.config();
    md.append("# Replication cost per request: lazysession vs Spring Session Data Redis\n\n");
    md.append("- run: ").append(info.date()).append('\n');
    md.append("- machine: ").append(info.machine()).append('\n');
    md.append("- JVM: ").append(info.jvm()).append('\n');
    md.append("- Redis: ").append(info.redis()).append('\n');
    md.append(String.format(Locale.ROOT, "- warm-up before anything is measured: each store runs "
        + "each workload at least %d ms and until the JIT is quiet (%d slices of %d ms in a row with "
        + "under %d ms of JIT time each), at most %d ms%n", config.globalWarmup().toMillis(),
        JitWarmup.QUIET_SLICES, JitWarmup.SLICE.toMillis(), JitWarmup.QUIET_COMPILE_MILLIS,
        config.warmupCap().toMillis()));
    md.append(String.format(Locale.ROOT, "- each cell: %d ms warm-up, then up to %d ms or %,d "
        + "requests measured; threads %s; %d sessions per store and size%n%n",
        config.warmup().toMillis(), config.measure().toMillis(), config.maxRequests(),
        config.threads(), config.sessions()));

    md.append("## Stores\n\n| store | what |\n|---|---|\n");
    for (StoreSpec store : info.stores()) {
      if (config.runs(store)) {
        md.append("| `").append(store.name()).append("` | ").append(store.description())
            .append(store.available() ? "" : " — **" + store.unavailable() + "**").append(" |\n");
      }
    }

    md.append("\n## Floor: one Redis round trip (PING)\n\n");
    md.append("Measured at the start and at the end of the run; the floor is the faster.\n\n");
    md.append("| when | threads | p50 µs | p99 µs | req/s | bytes into Redis | bytes out of Redis "
        + "|\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|\n");
    for (CellResult ping : pings()) {
      md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s |%n", ping.size(),
          ping.threads(),
          num(ping.p50Micros()), num(ping.p99Micros()), num(ping.throughput()),
          num(ping.bytesInPerRequest()), num(ping.bytesOutPerRequest())));
    }

    md.append(String.format(Locale.ROOT, "%n## Per request (%d thread%s; the last columns with %d "
        + "threads)%n%n", fewThreads, fewThreads == 1 ? "" : "s", manyThreads));
    md.append("Stored bytes are per session: MEMORY USAGE of all the store's keys, and the sum of "
        + "the lengths of their fields, values and members. Commands are what Redis executed "
        + "(INFO commandstats, commands inside Lua scripts included); round trips are the commands "
        + "the clients sent. Bytes in and out are INFO total_net_input_bytes / "
        + "total_net_output_bytes, the cost of reading INFO taken out. CPU is the CPU time of the "
        + "request threads (and of the whole client JVM, Lettuce I/O threads and GC included).\n\n");
    md.append("| store | size | workload | stored B/session (MEMORY USAGE) | stored B/session "
        + "(fields) | Redis cmds/req | round trips/req | B into Redis/req | B out of Redis/req | "
        + "CPU µs/req (request thread) | CPU µs/req (JVM) | alloc KB/req | p50 µs | p99 µs | "
        + "req/s | req/s " + manyThreads + "t | p99 µs " + manyThreads + "t | errors |\n");
    md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        + "---:|\n");
    for (CellResult r : results) {
      if (r.threads() != fewThreads || !isMatrix(r)) {
        continue;
      }
      CellResult many = cell(r.store(), r.size(), r.workload(), manyThreads);
      md.append(String.format(Locale.ROOT,
          "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
              + "| %d |%n",
          r.store(), r.size(), r.workload(), num(r.storedMemoryPerSession()),
          num(r.storedBytesPerSession()), num(r.redisCommandsPerRequest()),
          num(r.roundTripsPerRequest()), num(r.bytesInPerRequest()), num(r.bytesOutPerRequest()),
          num(r.cpuMicrosPerRequest()), num(r.processCpuMicrosPerRequest()),
          num(r.allocatedBytesPerRequest() / 1024), num(r.p50Micros()), num(r.p99Micros()),
          num(r.throughput()), many == null ? "–" : num(many.throughput()),
          many == null ? "–" : num(many.p99Micros()), r.errors() + (many == null ? 0 : many.errors())));
    }
    for (CellResult r : results) {
      if (!r.measured() && r.threads() == 0) {
        md.append("| `").append(r.store()).append("` | all | all | ")
            .append(r.note()).append(" |").append(" |".repeat(14)).append('\n');
      }
    }

    md.append("\n## Ratios to Spring Session Data Redis (`").append(PEER)
        .append("` = 1; below 1 is cheaper)\n\n");
    md.append("| size | workload | store | stored bytes (MEMORY USAGE) | stored bytes (fields) | "
        + "round trips | B into Redis | B out of Redis | CPU (request thread) | CPU (JVM) | p50 | "
        + "req/s " + manyThreads + "t (above 1 is faster) |\n");
    md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (SessionSize size : config.sizes()) {
      for (Workload workload : config.workloads()) {
        CellResult peer = cell(PEER, size.label(), workload.label(), fewThreads);
        CellResult peerMany = cell(PEER, size.label(), workload.label(), manyThreads);
        if (peer == null) {
          continue;
        }
        for (CellResult r : results) {
          if (r.store().equals(PEER) || r.threads() != fewThreads || !isMatrix(r)
              || !r.size().equals(size.label()) || !r.workload().equals(workload.label())) {
            continue;
          }
          CellResult many = cell(r.store(), r.size(), r.workload(), manyThreads);
          md.append(String.format(Locale.ROOT,
              "| %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", size.label(),
              workload.label(), r.store(),
              ratio(r, peer, CellResult::storedMemoryPerSession),
              ratio(r, peer, CellResult::storedBytesPerSession),
              ratio(r, peer, CellResult::roundTripsPerRequest),
              ratio(r, peer, CellResult::bytesInPerRequest),
              ratio(r, peer, CellResult::bytesOutPerRequest),
              ratio(r, peer, CellResult::cpuMicrosPerRequest),
              ratio(r, peer, CellResult::processCpuMicrosPerRequest),
              ratio(r, peer, CellResult::p50Micros),
              many == null || peerMany == null ? "–"
                  : ratio(many, peerMany, CellResult::throughput)));
        }
      }
    }

    md.append("\n## Design targets (reference session, ").append(fewThreads)
        .append(" thread)\n\n");
    for (String line : targets()) {
      md.append("- ").append(line).append('\n');
    }
    md.append('\n');
    md.append(floorRoundsSection());
    md.append(pairedRoundsSection());
    md.append(floorSection());
    md.append(memorySection());
    md.append(nearHitSection());
    md.append(largeSection());
    md.append(durableSection());
    md.append("## Performance targets, round 2 (reference session, ").append(fewThreads)
        .append(" thread)\n\n");
    for (String line : roundTwoTargets()) {
      md.append("- ").append(line).append('\n');
    }
    md.append('\n');
    return md.toString();
  }

  // ---- sections beyond the matrix ---------------------------------------------------------------

  /** Medians over the interleaved floor rounds: the figures the CPU targets are checked on. */
  String floorRoundsSection() {
    if (run.floor().isEmpty()) {
      return "";
    }
    int rounds = run.floor().stream().mapToInt(ReplicationCostHarness.FloorCell::round).max()
        .orElse(0);
    StringBuilder md = new StringBuilder("## CPU at the floor, interleaved (the figures of the CPU "
        + "targets)\n\n");
    md.append("Reference session, 1 thread, ").append(rounds).append(" rounds; in each round, "
        + "store after store: one PING through a connection of its own on the store's Lettuce client, "
        + "then the read-only request, then the changing request, each for one cell's time. Medians "
        + "over the rounds; the ratios are the medians of the per-round ratios (store request / PING "
        + "of the same round), which cancels most of the load that moves between rounds on a shared "
        + "machine. CPU is request-thread CPU.\n\n");
    md.append("| store | PING CPU µs | read CPU µs | read / PING | change CPU µs | change / PING | "
        + "PING p50 µs | read p50 µs | change p50 µs | near-cache hits per read |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (String store : floorStores()) {
      md.append(String.format(Locale.ROOT, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
          store, num(floorMedian(store, ReplicationCostHarness.SAME_CLIENT_PING,
              CellResult::cpuMicrosPerRequest)),
          num(floorMedian(store, Workload.READ.label(), CellResult::cpuMicrosPerRequest)),
          ratio(floorRatio(store, Workload.READ.label())),
          num(floorMedian(store, Workload.WRITE.label(), CellResult::cpuMicrosPerRequest)),
          ratio(floorRatio(store, Workload.WRITE.label())),
          num(floorMedian(store, ReplicationCostHarness.SAME_CLIENT_PING, CellResult::p50Micros)),
          num(floorMedian(store, Workload.READ.label(), CellResult::p50Micros)),
          num(floorMedian(store, Workload.WRITE.label(), CellResult::p50Micros)),
          num(floorMedian(store, Workload.READ.label(), CellResult::nearCacheHitsPerRequest))));
    }
    md.append("\nPer round (request-thread CPU µs: PING / read / change):\n\n| store |");
    for (int round = 1; round <= rounds; round++) {
      md.append(" round ").append(round).append(" |");
    }
    md.append("\n|---|").append("---|".repeat(rounds)).append('\n');
    for (String store : floorStores()) {
      md.append("| `").append(store).append("` |");
      for (int round = 1; round <= rounds; round++) {
        md.append(' ').append(num(floorCell(store, ReplicationCostHarness.SAME_CLIENT_PING, round)))
            .append(" / ").append(num(floorCell(store, Workload.READ.label(), round)))
            .append(" / ").append(num(floorCell(store, Workload.WRITE.label(), round))).append(" |");
      }
      md.append('\n');
    }
    md.append('\n');
    return md.toString();
  }

  private List<String> floorStores() {
    return run.floor().stream().map(ReplicationCostHarness.FloorCell::store).distinct().toList();
  }

  private double floorCell(String store, String workload, int round) {
    return run.floor().stream().filter(f -> f.store().equals(store)
            && f.workload().equals(workload) && f.round() == round)
        .mapToDouble(f -> f.cell().cpuMicrosPerRequest()).findFirst().orElse(Double.NaN);
  }

  private double floorMedian(String store, String workload, ToDoubleFunction<CellResult> figure) {
    return median(run.floor().stream().filter(f -> f.store().equals(store)
        && f.workload().equals(workload)).mapToDouble(f -> figure.applyAsDouble(f.cell()))
        .toArray());
  }

  /** Median over the rounds of (request CPU / PING CPU of the same round). */
  private double floorRatio(String store, String workload) {
    List<Double> ratios = new ArrayList<>();
    int rounds = run.floor().stream().mapToInt(ReplicationCostHarness.FloorCell::round).max()
        .orElse(0);
    for (int round = 1; round <= rounds; round++) {
      double ping = floorCell(store, ReplicationCostHarness.SAME_CLIENT_PING, round);
      double request = floorCell(store, workload, round);
      if (!Double.isNaN(ping) && !Double.isNaN(request) && ping > 0) {
        ratios.add(request / ping);
      }
    }
    return median(ratios.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /**
   * The paired floor measurement ({@link PairedRounds}): each store's request-thread CPU against a
   * PING on its own client, and each store's against the first store's, medians over the rounds.
   */
  String pairedRoundsSection() {
    if (run.paired().isEmpty()) {
      return "";
    }
    BenchConfig config = info.config();
    int rounds = pairedRounds();
    List<String> stores = run.paired().stream().map(PairedRounds.Cell::store).distinct().toList();
    String first = stores.get(0);
    String ping = ReplicationCostHarness.SAME_CLIENT_PING;
    String read = Workload.READ.label();
    String change = Workload.WRITE.label();
    StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "## CPU at the floor, paired "
        + "(alternating every %d requests)%n%n", config.pairedBatch()));
    md.append(String.format(Locale.ROOT, "Reference session, one request thread of its own, %d "
            + "rounds after %d unmeasured ones (for the JIT). Each round is %d slices; in each "
            + "slice, store after store (in reverse order every other slice): %d PINGs through a connection of its own on the store's "
            + "Lettuce client, then %d read-only requests, then %d changing requests, on node 0 "
            + "over the store's %d sessions in turn. The request thread's CPU time (ThreadMXBean) "
            + "is read before and after each batch of %d and summed per store and request over the "
            + "round: %,d requests of each per store and round. The stores take turns every few "
            + "milliseconds, so a load that comes and goes on the machine falls on all of them "
            + "alike, where a cell of its own would catch it on one store only. Medians over the "
            + "rounds; ratios are the medians of the per-round ratios (to the PING of the same "
            + "store, or to the same request of `%s`, in the same round). Any failed request fails "
            + "the run.%n%n", rounds, PairedRounds.UNMEASURED_ROUNDS, config.pairedSlices(),
        config.pairedBatch(), config.pairedBatch(), config.pairedBatch(), config.sessions(),
        config.pairedBatch(), (long) config.pairedSlices() * config.pairedBatch(), first));
    md.append("| store | PING CPU µs | read CPU µs | read / PING | change CPU µs | change / PING "
        + "|\n");
    md.append("|---|---:|---:|---:|---:|---:|\n");
    for (String store : stores) {
      md.append(String.format(Locale.ROOT, "| `%s` | %s | %s | %s | %s | %s |%n", store,
          num(median(pairedCpu(store, ping))), num(median(pairedCpu(store, read))),
          ratio(median(pairedRatios(store, read, store, ping))),
          num(median(pairedCpu(store, change))),
          ratio(median(pairedRatios(store, change, store, ping)))));
    }
    if (stores.size() > 1) {
      md.append("\nAgainst the first store, `").append(first).append("` (request-thread CPU, same "
          + "request, same round; median, min and max over the rounds):\n\n");
      md.append("| store | read | read min | read max | change | change min | change max |\n");
      md.append("|---|---:|---:|---:|---:|---:|---:|\n");
      for (String store : stores.subList(1, stores.size())) {
        double[] reads = pairedRatios(store, read, first, read);
        double[] changes = pairedRatios(store, change, first, change);
        md.append(String.format(Locale.ROOT, "| `%s` | %s | %s | %s | %s | %s | %s |%n", store,
            percent(median(reads)), percent(min(reads)), percent(max(reads)),
            percent(median(changes)), percent(min(changes)), percent(max(changes))));
      }
    }
    md.append("\nPer round (request-thread CPU µs: PING / read / change");
    if (stores.size() > 1) {
      md.append("; then read / change against `").append(first).append('`');
    }
    md.append("):\n\n| store |");
    for (int round = 1; round <= rounds; round++) {
      md.append(" round ").append(round).append(" |");
    }
    md.append("\n|---|").append("---|".repeat(rounds)).append('\n');
    for (String store : stores) {
      md.append("| `").append(store).append("` |");
      for (int round = 1; round <= rounds; round++) {
        md.append(' ').append(num(pairedCpu(store, ping, round))).append(" / ")
            .append(num(pairedCpu(store, read, round))).append(" / ")
            .append(num(pairedCpu(store, change, round))).append(" |");
      }
      md.append('\n');
    }
    for (String store : stores.subList(1, stores.size())) {
      double[] reads = pairedRatios(store, read, first, read);
      double[] changes = pairedRatios(store, change, first, change);
      md.append("| `").append(store).append("` against `").append(first).append("` |");
      for (int round = 0; round < rounds; round++) {
        md.append(' ').append(percent(reads[round])).append(" / ")
            .append(percent(changes[round])).append(" |");
      }
      md.append('\n');
    }
    md.append('\n');
    return md.toString();
  }

  private int pairedRounds() {
    return run.paired().stream().mapToInt(PairedRounds.Cell::round).max().orElse(0);
  }

  /** A store's request-thread CPU µs per request in one paired round; NaN when not measured. */
  private double pairedCpu(String store, String workload, int round) {
    return run.paired().stream().filter(c -> c.store().equals(store)
            && c.workload().equals(workload) && c.round() == round)
        .mapToDouble(PairedRounds.Cell::cpuMicrosPerRequest).findFirst().orElse(Double.NaN);
  }

  /** A store's request-thread CPU µs per request in each paired round, round 1 first. */
  private double[] pairedCpu(String store, String workload) {
    double[] values = new double[pairedRounds()];
    for (int round = 1; round <= values.length; round++) {
      values[round - 1] = pairedCpu(store, workload, round);
    }
    return values;
  }

  /** Per paired round, round 1 first: (store, workload) CPU / (base store, base workload) CPU. */
  private double[] pairedRatios(String store, String workload, String baseStore,
      String baseWorkload) {
    double[] mine = pairedCpu(store, workload);
    double[] base = pairedCpu(baseStore, baseWorkload);
    double[] ratios = new double[mine.length];
    for (int i = 0; i < ratios.length; i++) {
      ratios[i] = base[i] > 0 ? mine[i] / base[i] : Double.NaN;
    }
    return ratios;
  }

  /** A ratio as the difference it makes, e.g. 1.083 as {@code +8.3%}. */
  private static String percent(double ratio) {
    if (Double.isNaN(ratio) || Double.isInfinite(ratio)) {
      return "–";
    }
    return String.format(Locale.ROOT, "%+.1f%%", 100 * (ratio - 1));
  }

  private static double min(double[] values) {
    return java.util.Arrays.stream(values).filter(v -> !Double.isNaN(v)).min().orElse(Double.NaN);
  }

  private static double max(double[] values) {
    return java.util.Arrays.stream(values).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
  }

  private static double median(double[] values) {
    double[] sorted = java.util.Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted()
        .toArray();
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  /** Request-thread CPU of each store next to one PING on the store's own client, measured just before. */
  String floorSection() {
    StringBuilder md = new StringBuilder("## CPU at the floor: each store against one PING on its own "
        + "client\n\n");
    md.append("Before each store's cells of a size, one PING through a connection of its own on the "
        + "store's Lettuce client (same client resources and event loop) is measured for the same "
        + "time: its request-thread CPU and p50 are the floor of that store's requests, taken minutes, "
        + "not a run, apart. Ratios are store / PING; request-thread CPU, ").append(fewThreads)
        .append(" thread.\n\n");
    double[] pingCpu = results.stream()
        .filter(r -> r.workload().equals(ReplicationCostHarness.SAME_CLIENT_PING) && r.measured())
        .mapToDouble(CellResult::cpuMicrosPerRequest).toArray();
    double[] pingP50 = results.stream()
        .filter(r -> r.workload().equals(ReplicationCostHarness.SAME_CLIENT_PING) && r.measured())
        .mapToDouble(CellResult::p50Micros).toArray();
    md.append(String.format(Locale.ROOT, "Median over the %d PING cells of the run: %s µs of "
        + "request-thread CPU, %s µs p50 (a single PING cell can land on a loaded moment: compare "
        + "with the median too).%n%n", pingCpu.length, num(median(pingCpu)), num(median(pingP50))));
    md.append("| store | size | PING CPU µs | PING p50 µs | read CPU µs | read / PING | change CPU µs "
        + "| change / PING | read p50 µs | read p50 / PING p50 | change p50 µs | change p50 / PING "
        + "p50 |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (StoreSpec store : info.stores()) {
      for (SessionSize size : info.config().sizes()) {
        CellResult ping = cell(store.name(), size.label(), ReplicationCostHarness.SAME_CLIENT_PING,
            fewThreads);
        if (ping == null) {
          continue;
        }
        CellResult read = cell(store.name(), size.label(), Workload.READ.label(), fewThreads);
        CellResult change = cell(store.name(), size.label(), Workload.WRITE.label(), fewThreads);
        md.append(String.format(Locale.ROOT, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | "
                + "%s | %s |%n", store.name(), size.label(), num(ping.cpuMicrosPerRequest()),
            num(ping.p50Micros()), num(value(read, CellResult::cpuMicrosPerRequest)),
            times(read, ping, CellResult::cpuMicrosPerRequest),
            num(value(change, CellResult::cpuMicrosPerRequest)),
            times(change, ping, CellResult::cpuMicrosPerRequest),
            num(value(read, CellResult::p50Micros)), times(read, ping, CellResult::p50Micros),
            num(value(change, CellResult::p50Micros)), times(change, ping, CellResult::p50Micros)));
      }
    }
    md.append('\n');
    return md.toString();
  }

  /** MEMORY USAGE per reference session, on the default hash-max-listpack-value and raised. */
  String memorySection() {
    if (run.memory().isEmpty()) {
      return "";
    }
    StringBuilder md = new StringBuilder("## Redis memory per reference session, by "
        + "hash-max-listpack-value\n\n");
    md.append("MEMORY USAGE (SAMPLES 0) of all of a store's keys, per session, for ")
        .append(run.memory().get(0).sessions()).append(" reference sessions written after CONFIG SET "
            + "of the setting on the benchmark's own Redis (restored after). Ratio: to `")
        .append(PEER).append("` with the same setting, and to `").append(PEER)
        .append("` on Redis's default. Compact hashes: how many of the store's hashes Redis keeps "
            + "as a listpack rather than a hashtable. With this many sessions, a store's index keys "
            + "(lazysession's expiry schedule, a sorted set; the indexed Spring Session repository's "
            + "sets) are past Redis's small-collection limits (128 entries by default), so they take "
            + "the encoding they have in production. Each store runs alone under its product's "
            + "default key namespace (`spring:session`, `lazysession`), as an application that sets "
            + "none: the namespace is part of every session key.\n\n");
    md.append("| store | setting | MEMORY USAGE B/session | vs `").append(PEER)
        .append("` (same setting) | vs `").append(PEER).append("` (default) | field bytes B/session "
            + "| compact hashes |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|\n");
    for (ReplicationCostHarness.MemoryResult m : run.memory()) {
      ReplicationCostHarness.MemoryResult peer = memory(PEER, m.listpackValue());
      ReplicationCostHarness.MemoryResult peerDefault = memoryDefault(PEER);
      md.append(String.format(Locale.ROOT, "| `%s` | %s %d%s | %s | %s | %s | %s | %d of %d |%n",
          m.store(), m.setting(), m.listpackValue(), m.redisDefault() ? " (default)" : "",
          num(m.memoryPerSession()),
          peer == null ? "–" : ratio(m.memoryPerSession() / peer.memoryPerSession()),
          peerDefault == null ? "–" : ratio(m.memoryPerSession() / peerDefault.memoryPerSession()),
          num(m.fieldBytesPerSession()), m.compactHashes(), m.hashes()));
    }
    md.append('\n');
    return md.toString();
  }

  /** Bytes on the wire of a read-only request answered from the near cache. */
  String nearHitSection() {
    StringBuilder md = new StringBuilder("## Near-cache hit on the wire\n\n");
    md.append("The read-only request (read the cart, save) of each store with the near cache on, ")
        .append(fewThreads).append(" thread: bytes into and out of Redis per request (INFO), and "
            + "the share of loads that were near-cache hits (RepositoryMetrics.nearCacheHits per "
            + "request).\n\n");
    md.append("| store | size | B into Redis | B out of Redis | total | hits/request | Redis "
        + "cmds/req |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|\n");
    for (StoreSpec store : info.stores()) {
      if (!Stores.hasNearCache(store.name())) {
        continue;
      }
      for (SessionSize size : info.config().sizes()) {
        CellResult read = cell(store.name(), size.label(), Workload.READ.label(), fewThreads);
        if (read == null) {
          continue;
        }
        md.append(String.format(Locale.ROOT, "| `%s` | %s | %s | %s | %s | %s | %s |%n",
            store.name(), size.label(), num(read.bytesInPerRequest()),
            num(read.bytesOutPerRequest()),
            num(read.bytesInPerRequest() + read.bytesOutPerRequest()),
            num(read.nearCacheHitsPerRequest()), num(read.redisCommandsPerRequest())));
      }
    }
    md.append('\n');
    return md.toString();
  }

  /** The 1 MB and 10 MB cells, and the 20 MB value. */
  String largeSection() {
    List<CellResult> large = results.stream()
        .filter(r -> r.size().endsWith(" MB value")).toList();
    if (large.isEmpty() && run.huge().isEmpty()) {
      return "";
    }
    StringBuilder md = new StringBuilder("## Large values\n\n");
    md.append("A reference session plus an attribute `").append(ReplicationCostHarness.DOCUMENT)
        .append("` holding a byte[] of text with numbers (it compresses, partly). Save: create and "
            + "save a session holding it. Read: load, read it, save. 1 thread; failures with their "
            + "first message.\n\n");
    md.append("| store | value | workload | requests | MEMORY USAGE B/session | CPU µs/req (request "
        + "thread) | CPU µs/req (JVM) | alloc KB/req | p50 µs | B into Redis/req | B out of "
        + "Redis/req | failures |\n");
    md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (CellResult r : large) {
      md.append(String.format(Locale.ROOT, "| `%s` | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s "
              + "| %s |%n", r.store(), r.size(), r.workload(), r.requests(),
          num(r.storedMemoryPerSession()), num(r.cpuMicrosPerRequest()),
          num(r.processCpuMicrosPerRequest()), num(r.allocatedBytesPerRequest() / 1024),
          num(r.p50Micros()), num(r.bytesInPerRequest()), num(r.bytesOutPerRequest()),
          r.errors() == 0 && r.measured() ? "none"
              : (r.errors() + " — " + Objects.requireNonNullElse(r.note(), "")).replace("|", "\\|")));
    }
    if (!run.huge().isEmpty()) {
      md.append("\nA session holding a ").append(run.huge().get(0).bytes() >> 20)
          .append(" MB value, saved on one node and read back on the other:\n\n");
      md.append("| store | outcome | save ms | read ms |\n|---|---|---:|---:|\n");
      for (ReplicationCostHarness.HugeValueResult h : run.huge()) {
        md.append(String.format(Locale.ROOT, "| `%s` | %s | %s | %s |%n", h.store(),
            h.outcome().replace("|", "\\|"), num(h.saveMillis()), num(h.readMillis())));
      }
    }
    md.append('\n');
    return md.toString();
  }

  /** Durable saves with 1 and 16 threads on a primary with a replica. */
  String durableSection() {
    List<CellResult> durable = results.stream()
        .filter(r -> r.store().equals(Stores.DURABLE) || r.store().equals(Stores.DEFAULT_ON_REPLICA))
        .toList();
    if (durable.isEmpty()) {
      return "";
    }
    StringBuilder md = new StringBuilder("## Durable saves (primary + replica)\n\n");
    md.append("The change request of the reference session (load, read the cart, store a changed "
        + "copy, save) on a primary with one replica, without durability and with durability(1 "
        + "replica, ").append(Stores.DURABILITY_TIMEOUT.toMillis()).append(" ms). Each thread "
        + "changes sessions of its own. Failures by kind, with the first message of each.\n\n");
    md.append("| store | threads | requests | req/s | p50 µs | p99 µs | Redis cmds/req | round "
        + "trips/req | failed | failures by kind |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (CellResult r : durable) {
      md.append(String.format(Locale.ROOT, "| `%s` | %d | %d | %s | %s | %s | %s | %s | %d | %s |%n",
          r.store(), r.threads(), r.requests(), num(r.throughput()), num(r.p50Micros()),
          num(r.p99Micros()), num(r.redisCommandsPerRequest()), num(r.roundTripsPerRequest()),
          r.errors(), r.errors() == 0 ? "none"
              : Objects.requireNonNullElse(r.note(), "").replace("|", "\\|")));
    }
    md.append('\n');
    return md.toString();
  }

  /** The targets of the second performance round, each checked against this run. */
  List<String> roundTwoTargets() {
    List<String> lines = new ArrayList<>();
    String ref = SessionSize.REFERENCE.label();
    CellResult ping = cell(DEFAULT_LAZY, ref, ReplicationCostHarness.SAME_CLIENT_PING, fewThreads);
    CellResult read = cell(DEFAULT_LAZY, ref, Workload.READ.label(), fewThreads);
    CellResult change = cell(DEFAULT_LAZY, ref, Workload.WRITE.label(), fewThreads);
    CellResult nearRead = cell(DEFAULT_LAZY + "+near", ref, Workload.READ.label(), fewThreads);
    String near = DEFAULT_LAZY + "+near";
    if (floorStores().contains(DEFAULT_LAZY)) {
      double readRatio = floorRatio(DEFAULT_LAZY, Workload.READ.label());
      double changeRatio = floorRatio(DEFAULT_LAZY, Workload.WRITE.label());
      double pingCpu = floorMedian(DEFAULT_LAZY, ReplicationCostHarness.SAME_CLIENT_PING,
          CellResult::cpuMicrosPerRequest);
      double readCpu = floorMedian(DEFAULT_LAZY, Workload.READ.label(),
          CellResult::cpuMicrosPerRequest);
      double changeCpu = floorMedian(DEFAULT_LAZY, Workload.WRITE.label(),
          CellResult::cpuMicrosPerRequest);
      lines.add(verdict(readRatio <= 1.5) + String.format(Locale.ROOT, "read-only request CPU ≤ "
          + "1.5x one PING on the same client: `%s` %s µs against %s µs (medians of the "
          + "interleaved rounds), %.2fx (median of the per-round ratios)", DEFAULT_LAZY,
          num(readCpu), num(pingCpu), readRatio));
      lines.add(verdict(changeRatio <= 2.5) + String.format(Locale.ROOT, "changing request CPU ≤ "
          + "2.5x one PING on the same client: `%s` %s µs against %s µs, %.2fx", DEFAULT_LAZY,
          num(changeCpu), num(pingCpu), changeRatio));
      if (floorStores().contains(near)) {
        double nearReadCpu = floorMedian(near, Workload.READ.label(),
            CellResult::cpuMicrosPerRequest);
        double nearRatio = floorRatio(near, Workload.READ.label());
        lines.add(verdict(nearRatio <= readRatio) + String.format(Locale.ROOT, "a near-cache hit "
            + "never costs more CPU than no cache: `%s` read %s µs, %.2fx its PING, against %.2fx "
            + "without the near cache (%s µs)", near, num(nearReadCpu), nearRatio, readRatio,
            num(readCpu)));
        double nearChangeRatio = floorRatio(near, Workload.WRITE.label());
        lines.add(verdict(nearRatio <= 1.5 && nearChangeRatio <= 2.5) + String.format(Locale.ROOT,
            "with lazysession's defaults (near cache on), read-only ≤ 1.5x and changing ≤ 2.5x one "
                + "PING: `%s` read %.2fx, change %s µs, %.2fx", near, nearRatio,
            num(floorMedian(near, Workload.WRITE.label(), CellResult::cpuMicrosPerRequest)),
            nearChangeRatio));
      }
      if (floorStores().contains(Stores.TRACKED)) {
        lines.add(String.format(Locale.ROOT, "(opt-in tracked near cache) read-only request CPU: "
            + "`%s` %s µs, %.2fx its PING (a hit sends no command)", Stores.TRACKED,
            num(floorMedian(Stores.TRACKED, Workload.READ.label(), CellResult::cpuMicrosPerRequest)),
            floorRatio(Stores.TRACKED, Workload.READ.label())));
      }
    } else if (ping == null || read == null || change == null) {
      lines.add("CPU at the floor: not evaluated (the run lacks `" + DEFAULT_LAZY
          + "` on the reference session)");
    } else {
      double readRatio = read.cpuMicrosPerRequest() / ping.cpuMicrosPerRequest();
      double changeRatio = change.cpuMicrosPerRequest() / ping.cpuMicrosPerRequest();
      lines.add(verdict(readRatio <= 1.5) + String.format(Locale.ROOT, "read-only request CPU ≤ "
          + "1.5x one PING on the same client: `%s` %s µs against %s µs, %.2fx", DEFAULT_LAZY,
          num(read.cpuMicrosPerRequest()), num(ping.cpuMicrosPerRequest()), readRatio));
      lines.add(verdict(changeRatio <= 2.5) + String.format(Locale.ROOT, "changing request CPU ≤ "
          + "2.5x one PING on the same client: `%s` %s µs against %s µs, %.2fx", DEFAULT_LAZY,
          num(change.cpuMicrosPerRequest()), num(ping.cpuMicrosPerRequest()), changeRatio));
      if (nearRead != null) {
        lines.add(verdict(nearRead.cpuMicrosPerRequest() <= read.cpuMicrosPerRequest())
            + String.format(Locale.ROOT, "a near-cache hit never costs more CPU than no cache: "
                + "`%s+near` read %s µs against %s µs without (%.2fx)", DEFAULT_LAZY,
            num(nearRead.cpuMicrosPerRequest()), num(read.cpuMicrosPerRequest()),
            nearRead.cpuMicrosPerRequest() / read.cpuMicrosPerRequest()));
      }
    }
    ReplicationCostHarness.MemoryResult peer = memoryDefault(PEER);
    ReplicationCostHarness.MemoryResult lazy = memoryDefault(DEFAULT_LAZY);
    ReplicationCostHarness.MemoryResult dict = memoryDefault(DICTIONARY_LAZY);
    if (peer == null || lazy == null) {
      lines.add("Memory: not evaluated (no memory cells for `" + PEER + "` and `" + DEFAULT_LAZY
          + "`)");
    } else {
      double ratio = lazy.memoryPerSession() / peer.memoryPerSession();
      lines.add(verdict(ratio <= 0.25) + String.format(Locale.ROOT, "MEMORY USAGE per reference "
          + "session ≤ 0.25x of Spring Session with the defaults, Redis's default configuration: "
          + "`%s` %s B against %s B, %.3fx", DEFAULT_LAZY, num(lazy.memoryPerSession()),
          num(peer.memoryPerSession()), ratio));
      if (dict != null) {
        double dictRatio = dict.memoryPerSession() / peer.memoryPerSession();
        lines.add(verdict(dictRatio <= 0.15) + String.format(Locale.ROOT, "MEMORY USAGE per "
            + "reference session ≤ 0.15x of Spring Session with a dictionary: `%s` %s B, %.3fx",
            DICTIONARY_LAZY, num(dict.memoryPerSession()), dictRatio));
      }
      for (int raised : ReplicationCostHarness.RAISED_LISTPACK_VALUES) {
        ReplicationCostHarness.MemoryResult lazyRaised = memory(DEFAULT_LAZY, raised);
        ReplicationCostHarness.MemoryResult peerRaised = memory(PEER, raised);
        if (lazyRaised != null && peerRaised != null) {
          lines.add(String.format(Locale.ROOT, "(for information) with %s %d: `%s` %s B (%.3fx of "
                  + "`%s` on the default, %.3fx of `%s` with the same setting)", lazyRaised.setting(),
              raised, DEFAULT_LAZY, num(lazyRaised.memoryPerSession()),
              lazyRaised.memoryPerSession() / peer.memoryPerSession(), PEER,
              lazyRaised.memoryPerSession() / peerRaised.memoryPerSession(), PEER));
        }
      }
    }
    if (nearRead == null) {
      lines.add("Near-cache hit < 100 B on the wire: not evaluated (no `" + DEFAULT_LAZY
          + "+near` read cell)");
    } else {
      double wire = nearRead.bytesInPerRequest() + nearRead.bytesOutPerRequest();
      lines.add(verdict(wire < 100) + String.format(Locale.ROOT, "near-cache hit < 100 B on the "
          + "wire: `%s+near` moves %s B (%s in, %s out), %s hits per request", DEFAULT_LAZY,
          num(wire), num(nearRead.bytesInPerRequest()), num(nearRead.bytesOutPerRequest()),
          num(nearRead.nearCacheHitsPerRequest())));
    }
    List<ReplicationCostHarness.HugeValueResult> lazyHuge = run.huge().stream()
        .filter(h -> !h.store().equals(PEER)).toList();
    if (lazyHuge.isEmpty()) {
      lines.add("Large values without a cliff: not evaluated (no 20 MB cell)");
    } else {
      for (ReplicationCostHarness.HugeValueResult h : lazyHuge) {
        boolean clearRefusal = !h.roundTrips() && h.outcome().startsWith("refused")
            && h.outcome().contains("'" + ReplicationCostHarness.DOCUMENT + "'")
            && (h.outcome().contains("lazysession.") || h.outcome().contains("maxPayloadBytes"));
        lines.add(verdict(h.roundTrips() || clearRefusal) + String.format(Locale.ROOT, "a %d MB "
            + "value round-trips or is refused naming the attribute and the setting: `%s` %s",
            h.bytes() >> 20, h.store(), h.outcome()));
      }
      lines.add("Large values: the cost of a 1 MB and a 10 MB attribute is in the table above "
          + "(not a pass/fail target)");
    }
    lines.addAll(trackedReads(ref));
    CellResult durable = cell(Stores.DURABLE, ref, Workload.WRITE.label(), manyThreads);
    if (durable != null) {
      CellResult plain = cell(Stores.DEFAULT_ON_REPLICA, ref, Workload.WRITE.label(), manyThreads);
      lines.add(verdict(durable.errors() == 0) + String.format(Locale.ROOT, "durable saves with %d "
          + "threads (durability 1, replica up) complete without failure: %s req/s (%s without "
          + "durability on the same pair), %d of %d failed%s", manyThreads,
          num(durable.throughput()), plain == null ? "–" : num(plain.throughput()),
          durable.errors(), durable.requests(), durable.errors() == 0 ? "" : ": " + durable.note()));
    }
    return lines;
  }

  /**
   * Target 5: the tracked near cache's read-only request against the validated one, in the same run:
   * Redis commands and round trips per request, and throughput with few and many threads.
   */
  private List<String> trackedReads(String ref) {
    String validated = DEFAULT_LAZY + "+near";
    CellResult tracked = cell(Stores.TRACKED, ref, Workload.READ.label(), fewThreads);
    CellResult plain = cell(validated, ref, Workload.READ.label(), fewThreads);
    if (tracked == null || plain == null) {
      return List.of("Zero-round-trip reads: not evaluated (the run lacks `" + Stores.TRACKED
          + "` or `" + validated + "` on the reference session)");
    }
    CellResult trackedMany = cell(Stores.TRACKED, ref, Workload.READ.label(), manyThreads);
    CellResult plainMany = cell(validated, ref, Workload.READ.label(), manyThreads);
    String many = trackedMany == null || plainMany == null ? "" : String.format(Locale.ROOT,
        "; %d threads: %s req/s against %s", manyThreads, num(trackedMany.throughput()),
        num(plainMany.throughput()));
    return List.of(verdict(tracked.roundTripsPerRequest() < 0.01) + String.format(Locale.ROOT,
        "zero-round-trip reads (opt-in, `lazysession.near-cache.mode=track`): `%s` read sends %s "
            + "commands and %s round trips per request against %s and %s for `%s`; %d thread%s: "
            + "%s req/s against %s%s", Stores.TRACKED, num(tracked.redisCommandsPerRequest()),
        num(tracked.roundTripsPerRequest()), num(plain.redisCommandsPerRequest()),
        num(plain.roundTripsPerRequest()), validated, fewThreads, fewThreads == 1 ? "" : "s",
        num(tracked.throughput()), num(plain.throughput()), many));
  }

  private ReplicationCostHarness.@Nullable MemoryResult memory(String store, int listpackValue) {
    return run.memory().stream().filter(m -> m.store().equals(store)
        && m.listpackValue() == listpackValue).findFirst().orElse(null);
  }

  private ReplicationCostHarness.@Nullable MemoryResult memoryDefault(String store) {
    return run.memory().stream().filter(m -> m.store().equals(store) && m.redisDefault())
        .findFirst().orElse(null);
  }

  private static String times(@Nullable CellResult r, CellResult floor,
      ToDoubleFunction<CellResult> figure) {
    if (r == null) {
      return "–";
    }
    return ratio(figure.applyAsDouble(r) / figure.applyAsDouble(floor));
  }

  private static String ratio(double ratio) {
    if (Double.isNaN(ratio) || Double.isInfinite(ratio)) {
      return "–";
    }
    return String.format(Locale.ROOT, ratio >= 10 ? "%.0fx" : ratio >= 0.1 ? "%.2fx" : "%.3fx",
        ratio);
  }

  /** A cell of the store-by-size matrix (not a PING, a durable-save or a large-value cell). */
  private boolean isMatrix(CellResult r) {
    return !isPing(r) && info.stores().stream().anyMatch(s -> s.name().equals(r.store()))
        && info.config().sizes().stream().anyMatch(s -> s.label().equals(r.size()))
        && java.util.Arrays.stream(Workload.values()).anyMatch(w -> w.label().equals(r.workload()));
  }

  /** Each design target (docs/README.md, "Targets"), checked against this run, as one sentence. */
  List<String> targets() {
    List<String> lines = new ArrayList<>();
    String ref = SessionSize.REFERENCE.label();
    CellResult peerRead = cell(PEER, ref, Workload.READ.label(), fewThreads);
    CellResult lazyRead = cell(DEFAULT_LAZY, ref, Workload.READ.label(), fewThreads);
    CellResult lazyWrite = cell(DEFAULT_LAZY, ref, Workload.WRITE.label(), fewThreads);
    CellResult peerWrite = cell(PEER, ref, Workload.WRITE.label(), fewThreads);
    CellResult ping = floor(fewThreads);
    if (peerRead == null || lazyRead == null || lazyWrite == null || peerWrite == null) {
      lines.add("not evaluated: the run lacks `" + PEER + "` or `" + DEFAULT_LAZY
          + "` on the reference session");
      return lines;
    }
    lines.add(verdict(lazyRead.roundTripsPerRequest() <= 1.0) + String.format(Locale.ROOT,
        "1 round trip for a read-only request: `%s` sends %.2f (Spring Session: %.2f)",
        DEFAULT_LAZY, lazyRead.roundTripsPerRequest(), peerRead.roundTripsPerRequest()));
    lines.add(verdict(lazyWrite.roundTripsPerRequest() <= 2.0) + String.format(Locale.ROOT,
        "2 round trips for a request that changes the session: `%s` sends %.2f (Spring Session: "
            + "%.2f)", DEFAULT_LAZY, lazyWrite.roundTripsPerRequest(),
        peerWrite.roundTripsPerRequest()));
    CellResult nearRead = cell(DEFAULT_LAZY + "+near", ref, Workload.READ.label(), fewThreads);
    if (nearRead == null) {
      lines.add("NOT MEASURED — under 100 bytes on the wire for a read-only request whose session "
          + "is in the near cache: there is no near cache in this build of redis-store");
    } else {
      double wire = nearRead.bytesInPerRequest() + nearRead.bytesOutPerRequest();
      lines.add(verdict(wire < 100) + String.format(Locale.ROOT, "under 100 bytes on the wire for "
          + "a near-cached read-only request: `%s+near` moves %s B (in + out)", DEFAULT_LAZY,
          num(wire)));
    }
    double cpu = peerWrite.cpuMicrosPerRequest() / lazyWrite.cpuMicrosPerRequest();
    lines.add(String.format(Locale.ROOT, "(for information) client CPU against Spring "
        + "Session for load, read 1 of 12 attributes, change 1, save: %s µs against %s µs of "
        + "request-thread CPU, %.1fx less (whole JVM: %s µs against %s µs, %.1fx)",
        num(lazyWrite.cpuMicrosPerRequest()), num(peerWrite.cpuMicrosPerRequest()), cpu,
        num(lazyWrite.processCpuMicrosPerRequest()), num(peerWrite.processCpuMicrosPerRequest()),
        peerWrite.processCpuMicrosPerRequest() / lazyWrite.processCpuMicrosPerRequest()));
    if (ping != null) {
      double read = lazyRead.p50Micros() / ping.p50Micros();
      double write = lazyWrite.p50Micros() / (2 * ping.p50Micros());
      lines.add(verdict(read <= 1.3) + String.format(Locale.ROOT, "latency within 1.3x of one "
          + "Redis round trip: a read-only request of `%s` takes %s µs at p50, %.2fx one PING "
          + "(%s µs); Spring Session takes %s µs, %.2fx. A changing request takes %s µs, %.2fx two "
          + "PINGs", DEFAULT_LAZY, num(lazyRead.p50Micros()), read, num(ping.p50Micros()),
          num(peerRead.p50Micros()), peerRead.p50Micros() / ping.p50Micros(),
          num(lazyWrite.p50Micros()), write));
    }
    return lines;
  }

  private static String verdict(boolean met) {
    return met ? "MET — " : "MISSED — ";
  }

  // ---- CSV --------------------------------------------------------------------------------------

  String csv() {
    StringBuilder csv = new StringBuilder("store,size,workload,threads,requests,errors,"
        + "stored_memory_usage_bytes_per_session,stored_field_bytes_per_session,"
        + "redis_commands_per_request,round_trips_per_request,bytes_into_redis_per_request,"
        + "bytes_out_of_redis_per_request,cpu_us_per_request_request_threads,"
        + "cpu_us_per_request_jvm,allocated_bytes_per_request,p50_us,p99_us,requests_per_second,"
        + "near_cache_hits_per_request,note\n");
    for (CellResult r : results) {
      csv.append(String.join(",", r.store(), r.size(), quoted(r.workload()),
          Integer.toString(r.threads()), Long.toString(r.requests()), Long.toString(r.errors()),
          plain(r.storedMemoryPerSession()), plain(r.storedBytesPerSession()),
          plain(r.redisCommandsPerRequest()), plain(r.roundTripsPerRequest()),
          plain(r.bytesInPerRequest()), plain(r.bytesOutPerRequest()),
          plain(r.cpuMicrosPerRequest()), plain(r.processCpuMicrosPerRequest()),
          plain(r.allocatedBytesPerRequest()), plain(r.p50Micros()), plain(r.p99Micros()),
          plain(r.throughput()), plain(r.nearCacheHitsPerRequest()),
          quoted(r.note() == null ? "" : r.note()))).append('\n');
    }
    return csv.toString();
  }

  // ---- SVG --------------------------------------------------------------------------------------

  String svg() {
    SvgChart chart = new SvgChart();
    List<String> stores = new ArrayList<>();
    for (CellResult r : results) {
      if (r.measured() && isMatrix(r) && !stores.contains(r.store())) {
        stores.add(r.store());
      }
    }
    List<SessionSize> sizes = info.config().sizes();
    List<String> sizeNames = sizes.stream().map(SessionSize::label).toList();
    String firstWorkload = Workload.READ.label();
    Map<String, double[]> stored = new LinkedHashMap<>();
    for (String store : stores) {
      double[] row = new double[sizes.size()];
      for (int i = 0; i < sizes.size(); i++) {
        CellResult any = anyCell(store, sizes.get(i).label());
        row[i] = any == null ? Double.NaN : any.storedMemoryPerSession() / 1024;
      }
      stored.put(store, row);
    }
    // One panel per size: sizes differ by 100x, a shared scale would hide the small ones.
    for (int i = 0; i < sizes.size(); i++) {
      double[][] values = new double[stores.size()][1];
      for (int s = 0; s < stores.size(); s++) {
        values[s][0] = stored.get(stores.get(s))[i];
      }
      chart.panel("Bytes stored per session (MEMORY USAGE), " + sizeNames.get(i) + " session",
          "KB", stores, List.of("MEMORY USAGE"), values, List.of());
    }
    SessionSize size = sizes.contains(SessionSize.REFERENCE) ? SessionSize.REFERENCE : sizes.get(0);
    CellResult ping = floor(fewThreads);
    List<SvgChart.Reference> pingLine = ping == null ? List.of()
        : List.of(new SvgChart.Reference(ping.p50Micros(), "PING p50"));
    double[][] median = new double[stores.size()][2];
    double[][] tail = new double[stores.size()][2];
    double[][] wire = new double[stores.size()][4];
    for (int s = 0; s < stores.size(); s++) {
      CellResult read = cell(stores.get(s), size.label(), firstWorkload, fewThreads);
      CellResult write = cell(stores.get(s), size.label(), Workload.WRITE.label(), fewThreads);
      median[s] = new double[] {value(read, CellResult::p50Micros),
          value(write, CellResult::p50Micros)};
      tail[s] = new double[] {value(read, CellResult::p99Micros),
          value(write, CellResult::p99Micros)};
      wire[s] = new double[] {value(read, CellResult::bytesInPerRequest),
          value(read, CellResult::bytesOutPerRequest), value(write, CellResult::bytesInPerRequest),
          value(write, CellResult::bytesOutPerRequest)};
    }
    chart.panel("Latency per request (p50), " + size.label() + " session, " + fewThreads
        + " thread", "µs", stores, List.of("read 1 attribute", "change 1 attribute"), median,
        pingLine);
    chart.panel("Latency per request (p99), " + size.label() + " session, " + fewThreads
        + " thread", "µs", stores, List.of("read 1 attribute", "change 1 attribute"), tail,
        List.of());
    chart.panel("Bytes on the wire per request, " + size.label() + " session", "B", stores,
        List.of("read: into Redis", "read: out of Redis", "change: into Redis",
            "change: out of Redis"), wire, List.of());
    chart.caption(info.date() + " — " + info.machine() + " — Redis " + info.redis());
    return chart.render();
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private @Nullable CellResult cell(String store, String size, String workload, int threads) {
    for (CellResult r : results) {
      if (r.store().equals(store) && r.size().equals(size) && r.workload().equals(workload)
          && r.threads() == threads && r.measured()) {
        return r;
      }
    }
    return null;
  }

  private List<CellResult> pings() {
    return results.stream().filter(BenchReport::isPing).toList();
  }

  /** The faster PING (by p50) at this thread count: one Redis round trip, the floor. */
  private @Nullable CellResult floor(int threads) {
    return pings().stream().filter(r -> r.threads() == threads && r.measured())
        .min(java.util.Comparator.comparingDouble(CellResult::p50Micros)).orElse(null);
  }

  private static boolean isPing(CellResult r) {
    return r.store().equals(ReplicationCostHarness.PING_STORE);
  }

  private @Nullable CellResult anyCell(String store, String size) {
    return results.stream().filter(r -> r.store().equals(store) && r.size().equals(size)
        && r.measured()).findFirst().orElse(null);
  }

  private static double value(@Nullable CellResult cell, ToDoubleFunction<CellResult> figure) {
    return cell == null ? Double.NaN : figure.applyAsDouble(cell);
  }

  private static String ratio(CellResult r, CellResult peer, ToDoubleFunction<CellResult> figure) {
    double mine = figure.applyAsDouble(r);
    double theirs = figure.applyAsDouble(peer);
    if (Double.isNaN(mine) || Double.isNaN(theirs) || theirs == 0) {
      return "–";
    }
    double ratio = mine / theirs;
    return String.format(Locale.ROOT, ratio >= 10 ? "%.0fx" : ratio >= 0.1 ? "%.2fx" : "%.3fx",
        ratio);
  }

  static String num(double value) {
    if (Double.isNaN(value)) {
      return "–";
    }
    if (Math.abs(value) >= 100) {
      return String.format(Locale.ROOT, "%,.0f", value);
    }
    if (Math.abs(value) >= 10) {
      return String.format(Locale.ROOT, "%.1f", value);
    }
    return String.format(Locale.ROOT, "%.2f", value);
  }

  private static String plain(double value) {
    return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.3f", value);
  }

  private static String quoted(String text) {
    return "\"" + Objects.requireNonNull(text).replace("\"", "\"\"") + "\"";
  }
}
