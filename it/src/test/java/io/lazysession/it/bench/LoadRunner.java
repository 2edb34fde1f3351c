package io.lazysession.it.bench;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Runs one batch of requests on a number of threads, each bounded by a request count and a
 * deadline, and records per request its latency, and per thread its CPU time and allocations.
 * One batch at a time.
 */
final class LoadRunner {
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final Duration STRAGGLER_GRACE = Duration.ofSeconds(60);

  /** One request; false when it did not find what it expected. */
  @FunctionalInterface
  interface Request {
    boolean run(Worker worker, int index) throws Exception;
  }

  /** What a request thread knows: its index, its random numbers, the ids it created. */
  static final class Worker {
    final int thread;
    final int threads;
    final SplittableRandom random;
    final List<String> created = new ArrayList<>();

    Worker(int thread, int threads) {
      this.thread = thread;
      this.threads = threads;
      this.random = new SplittableRandom(0x5eed + thread);
    }

    /** The thread's share of a list: threads never pick the same element at the same time. */
    <T> T pick(List<T> items, int index) {
      return items.get((int) ((thread + (long) index * threads) % items.size()));
    }
  }

  /** What a batch did. */
  record Batch(long requests, long errors, long wallNanos, long cpuNanos, long allocatedBytes,
      long[] sortedLatencyNanos, List<String> created, @Nullable String firstError,
      Map<String, Failure> failures) {
    double percentileMicros(double quantile) {
      if (sortedLatencyNanos.length == 0) {
        return Double.NaN;
      }
      int index = (int) Math.ceil(quantile * sortedLatencyNanos.length) - 1;
      return sortedLatencyNanos[Math.max(0, Math.min(sortedLatencyNanos.length - 1, index))] / 1e3;
    }
  }

  /**
   * Failed requests of one kind: the exception's class (simple name), or {@link #NOT_FOUND} for a
   * request that returned false; how many, and the message of the first.
   */
  record Failure(long count, String firstMessage) {
    Failure plus(Failure other) {
      return new Failure(count + other.count, firstMessage);
    }
  }

  /** The failure kind of a request that did not find its session or attribute. */
  static final String NOT_FOUND = "not found";

  private LoadRunner() {}

  static Batch run(int threads, Duration duration, int maxRequests, Request request) {
    int perThread = Math.max(1, maxRequests / threads);
    AtomicInteger names = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads, runnable -> {
      Thread thread = new Thread(runnable, "bench-request-" + names.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
    try {
      CountDownLatch ready = new CountDownLatch(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<ThreadResult>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Worker worker = new Worker(t, threads);
        futures.add(pool.submit(() -> {
          ready.countDown();
          go.await();
          return loop(worker, perThread, System.nanoTime() + duration.toNanos(), request);
        }));
      }
      if (!ready.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("request threads did not start");
      }
      long started = System.nanoTime();
      go.countDown();
      List<ThreadResult> results = new ArrayList<>();
      long waitUntil = started + duration.plus(STRAGGLER_GRACE).toNanos();
      for (Future<ThreadResult> future : futures) {
        results.add(future.get(Math.max(1, waitUntil - System.nanoTime()), TimeUnit.NANOSECONDS));
      }
      long wall = System.nanoTime() - started;
      return combine(results, wall);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("a request thread failed or hung", e);
    } finally {
      pool.shutdownNow();
    }
  }

  private record ThreadResult(int count, long errors, long cpuNanos, long allocated,
      long[] latencies, List<String> created, @Nullable String firstError,
      Map<String, Failure> failures) {}

  private static ThreadResult loop(Worker worker, int max, long deadline, Request request) {
    long[] latencies = new long[max];
    long errors = 0;
    String firstError = null;
    Map<String, Failure> failures = new LinkedHashMap<>();
    long cpuStart = THREADS.getCurrentThreadCpuTime();
    long allocatedStart = THREADS.getCurrentThreadAllocatedBytes();
    int count = 0;
    while (count < max && System.nanoTime() < deadline) {
      long start = System.nanoTime();
      boolean ok;
      boolean threw = false;
      try {
        ok = request.run(worker, count);
      } catch (Exception e) {
        ok = false;
        threw = true;
        if (firstError == null) {
          firstError = e.toString();
        }
        failures.merge(e.getClass().getSimpleName(), new Failure(1, String.valueOf(e.getMessage())),
            Failure::plus);
      }
      latencies[count++] = System.nanoTime() - start;
      if (!ok) {
        errors++;
        if (firstError == null) {
          firstError = "a request did not find its session or attribute";
        }
        if (!threw) {
          failures.merge(NOT_FOUND, new Failure(1, "a request did not find its session or "
              + "attribute"), Failure::plus);
        }
      }
    }
    long cpu = THREADS.getCurrentThreadCpuTime() - cpuStart;
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - allocatedStart;
    return new ThreadResult(count, errors, cpu, allocated, Arrays.copyOf(latencies, count),
        worker.created, firstError, failures);
  }

  private static Batch combine(List<ThreadResult> results, long wallNanos) {
    long requests = 0;
    long errors = 0;
    long cpu = 0;
    long allocated = 0;
    String firstError = null;
    List<String> created = new ArrayList<>();
    Map<String, Failure> failures = new LinkedHashMap<>();
    for (ThreadResult result : results) {
      result.failures.forEach((kind, failure) -> failures.merge(kind, failure, Failure::plus));
      requests += result.count;
      errors += result.errors;
      cpu += result.cpuNanos;
      allocated += result.allocated;
      created.addAll(result.created);
      if (firstError == null) {
        firstError = result.firstError;
      }
    }
    long[] latencies = new long[(int) requests];
    int offset = 0;
    for (ThreadResult result : results) {
      System.arraycopy(result.latencies, 0, latencies, offset, result.latencies.length);
      offset += result.latencies.length;
    }
    Arrays.sort(latencies);
    return new Batch(requests, errors, wallNanos, cpu, allocated, latencies, created, firstError,
        failures);
  }
}
