package io.lazysession.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.it.bench.shop.SessionSize;
import io.lazysession.testing.RedisServerExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Runs the replication-cost benchmark with about twenty requests per cell, so that a change that
 * breaks it fails the normal build. Checks that every cell ran (the matrix, each store's PING floor,
 * the interleaved floor rounds and a paired round, the memory cells with hash-max-listpack-value
 * raised, the large values, the durable saves) and the report was written. Asserts only what does not depend on
 * timing: that cells ran, command counts, near-cache hits, that bytes were measured — never how fast
 * anything was.
 */
class ReplicationCostSmokeIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();
  @RegisterExtension
  static final RedisServerExtension replicated = RedisServerExtension.primaryReplica();

  @Test
  void run_tinyMatrix_everyCellMeasuredAndReportWritten() throws IOException {
    BenchConfig config = BenchConfig.tiny();

    ReplicationCost.Outcome outcome =
        ReplicationCost.run(config, redis, replicated, System.out::println);

    List<CellResult> results = outcome.results();
    assertThat(results).filteredOn(r -> r.store().equals(ReplicationCostHarness.PING_STORE))
        .hasSize(2 * config.threads().size())
        .allSatisfy(r -> assertThat(r.roundTripsPerRequest()).isEqualTo(1.0));
    List<StoreSpec> stores = Stores.all(Stores.trainDictionary());
    for (StoreSpec store : stores) {
      if (!store.available()) {
        assertThat(results).filteredOn(r -> r.store().equals(store.name()))
            .singleElement().satisfies(r -> assertThat(r.note()).contains("n/a"));
        continue;
      }
      for (SessionSize size : config.sizes()) {
        assertThat(results).as("%s %s PING floor", store.name(), size)
            .filteredOn(r -> r.store().equals(store.name()) && r.size().equals(size.label())
                && r.workload().equals(ReplicationCostHarness.SAME_CLIENT_PING))
            .singleElement().satisfies(r -> {
              assertThat(r.errors()).as("errors, first: %s", r.note()).isZero();
              assertThat(r.requests()).isPositive();
              assertPingRoundTrips(store.name(), r);
            });
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
                  if (store.name().equals(Stores.TRACKED)) {
                    // A tracked hit sends nothing: only the lease's PINGs may be counted.
                    assertThat(r.redisCommandsPerRequest()).isNotNegative();
                    assertThat(r.roundTripsPerRequest()).isNotNegative();
                  } else {
                    assertThat(r.redisCommandsPerRequest()).isPositive();
                    assertThat(r.roundTripsPerRequest()).isPositive();
                  }
                  assertThat(r.p99Micros()).isGreaterThanOrEqualTo(r.p50Micros());
                  if (Stores.hasNearCache(store.name()) && workload == Workload.READ) {
                    assertThat(r.nearCacheHitsPerRequest()).as("near-cache hits per read")
                        .isPositive();
                  } else if (!Stores.hasNearCache(store.name())) {
                    assertThat(r.nearCacheHitsPerRequest()).isNaN();
                  }
                });
          }
        }
      }
      List<Integer> listpackValues = new ArrayList<>();
      assertThat(outcome.run().memory()).as("%s memory cells", store.name())
          .filteredOn(m -> m.store().equals(store.name()))
          .hasSize(1 + ReplicationCostHarness.RAISED_LISTPACK_VALUES.size())
          .allSatisfy(m -> {
            assertThat(m.memoryPerSession()).isPositive();
            assertThat(m.fieldBytesPerSession()).isPositive();
            assertThat(m.hashes()).isPositive();
            assertThat(m.compactHashes()).isBetween(0L, m.hashes());
            listpackValues.add(m.listpackValue());
          })
          .filteredOn(ReplicationCostHarness.MemoryResult::redisDefault).hasSize(1);
      assertThat(listpackValues).containsAll(ReplicationCostHarness.RAISED_LISTPACK_VALUES);
    }
    for (String store : ReplicationCostHarness.LARGE_VALUE_STORES) {
      for (int bytes : ReplicationCostHarness.LARGE_VALUE_BYTES) {
        for (String workload : List.of(ReplicationCostHarness.SAVE_WORKLOAD,
            ReplicationCostHarness.READ_WORKLOAD)) {
          assertThat(results).as("%s %d bytes %s", store, bytes, workload)
              .filteredOn(r -> r.store().equals(store)
                  && r.size().equals(ReplicationCostHarness.largeLabel(bytes))
                  && r.workload().equals(workload))
              .singleElement().satisfies(r -> assertThat(r.requests()).isPositive());
        }
      }
      assertThat(outcome.run().huge()).as("%s 20 MB value", store)
          .filteredOn(h -> h.store().equals(store)).singleElement()
          .satisfies(h -> assertThat(h.outcome()).isNotBlank());
    }
    for (String store : ReplicationCostHarness.FLOOR_STORES) {
      for (int round = 1; round <= config.floorRounds(); round++) {
        int r = round;
        assertThat(outcome.run().floor()).as("%s floor round %d", store, round)
            .filteredOn(f -> f.store().equals(store) && f.round() == r)
            .extracting(ReplicationCostHarness.FloorCell::workload)
            .containsExactly(ReplicationCostHarness.SAME_CLIENT_PING, Workload.READ.label(),
                Workload.WRITE.label());
      }
    }
    assertThat(outcome.run().floor()).allSatisfy(f -> {
      assertThat(f.cell().requests()).isPositive();
      assertThat(f.cell().errors()).as("errors, first: %s", f.cell().note()).isZero();
    }).filteredOn(f -> f.workload().equals(ReplicationCostHarness.SAME_CLIENT_PING))
        .allSatisfy(f -> assertPingRoundTrips(f.store(), f.cell()));
    for (String store : ReplicationCostHarness.FLOOR_STORES) {
      assertThat(outcome.run().paired()).as("%s paired round", store)
          .filteredOn(c -> c.store().equals(store))
          .extracting(PairedRounds.Cell::workload)
          .containsExactlyInAnyOrder(ReplicationCostHarness.SAME_CLIENT_PING,
              Workload.READ.label(), Workload.WRITE.label());
    }
    assertThat(outcome.run().paired()).allSatisfy(
        c -> assertThat(c.cpuMicrosPerRequest()).isPositive());
    for (String store : List.of(Stores.DEFAULT_ON_REPLICA, Stores.DURABLE)) {
      for (int threads : config.threads()) {
        assertThat(results).as("%s durable-save cell, %d threads", store, threads)
            .filteredOn(r -> r.store().equals(store) && r.threads() == threads)
            .singleElement().satisfies(r -> {
              assertThat(r.requests()).isPositive();
              assertThat(r.storedMemoryPerSession()).isPositive();
            });
      }
    }
    assertThat(results).filteredOn(r -> r.store().equals(Stores.DEFAULT_ON_REPLICA))
        .allSatisfy(r -> assertThat(r.errors()).as("errors, first: %s", r.note()).isZero());
    Path directory = config.outputDirectory();
    assertThat(Files.readString(directory.resolve(BenchReport.MARKDOWN)))
        .contains("| `spring` | reference | read 1 attr |").contains("Design targets")
        .contains("## CPU at the floor").contains("hash-max-listpack-value")
        .contains("## Near-cache hit on the wire").contains("## Large values")
        .contains("## Durable saves").contains("## Performance targets, round 2")
        .contains("## CPU at the floor, interleaved").contains("## CPU at the floor, paired");
    assertThat(Files.readAllLines(directory.resolve(BenchReport.CSV))).hasSize(results.size() + 1);
    assertThat(Files.readString(directory.resolve(BenchReport.SVG))).startsWith("<svg")
        .endsWith("</svg>\n");
  }

  /**
   * One round trip per PING; on the tracked store's client also the lease's own PINGs, which the
   * harness leaves out where Lettuce reports them on the lease's thread, may fall in the cell.
   */
  private static void assertPingRoundTrips(String store, CellResult cell) {
    if (store.equals(Stores.TRACKED)) {
      assertThat(cell.roundTripsPerRequest()).isBetween(1.0, 2.0);
    } else {
      assertThat(cell.roundTripsPerRequest()).isEqualTo(1.0);
    }
  }
}
