package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.EncryptionKey;
import io.lazysession.redis.EncryptionKeySource;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The startup INFO line says every setting that changes what the store does from the defaults:
 * encryption (on or off, the key id that writes, whether unprotected values are accepted; never a
 * key), the session policies, the budgets, tracked reads, durability and migration. No Redis is
 * involved: the application starts without it (lazysession.require-redis-at-startup=false).
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupLineTest {
  static final String SECRET_1 = Base64.getEncoder().encodeToString(filled(1));
  static final String SECRET_2 = Base64.getEncoder().encodeToString(filled(2));
  private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(LazySessionAutoConfiguration.class))
      .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1");

  private static byte[] filled(int value) {
    byte[] bytes = new byte[32];
    java.util.Arrays.fill(bytes, (byte) value);
    return bytes;
  }

  private static String line(CapturedOutput output) {
    return output.getOut().lines().filter(l -> l.contains("lazysession stores sessions in Redis"))
        .reduce((first, second) -> second).orElseThrow();
  }

  @Test
  void startup_defaults_saysEncryptionOffAndNothingChanged(CapturedOutput output) {
    runner.run(context -> assertThat(context).hasNotFailed());

    assertThat(line(output)).endsWith("session timeout 30m; encryption off");
  }

  @Test
  void startup_keysPoliciesBudgetsDurabilityMigration_saysEachWithoutAKey(CapturedOutput output) {
    runner.withPropertyValues("lazysession.encryption.keys=k2:" + SECRET_2 + ",k1:" + SECRET_1,
            "lazysession.encryption.accept-unprotected=true",
            "lazysession.absolute-timeout=8h", "lazysession.anonymous-timeout=2m",
            "lazysession.id-renewal-interval=15m", "lazysession.max-sessions-per-principal=2",
            "lazysession.max-sessions-action=refuse-new",
            "lazysession.session-budget.warn-bytes=16KB", "lazysession.session-budget.max-bytes=64KB",
            "lazysession.near-cache.mode=track", "lazysession.durability.replicas=1",
            "lazysession.durability.timeout=500ms", "lazysession.migrate-from=spring-session-data-redis",
            "lazysession.expiry-events=false", "lazysession.on-decode-failure=invalidate-session")
        .run(context -> assertThat(context).hasNotFailed());

    assertThat(line(output))
        .contains("near cache track (64MB, max staleness 500ms)")
        .contains("; encryption on (writing key id k2, reading k2, k1; unprotected values "
            + "accepted)")
        .contains("; changed from the defaults: on-decode-failure=invalidate-session, "
            + "expiry-events=false, durability.replicas=1, durability.timeout=500ms, "
            + "migrate-from=spring-session-data-redis, absolute-timeout=8h, "
            + "anonymous-timeout=2m, id-renewal-interval=15m, "
            + "session-budget.warn-bytes=16KB, session-budget.max-bytes=64KB, "
            + "max-sessions-per-principal=2, max-sessions-action=refuse-new")
        .doesNotContain(SECRET_1).doesNotContain(SECRET_2);
    assertThat(output.getAll()).doesNotContain(SECRET_1).doesNotContain(SECRET_2);
  }

  @Test
  void startup_unprotectedRefusedAndWrittenUnprotected_saysSo(CapturedOutput output) {
    runner.withPropertyValues("lazysession.encryption.keys=k1:" + SECRET_1,
            "lazysession.encryption.accept-unprotected=false")
        .run(context -> assertThat(context).hasNotFailed());
    runner.withPropertyValues("lazysession.encryption.keys=k1:" + SECRET_1,
            "lazysession.encryption.accept-unprotected=true",
            "lazysession.encryption.write-unprotected=true")
        .run(context -> assertThat(context).hasNotFailed());

    assertThat(output.getOut())
        .contains("; encryption on (writing key id k1; unprotected values refused)")
        .contains("; encryption on (writing key id k1; unprotected values accepted, and written: "
            + "values are written unprotected)")
        .doesNotContain(SECRET_1);
  }

  @Test
  void startup_keysFromAKeySourceBean_saysEncryptionOn(CapturedOutput output) {
    runner.withBean(EncryptionKeySource.class,
            () -> () -> List.of(EncryptionKey.of("vault-7", filled(7))))
        .run(context -> assertThat(context).hasNotFailed());

    assertThat(line(output)).contains("; encryption on (writing key id vault-7;")
        .doesNotContain(Base64.getEncoder().encodeToString(filled(7)));
  }
}
