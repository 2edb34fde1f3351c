package io.lazysession.it.bench;

import com.sun.management.OperatingSystemMXBean;
import io.lazysession.testing.RedisServerExtension;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/** Runs the benchmark on the Redis of a {@link RedisServerExtension} and writes its report. */
final class ReplicationCost {
  private ReplicationCost() {}

  /** What a run produced: its cells, the extra measurements, and its Markdown report. */
  record Outcome(List<CellResult> results, ReplicationCostHarness.Run run, String markdown) {}

  /**
   * @param redis the Redis of the matrix
   * @param replicated a primary with one replica, for the durable-save cells; null to skip them
   */
  static Outcome run(BenchConfig config, RedisServerExtension redis,
      @Nullable RedisServerExtension replicated, Consumer<String> log) {
    String version;
    try (RedisMeter meter = new RedisMeter(redis.uri())) {
      version = meter.server("redis_version");
    }
    ReplicationCostHarness.Run run = new ReplicationCostHarness(config, redis.uri(),
        replicated == null ? null : replicated.uri(), log).run();
    List<CellResult> results = run.cells();
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    String machine = String.format(Locale.ROOT, "%d cores, %d GiB, %s %s (%s)",
        Runtime.getRuntime().availableProcessors(), os.getTotalMemorySize() >> 30,
        System.getProperty("os.name"), System.getProperty("os.version"),
        System.getProperty("os.arch"));
    String jvm = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
        + ", max heap " + (Runtime.getRuntime().maxMemory() >> 20) + " MiB";
    String where = switch (redis.backend()) {
      case TESTCONTAINERS -> "a container started by Testcontainers";
      case EMBEDDED -> "the embedded-redis binary";
      case URL -> "a server given by URL";
    };
    String redisInfo = version + " on " + where + ", " + redis.primary().host() + ":"
        + redis.primary().port() + ", same machine"
        + (replicated == null ? "" : "; durable-save cells on a primary " + replicated.primary().port()
            + " with a replica " + replicated.replicas().get(0).port() + ", same machine");
    BenchReport.RunInfo info = new BenchReport.RunInfo(
        Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), machine, jvm, redisInfo, config,
        Stores.all(Stores.trainDictionary()));
    String markdown = new BenchReport(run, info).write();
    return new Outcome(results, run, markdown);
  }
}
