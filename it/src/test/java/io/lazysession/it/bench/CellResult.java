package io.lazysession.it.bench;

import org.jspecify.annotations.Nullable;

/**
 * The figures of one cell of the matrix: one store, one session size, one workload, one thread
 * count. Per-request figures are totals over the measured batch divided by its request count. NaN
 * where a figure does not apply. Immutable.
 *
 * @param store store name ({@link StoreSpec#name()}, or {@code redis-ping})
 * @param size session size label; for PING, {@code start} or {@code end} of the run
 * @param workload workload label, or {@code PING}
 * @param threads request threads
 * @param requests measured requests
 * @param errors measured requests that failed or did not find what they expected
 * @param storedMemoryPerSession MEMORY USAGE of the store's keys, per session
 * @param storedBytesPerSession bytes of the store's hash fields, values and members, per session
 * @param redisCommandsPerRequest commands Redis executed (INFO commandstats), inside scripts included
 * @param roundTripsPerRequest commands the clients sent (one round trip each when not pipelined)
 * @param bytesInPerRequest bytes into Redis (INFO total_net_input_bytes)
 * @param bytesOutPerRequest bytes out of Redis (INFO total_net_output_bytes)
 * @param cpuMicrosPerRequest CPU time of the request threads
 * @param processCpuMicrosPerRequest CPU time of the whole client JVM (I/O threads, GC, JIT included)
 * @param allocatedBytesPerRequest heap allocated by the request threads
 * @param p50Micros median latency of one request
 * @param p99Micros 99th percentile latency
 * @param throughput requests per second over the measured batch
 * @param nearCacheHitsPerRequest loads answered from a validated near-cache copy, per request
 *     (lazysession's RepositoryMetrics; NaN for stores without a near cache)
 * @param note why figures are missing, or the failures by kind (count, first message), or null
 */
record CellResult(String store, String size, String workload, int threads, long requests,
    long errors, double storedMemoryPerSession, double storedBytesPerSession,
    double redisCommandsPerRequest, double roundTripsPerRequest, double bytesInPerRequest,
    double bytesOutPerRequest, double cpuMicrosPerRequest, double processCpuMicrosPerRequest,
    double allocatedBytesPerRequest, double p50Micros, double p99Micros, double throughput,
    double nearCacheHitsPerRequest, @Nullable String note) {

  static CellResult unavailable(StoreSpec store, String reason) {
    double n = Double.NaN;
    return new CellResult(store.name(), "all", "all", 0, 0, 0, n, n, n, n, n, n, n, n, n, n, n, n,
        n, reason);
  }

  boolean measured() {
    return requests > 0;
  }
}
