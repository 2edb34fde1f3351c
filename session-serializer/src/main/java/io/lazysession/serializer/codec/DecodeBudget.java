package io.lazysession.serializer.codec;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.LongSupplier;

/**
 * The CPU time one decode may spend, {@code baseNanos} plus {@code nanosPerByte} for each payload
 * byte, checked between the objects it reads: the bound on work a codec cannot count before it is
 * done. The JDK codec's hash sets and maps insert each element inside their own {@code readObject} as
 * soon as it is read, so elements sharing a hash code (hash flooding: 40,000 two-element lists took
 * 135 s) cannot be counted before the {@code equals} calls are paid, as Kryo's are
 * ({@link DecodeLimits#MAX_COLLISION_WORK}); the stream still calls back between any two elements.
 *
 * <p>The default, 1 s plus 200 ns a byte (5 MB/s), is three times what the slowest decode measured
 * took (a 10 MB JDK payload of 150,000 objects: 0.7 s of CPU on a cold JVM, 0.25 s warm), so that a
 * legitimate value is not refused for its size or on a cold JVM; and above what the counted limits let a
 * decode spend (nested sets sharing children reach {@link DecodeLimits#MAX_GRAPH_VISITS} within 0.3
 * to 0.5 s), so that it stops only what nothing else counts, in about a second instead of minutes.
 *
 * <p>CPU time, not elapsed time: a request thread waiting for a core on a loaded machine, or for a
 * garbage collection, spends none of it (contention still slows the thread's own work, hence the
 * margin). Reading the thread's CPU clock costs over a microsecond, elapsed time some 25 ns, and one
 * thread's CPU time never exceeds the time elapsed: the CPU clock is read at the first check and then
 * only once the elapsed time is past the budget. Both clocks are injected, so tests drive them.
 * Immutable and thread-safe; each {@link Deadline} belongs to one decode.
 */
final class DecodeBudget {
  static final long DEFAULT_BASE_NANOS = 1_000_000_000L;
  static final long DEFAULT_NANOS_PER_BYTE = 200;
  static final DecodeBudget DEFAULT = new DecodeBudget(DEFAULT_BASE_NANOS, DEFAULT_NANOS_PER_BYTE,
      System::nanoTime, DecodeBudget::threadCpuNanos);
  /** Objects read between two looks at the clock (a power of two). */
  private static final int CHECK_EVERY = 16;
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final long baseNanos;
  private final long nanosPerByte;
  private final LongSupplier elapsedNanos;
  private final LongSupplier cpuNanos;

  DecodeBudget(long baseNanos, long nanosPerByte, LongSupplier elapsedNanos, LongSupplier cpuNanos) {
    this.baseNanos = baseNanos;
    this.nanosPerByte = nanosPerByte;
    this.elapsedNanos = elapsedNanos;
    this.cpuNanos = cpuNanos;
  }

  /** This thread's CPU time, or the elapsed time where the JVM cannot tell. */
  private static long threadCpuNanos() {
    long cpu = THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    return cpu >= 0 ? cpu : System.nanoTime();
  }

  /** The deadline of a decode of {@code payloadBytes} starting now. */
  Deadline start(int payloadBytes) {
    return new Deadline(baseNanos + nanosPerByte * payloadBytes);
  }

  /** One decode's budget; not thread-safe. */
  final class Deadline {
    private final long budgetNanos;
    private final long elapsedStart = elapsedNanos.getAsLong();
    private long cpuStart = -1;
    private int calls;

    private Deadline(long budgetNanos) {
      this.budgetNanos = budgetNanos;
    }

    /** Called between objects; throws once the decode spent more CPU time than its budget. */
    void check() {
      if ((++calls & (CHECK_EVERY - 1)) != 0) {
        return;
      }
      if (cpuStart < 0) {
        cpuStart = cpuNanos.getAsLong(); // small values never get here
      }
      if (elapsedNanos.getAsLong() - elapsedStart > budgetNanos
          && cpuNanos.getAsLong() - cpuStart > budgetNanos) {
        throw new DecodeLimitException("decoding stopped: the value took more than "
            + budgetNanos / 1_000_000 + " ms of CPU time to read (hash sets or maps whose elements"
            + " share hash codes, or other work growing faster than its bytes; limit decodeCpuTime,"
            + " " + baseNanos / 1_000_000 + " ms plus " + nanosPerByte + " ns per payload byte)");
      }
    }
  }
}
