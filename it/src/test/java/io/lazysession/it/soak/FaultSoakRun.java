package io.lazysession.it.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The documented fault soak ({@link SoakConfig#full()}); run only by the {@code soak} profile
 * ({@value SoakReport#COMMAND}), never by the default build. Writes target/soak/reliability.md and,
 * with {@code -Dsoak.docs=<file>} (the profile passes docs/reliability.md), that file; {@code
 * -Dsoak.serverArgs} adds settings to every data server (e.g. {@code --min-replicas-to-write 1
 * --min-replicas-max-lag 1}), which the report names. Then fails if
 * durability on lost an acknowledged write, so a regression is not written down silently.
 */
class FaultSoakRun {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.sentinel()
      .withServerArgs("--enable-debug-command", "local")
      .withServerArgs(SoakReport.serverArgs());

  @Test
  void soak_everyFault_reportWritten() throws Exception {
    redis.assumeFaultInjection();
    FaultSoak.Outcome outcome = FaultSoak.run(SoakConfig.full().withSystemProperties(), redis,
        System.out::println);

    String markdown = SoakReport.markdown(outcome, redis.backend().name().toLowerCase());
    SoakReport.write(markdown, Path.of("target", "soak", "reliability.md"));
    String docs = System.getProperty("soak.docs", "");
    if (!docs.isBlank()) {
      SoakReport.write(markdown, Path.of(docs));
    }
    System.out.println(markdown);
    assertThat(outcome.lost(SoakMode.DURABILITY_ON))
        .as("acknowledged writes lost with durability on")
        .isZero();
  }
}
