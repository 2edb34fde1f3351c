package io.lazysession.it.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * Warms a workload up until the JIT has compiled what it runs: slices of {@link #SLICE} are run
 * until {@link #QUIET_SLICES} slices in a row added less than {@link #QUIET_COMPILE_MILLIS} of JIT
 * time (the JVM's total compilation time, {@link CompilationMXBean}), after at least the minimum and
 * at most the cap. A fixed time is either wasted or too short: round 7 (docs/benchmarks/round-07.md) found
 * that 0.3 s left Spring Session Data Redis's read at 564 µs of request-thread CPU against 246 µs
 * once compiled, and how long compiling takes depends on the machine and on what else runs.
 */
final class JitWarmup {
  static final Duration SLICE = Duration.ofMillis(500);
  static final long QUIET_COMPILE_MILLIS = 10;
  static final int QUIET_SLICES = 2;

  private JitWarmup() {}

  /** How one warm-up ended. */
  record Outcome(Duration ran, long compileMillis, boolean settled) {
    String describe() {
      return ran.toMillis() + " ms, " + compileMillis + " ms of JIT time, "
          + (settled ? "settled" : "not settled at the cap");
    }
  }

  /** Runs {@code slice} (one slice of {@code SLICE} of the workload) until compiled code runs. */
  static Outcome run(Duration minimum, Duration cap, java.util.function.Consumer<Duration> slice) {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
    long started = System.nanoTime();
    long compileAtStart = timed ? jit.getTotalCompilationTime() : 0;
    long compileBefore = compileAtStart;
    int quiet = 0;
    while (true) {
      slice.accept(SLICE);
      Duration ran = Duration.ofNanos(System.nanoTime() - started);
      long compileNow = timed ? jit.getTotalCompilationTime() : 0;
      quiet = compileNow - compileBefore < QUIET_COMPILE_MILLIS ? quiet + 1 : 0;
      compileBefore = compileNow;
      boolean settled = timed && quiet >= QUIET_SLICES;
      if ((settled && ran.compareTo(minimum) >= 0) || ran.compareTo(cap) >= 0) {
        return new Outcome(ran, compileNow - compileAtStart, settled);
      }
    }
  }
}
