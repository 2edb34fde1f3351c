package io.lazysession.it.bench;

import io.lazysession.it.bench.ReplicationCostHarness.FloorStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The paired floor measurement: the floor stores' PING, read-only and changing requests on one
 * request thread, alternating between the stores every few requests, so that a load that comes and
 * goes on a shared machine falls on every store alike and cancels in their ratios. The interleaved
 * floor rounds give each store a whole cell's time in turn, which on two shared cores leaves the
 * request-thread CPU of one request moving 2x between rounds.
 *
 * <p>A round is {@code bench.pairedSlices} slices; in each slice, store after store, a batch of
 * {@code bench.pairedBatch} PINGs through the store's own client, then as many read-only requests,
 * then as many changing requests, on node 0 over the store's sessions in turn. The thread's CPU
 * time is read around each batch and summed per store and request. Two unmeasured rounds come
 * first, for the JIT. A request that fails or does not find its session fails the run. Not
 * thread-safe; one run at a time.
 */
final class PairedRounds {
  /** Rounds run before the measured ones, their figures dropped. */
  static final int UNMEASURED_ROUNDS = 2;
  /**
   * Bound on the wall time of one request, on average over all the rounds: far above what a request
   * takes here, it only stops a run that has gone wrong.
   */
  private static final Duration WALL_PER_REQUEST = Duration.ofMillis(5);
  private static final Duration STRAGGLER_GRACE = Duration.ofSeconds(60);
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** The request of a batch, in the order a slice runs them. */
  private enum Kind {
    PING(ReplicationCostHarness.SAME_CLIENT_PING),
    READ(Workload.READ.label()),
    CHANGE(Workload.WRITE.label());

    final String workload;

    Kind(String workload) {
      this.workload = workload;
    }
  }

  /**
   * One store's figure for one request in one measured round.
   *
   * @param store the store's name ({@link StoreSpec#name()})
   * @param workload {@link ReplicationCostHarness#SAME_CLIENT_PING} or a {@link Workload} label
   * @param round 1 to {@code bench.pairedRounds}
   * @param cpuMicrosPerRequest the request thread's CPU time over the round's requests of this
   *     store and workload ({@code bench.pairedSlices} x {@code bench.pairedBatch}), per request
   */
  record Cell(String store, String workload, int round, double cpuMicrosPerRequest) {}

  private final int rounds;
  private final int slices;
  private final int batch;
  private final Consumer<String> log;

  PairedRounds(BenchConfig config, Consumer<String> log) {
    this.rounds = config.pairedRounds();
    this.slices = config.pairedSlices();
    this.batch = config.pairedBatch();
    this.log = log;
  }

