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
  private final RunInfo info;
  private final int fewThreads;
  private final int manyThreads;

  BenchReport(List<CellResult> results, RunInfo info) {
    this.results = List.copyOf(results);
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
      if (r.threads() != fewThreads || isPing(r)) {
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
          if (r.store().equals(PEER) || r.threads() != fewThreads
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
    return md.toString();
  }

  /** Each design target of docs/DESIGN.md, checked against this run, as one sentence. */
  List<String> targets() {
    List<String> lines = new ArrayList<>();
    String ref = SessionSize.REFERENCE.label();
    CellResult peerRead = cell(PEER, ref, Workload.READ.label(), fewThreads);
    CellResult dictRead = cell(DICTIONARY_LAZY, ref, Workload.READ.label(), fewThreads);
    CellResult lazyRead = cell(DEFAULT_LAZY, ref, Workload.READ.label(), fewThreads);
    CellResult lazyWrite = cell(DEFAULT_LAZY, ref, Workload.WRITE.label(), fewThreads);
    CellResult peerWrite = cell(PEER, ref, Workload.WRITE.label(), fewThreads);
    CellResult ping = floor(fewThreads);
    if (peerRead == null || lazyRead == null || lazyWrite == null || peerWrite == null) {
      lines.add("not evaluated: the run lacks `" + PEER + "` or `" + DEFAULT_LAZY
          + "` on the reference session");
      return lines;
    }
    if (dictRead != null) {
      double memory = dictRead.storedMemoryPerSession() / peerRead.storedMemoryPerSession();
      double fields = dictRead.storedBytesPerSession() / peerRead.storedBytesPerSession();
      lines.add(verdict(memory <= 0.1 && fields <= 0.1) + String.format(Locale.ROOT,
          "bytes stored per reference session at most 1/10 of Spring Session's (with a "
              + "dictionary): `%s` stores %s B (MEMORY USAGE) / %s B (fields) against %s / %s, "
              + "ratios %.3f / %.3f", DICTIONARY_LAZY, num(dictRead.storedMemoryPerSession()),
          num(dictRead.storedBytesPerSession()), num(peerRead.storedMemoryPerSession()),
          num(peerRead.storedBytesPerSession()), memory, fields));
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
    lines.add(verdict(cpu >= 20) + String.format(Locale.ROOT, "client CPU 20x less than Spring "
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
        + "note\n");
    for (CellResult r : results) {
      csv.append(String.join(",", r.store(), r.size(), quoted(r.workload()),
          Integer.toString(r.threads()), Long.toString(r.requests()), Long.toString(r.errors()),
          plain(r.storedMemoryPerSession()), plain(r.storedBytesPerSession()),
          plain(r.redisCommandsPerRequest()), plain(r.roundTripsPerRequest()),
          plain(r.bytesInPerRequest()), plain(r.bytesOutPerRequest()),
          plain(r.cpuMicrosPerRequest()), plain(r.processCpuMicrosPerRequest()),
          plain(r.allocatedBytesPerRequest()), plain(r.p50Micros()), plain(r.p99Micros()),
          plain(r.throughput()), quoted(r.note() == null ? "" : r.note()))).append('\n');
    }
    return csv.toString();
  }

  // ---- SVG --------------------------------------------------------------------------------------

  String svg() {
    SvgChart chart = new SvgChart();
    List<String> stores = new ArrayList<>();
    for (CellResult r : results) {
      if (r.measured() && !isPing(r) && !stores.contains(r.store())) {
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
