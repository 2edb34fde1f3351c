package io.lazysession.it.soak;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * How long and how hard the soak runs. Every loop of the soak is bounded by these: faults stop
 * being injected once {@code faultBudget} is spent, and each wait for Redis to settle by {@code
 * settleTimeout}.
 *
 * @param threadsPerMode client threads per {@link SoakMode}, each with sessions of its own
 * @param think pause between two requests of one thread
 * @param baseline traffic before the first fault (the control row)
 * @param observe traffic after Redis settled from a fault, before its window is verified
 * @param settleTimeout longest wait for a primary with an online replica after a fault
 * @param faultBudget no fault starts once this much time has passed since the first one
 */
record SoakConfig(int threadsPerMode, Duration think, Duration baseline, Duration observe,
    Duration settleTimeout, Duration faultBudget, List<Fault> faults) {

  /** The documented run: every fault once, 16 threads per mode, at most 3 minutes of faults. */
  static SoakConfig full() {
    return new SoakConfig(16, Duration.ofMillis(20), Duration.ofSeconds(5), Duration.ofSeconds(4),
        Duration.ofSeconds(40), Duration.ofMinutes(3), List.of(Fault.values()));
  }

  /** A few seconds of two faults that need no failover: the build's check that the soak works. */
  static SoakConfig smoke() {
    return new SoakConfig(2, Duration.ofMillis(10), Duration.ofSeconds(1), Duration.ofSeconds(1),
        Duration.ofSeconds(20), Duration.ofSeconds(30), List.of(Fault.CLIENT_KILL,
            Fault.CLIENT_PAUSE));
  }

  /**
   * This configuration with {@code -Dsoak.threads}, {@code -Dsoak.thinkMillis}, {@code
   * -Dsoak.faults}.
   */
  SoakConfig withSystemProperties() {
    int threads = Integer.getInteger("soak.threads", threadsPerMode);
    Duration thinkTime = Duration.ofMillis(Long.getLong("soak.thinkMillis", think.toMillis()));
    String names = System.getProperty("soak.faults", "");
    List<Fault> chosen = names.isBlank() ? faults
        : Arrays.stream(names.split(",")).map(String::trim).map(Fault::valueOf).toList();
    if (threads < 1) {
      throw new IllegalArgumentException("soak.threads must be >= 1, was " + threads);
    }
    return new SoakConfig(threads, thinkTime, baseline, observe, settleTimeout, faultBudget,
        chosen);
  }
}