  /**
   * Runs the unmeasured rounds then the measured ones on a request thread of its own; returns each
   * store's figures per measured round, nothing when {@code bench.pairedRounds} is 0.
   *
   * @throws IllegalStateException when a request failed, the JVM cannot measure a thread's CPU
   *     time, or the rounds ran past their time bound
   */
  List<Cell> run(List<FloorStore> stores) {
    if (rounds == 0 || stores.isEmpty()) {
      return List.of();
    }
    if (!THREADS.isCurrentThreadCpuTimeSupported()) {
      throw new IllegalStateException("this JVM cannot measure a thread's CPU time: the paired "
          + "rounds need it (set bench.pairedRounds=0 to skip them)");
    }
    if (!THREADS.isThreadCpuTimeEnabled()) {
      THREADS.setThreadCpuTimeEnabled(true);
    }
    long requests = (long) (UNMEASURED_ROUNDS + rounds) * slices * stores.size()
        * Kind.values().length * batch;
    Duration limit = WALL_PER_REQUEST.multipliedBy(requests);
    long deadline = System.nanoTime() + limit.toNanos();
    ExecutorService thread = Executors.newSingleThreadExecutor(runnable -> {
      Thread requestThread = new Thread(runnable, "bench-paired-request");
      requestThread.setDaemon(true);
      return requestThread;
    });
    try {
      Future<List<Cell>> cells = thread.submit(() -> allRounds(stores, deadline, limit));
      return cells.get(limit.plus(STRAGGLER_GRACE).toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new IllegalStateException("the paired request thread failed", e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("the paired request thread hung", e);
    } finally {
      thread.shutdownNow();
    }
  }

  /** The request thread's work: every round, the unmeasured ones numbered 0 and below. */
  private List<Cell> allRounds(List<FloorStore> stores, long deadline, Duration limit) {
    List<Cell> cells = new ArrayList<>();
    int[] next = new int[stores.size()];
    for (int round = 1 - UNMEASURED_ROUNDS; round <= rounds; round++) {
      List<Cell> measured = round(stores, round, next, deadline, limit);
      if (round >= 1) {
        cells.addAll(measured);
        logRound(round, measured);
      }
    }
    return cells;
  }

  /**
   * One round: its slices, each a batch of every request on every store (in reverse order every
   * other slice), CPU time read around each batch. {@code next} holds each store's next session, carried over from round to round.
   */
  private List<Cell> round(List<FloorStore> stores, int round, int[] next, long deadline,
      Duration limit) {
    long[][] cpuNanos = new long[stores.size()][Kind.values().length];
    Failures failures = new Failures();
    for (int slice = 0; slice < slices; slice++) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the paired rounds ran past their bound of " + limit
            + " (" + WALL_PER_REQUEST.toMillis() + " ms per request)");
      }
      for (int turn = 0; turn < stores.size(); turn++) {
        // Every other slice runs the stores in reverse order: none always goes first.
        int s = slice % 2 == 0 ? turn : stores.size() - 1 - turn;
        FloorStore store = stores.get(s);
        for (Kind kind : Kind.values()) {
          long started = THREADS.getCurrentThreadCpuTime();
          for (int i = 0; i < batch; i++) {
            String id = store.ids().get(next[s]);
            try {
              if (!request(store, kind, id)) {
                failures.add(store, kind, LoadRunner.NOT_FOUND);
              }
            } catch (RuntimeException e) {
              failures.add(store, kind, e.toString());
            }
            if (kind != Kind.PING) {
              next[s] = (next[s] + 1) % store.ids().size();
            }
          }
          cpuNanos[s][kind.ordinal()] += THREADS.getCurrentThreadCpuTime() - started;
        }
      }
    }
    long requests = (long) slices * batch;
    if (failures.count > 0) {
      throw new IllegalStateException(String.format(Locale.ROOT, "paired round %d: %d of %d "
          + "requests failed (first: %s)", round, failures.count,
          requests * stores.size() * Kind.values().length, failures.first));
    }
    List<Cell> cells = new ArrayList<>();
    for (int s = 0; s < stores.size(); s++) {
      for (Kind kind : Kind.values()) {
        cells.add(new Cell(stores.get(s).store().spec().name(), kind.workload, round,
            cpuNanos[s][kind.ordinal()] / (double) requests / 1e3));
      }
    }
    return cells;
  }

  private static boolean request(FloorStore store, Kind kind, String id) {
    return switch (kind) {
      case PING -> store.store().ping();
      case READ -> store.store().node(0).readCart(id);
      case CHANGE -> store.store().node(0).changeCart(id);
    };
  }

  /** Logs a measured round, a line per store, with each store's figures against the first's. */
  private void logRound(int round, List<Cell> cells) {
    int kinds = Kind.values().length;
    for (int at = 0; at < cells.size(); at += kinds) {
      double ping = cells.get(at + Kind.PING.ordinal()).cpuMicrosPerRequest();
      double read = cells.get(at + Kind.READ.ordinal()).cpuMicrosPerRequest();
      double change = cells.get(at + Kind.CHANGE.ordinal()).cpuMicrosPerRequest();
      String against = "";
      if (at > 0) {
        against = String.format(Locale.ROOT, " | against %s: read %+.1f%%, change %+.1f%%",
            cells.get(0).store(),
            100 * (read / cells.get(Kind.READ.ordinal()).cpuMicrosPerRequest() - 1),
            100 * (change / cells.get(Kind.CHANGE.ordinal()).cpuMicrosPerRequest() - 1));
      }
      log.accept(String.format(Locale.ROOT, "paired round %d %-22s PING %6.1f us, read %6.1f us "
              + "(%.2fx), change %6.1f us (%.2fx) request-thread CPU%s", round,
          cells.get(at).store(), ping, read, read / ping, change, change / ping, against));
    }
  }

  /** The failed requests of a round: how many, and the first (store, request, what happened). */
  private static final class Failures {
    long count;
    @Nullable String first;

    void add(FloorStore store, Kind kind, String what) {
      if (count++ == 0) {
        first = store.store().spec().name() + " " + kind.workload + ": " + what;
      }
    }
  }
}
