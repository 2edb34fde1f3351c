package io.lazysession.it.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A few seconds of the fault soak ({@link SoakConfig#smoke()}: client connections killed, then
 * {@code CLIENT PAUSE}), so that a change that breaks the soak fails the normal build. Neither fault
 * causes a failover, so nothing acknowledged may be lost and no read may be staler than its mode
 * allows. Asserts counts, never times.
 */
class FaultSoakSmokeIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.sentinel();

  @Test
  void soak_clientKillAndPause_nothingLostNoStaleReadBeyondTheBound() throws Exception {
    redis.assumeFaultInjection();
    FaultSoak.Outcome outcome = FaultSoak.run(SoakConfig.smoke(), redis, System.out::println);

    assertThat(outcome.windows()).hasSize(3);
    assertThat(outcome.skipped()).isEmpty();
    String report = SoakReport.markdown(outcome, "smoke");
    assertThat(report).contains("client connections killed", "CLIENT PAUSE");
    for (FaultSoak.Window window : outcome.windows()) {
      for (SoakMode mode : SoakMode.values()) {
        WindowStats stats = window.stats().get(mode);
        assertThat(stats.requests.sum()).as("%s %s requests", window.label(), mode).isPositive();
        assertThat(stats.acknowledgedWrites.sum()).as("%s %s writes", window.label(), mode)
            .isPositive();
        assertThat(stats.lostWrites).as("%s %s lost", window.label(), mode).isZero();
        assertThat(stats.unverified).as("%s %s unverified", window.label(), mode).isZero();
        assertThat(stats.staleBeyondBound).as("%s %s stale", window.label(), mode).isZero();
      }
    }
  }
}
