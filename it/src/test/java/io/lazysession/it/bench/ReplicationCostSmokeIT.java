package io.lazysession.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.it.bench.shop.SessionSize;
import io.lazysession.testing.RedisServerExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Runs the replication-cost benchmark with about twenty requests per cell, so that a change that
 * breaks it fails the normal build. Checks that every cell ran and the report was written; never
 * what the figures are.
 */
class ReplicationCostSmokeIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @Test
  void run_tinyMatrix_everyCellMeasuredAndReportWritten() throws IOException {
    BenchConfig config = BenchConfig.tiny();

    ReplicationCost.Outcome outcome = ReplicationCost.run(config, redis, System.out::println);

    List<CellResult> results = outcome.results();
    assertThat(results).filteredOn(r -> r.store().equals(ReplicationCostHarness.PING_STORE))
        .hasSize(2 * config.threads().size())
        .allSatisfy(r -> assertThat(r.roundTripsPerRequest()).isEqualTo(1.0));
    for (StoreSpec store : Stores.all(Stores.trainDictionary())) {
      if (!store.available()) {
        assertThat(results).filteredOn(r -> r.store().equals(store.name()))
            .singleElement().satisfies(r -> assertThat(r.note()).contains("n/a"));
        continue;
      }
      for (SessionSize size : config.sizes()) {
        for (Workload workload : config.workloads()) {
          for (int threads : config.threads()) {
            assertThat(results).as("%s %s %s %d threads", store.name(), size, workload, threads)
                .filteredOn(r -> r.store().equals(store.name()) && r.size().equals(size.label())
                    && r.workload().equals(workload.label()) && r.threads() == threads)
                .singleElement().satisfies(r -> {
                  assertThat(r.errors()).as("errors, first: %s", r.note()).isZero();
                  assertThat(r.requests()).isPositive();
                  assertThat(r.storedMemoryPerSession()).isPositive();
                  assertThat(r.storedBytesPerSession()).isPositive();
                  assertThat(r.redisCommandsPerRequest()).isPositive();
                  assertThat(r.roundTripsPerRequest()).isPositive();
                  assertThat(r.p99Micros()).isGreaterThanOrEqualTo(r.p50Micros());
                });
          }
        }
      }
    }
    Path directory = config.outputDirectory();
    assertThat(Files.readString(directory.resolve(BenchReport.MARKDOWN)))
        .contains("| `spring` | reference | read 1 attr |").contains("Design targets");
    assertThat(Files.readAllLines(directory.resolve(BenchReport.CSV))).hasSize(results.size() + 1);
    assertThat(Files.readString(directory.resolve(BenchReport.SVG))).startsWith("<svg")
        .endsWith("</svg>\n");
  }
}
