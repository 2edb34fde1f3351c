package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.mock.env.MockEnvironment;

/**
 * Every misconfiguration of a {@code lazysession.*} property (and of the Spring settings
 * lazysession reads) stops startup with a failure analysis that names the property, the value the
 * application gave and the fix. No Redis is involved: each fails before the first connection.
 */
class MisconfigurationAnalysisTest {
  static final String SECRET = java.util.Base64.getEncoder().encodeToString(new byte[32]);
  static final String SHORT_SECRET = java.util.Base64.getEncoder().encodeToString(new byte[16]);
  private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(LazySessionAutoConfiguration.class))
      .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1");

  /**
   * @param properties what the application sets, {@code name=value}
   * @param setting the property the analysis must name
   * @param value the value it must show, as the application wrote it
   * @param reason what the description must say is wrong
   * @param fix what the action must say to do
   */
  static Stream<Arguments> misconfigurations() {
    return Stream.of(
        row("lazysession.namespace=my/app", "lazysession.namespace", "my/app",
            "letters, digits and -_.: only", "Set lazysession.namespace to such a name, e.g. my-app"),
        row("spring.session.data.redis.namespace=my app", "spring.session.data.redis.namespace",
            "my app", "letters, digits and -_.: only",
            "Set spring.session.data.redis.namespace to such a name, e.g. my-app"),
        row("lazysession.touch-interval=2h", "lazysession.touch-interval", "2h",
            "must be shorter than the session timeout (spring.session.timeout or "
                + "server.servlet.session.timeout, 30m)",
            "Set lazysession.touch-interval well below 30m (e.g. 30s), raise the session "
                + "timeout, or remove lazysession.touch-interval"),
        row("lazysession.touch-interval=-1s", "lazysession.touch-interval", "-1s",
            "must be 0 or more", "Set lazysession.touch-interval to a duration such as 30s"),
        row("lazysession.touch-interval=2x", "lazysession.touch-interval", "2x",
            "must be a duration with a unit (250ms, 30s, 5m, 2h)",
            "Set lazysession.touch-interval to a duration with a unit"),
        row("lazysession.absolute-timeout=500ms", "lazysession.absolute-timeout", "500ms",
            "must be whole seconds, 1s or more",
            "Set lazysession.absolute-timeout to a duration such as 8h, or remove it for none"),
        row("lazysession.id-renewal-interval=90500ms", "lazysession.id-renewal-interval",
            "90500ms", "must be whole seconds, 1s or more",
            "Set lazysession.id-renewal-interval to a duration such as 15m, or remove it for none"),
        row("lazysession.id-renewal-interval=1m,lazysession.id-renewal-grace=1m",
            "lazysession.id-renewal-grace", "1m", "must be shorter than "
                + "lazysession.id-renewal-interval (1m), or the old id would outlive the new one",
            "Set lazysession.id-renewal-grace to a few seconds, such as 10s (the default)"),
        row("lazysession.anonymous-timeout=0s", "lazysession.anonymous-timeout", "0s",
            "must be whole seconds, 1s or more",
            "Set lazysession.anonymous-timeout to a duration such as 10m, or remove it for none"),
        row("lazysession.anonymous-timeout=30m", "lazysession.anonymous-timeout", "30m",
            "must be shorter than the session timeout (spring.session.timeout or "
                + "server.servlet.session.timeout, 30m), or it changes nothing",
            "Set lazysession.anonymous-timeout below 30m (e.g. 10m), or remove it."),
        row("lazysession.max-sessions-per-principal=0", "lazysession.max-sessions-per-principal",
            "0", "must be at least 1", "Set it to 1 or more (1: one session per user), or remove "
                + "it for no limit."),
        row("lazysession.max-sessions-action=kick", "lazysession.max-sessions-action", "kick",
            "is not a limit action",
            "Set lazysession.max-sessions-action to evict-oldest (the default) or refuse-new."),
        row("lazysession.codec=protobuf", "lazysession.codec", "protobuf",
            "is not a codec lazysession knows", "Set lazysession.codec to kryo (the default) or jdk."),
        row("lazysession.compression=gzip", "lazysession.compression", "gzip",
            "is not a compression lazysession knows",
            "Set lazysession.compression to zstd (the default) or none."),
        row("lazysession.compression.algorithm=lz4", "lazysession.compression.algorithm", "lz4",
            "is not a compression lazysession knows",
            "Set lazysession.compression.algorithm to zstd (the default) or none."),
        row("lazysession.compression=none,lazysession.compression.algorithm=zstd",
            "lazysession.compression.algorithm", "zstd",
            "is set as well as lazysession.compression (none), and they differ",
            "Keep one of them"),
        row("lazysession.compression.level=23", "lazysession.compression.level", "23",
            "must be between 1 and 22",
            "Set lazysession.compression.level between 1 (fastest) and 22 (smallest); 3 is the "
                + "default."),
        row("lazysession.compression.level=high", "lazysession.compression.level", "high",
            "must be a whole number", "Set lazysession.compression.level to a whole number"),
        row("lazysession.compression.min-bytes=-1", "lazysession.compression.min-bytes", "-1",
            "must be 0 or more", "Set lazysession.compression.min-bytes to 0 or more"),
        row("lazysession.on-decode-failure=ignore", "lazysession.on-decode-failure", "ignore",
            "is not a decode failure policy",
            "Set lazysession.on-decode-failure to drop-attribute (the default), "
                + "invalidate-session or fail."),
        row("lazysession.near-cache.max-bytes=-1", "lazysession.near-cache.max-bytes", "-1",
            "must be 0 or more", "Set it to 0 (no near cache) or a size such as 64MB"),
        row("lazysession.near-cache.max-bytes=lots", "lazysession.near-cache.max-bytes", "lots",
            "must be a size with a unit (512B, 64KB, 16MB)",
            "Set lazysession.near-cache.max-bytes to a size with a unit"),
        row("lazysession.near-cache.mode=fast", "lazysession.near-cache.mode", "fast",
            "must be one of validate, track",
            "Set lazysession.near-cache.mode to one of validate, track"),
        row("lazysession.near-cache.max-staleness=0ms", "lazysession.near-cache.max-staleness",
            "0ms", "must be longer than 0",
            "Set lazysession.near-cache.max-staleness to a duration such as 500ms"),
        row("lazysession.expiry-grace=-5m", "lazysession.expiry-grace", "-5m", "must be 0 or more",
            "Set lazysession.expiry-grace to a duration such as 5m"),
        row("lazysession.cleanup-interval=-10s", "lazysession.cleanup-interval", "-10s",
            "must be 0 or more", "Set lazysession.cleanup-interval to a duration such as 10s"),
        row("lazysession.expiry-events=maybe", "lazysession.expiry-events", "maybe",
            "must be true or false", "Set lazysession.expiry-events to true or false"),
        row("lazysession.enabled=maybe", "lazysession.enabled", "maybe",
            "must be true or false", "Set lazysession.enabled to true or false"),
        row("lazysession.durability.replicas=-1", "lazysession.durability.replicas", "-1",
            "must be 0 or more", "Set it to 0 (saves wait for no replica, the default)"),
        row("lazysession.durability.timeout=0s", "lazysession.durability.timeout", "0s",
            "must be longer than 0",
            "Set lazysession.durability.timeout to a duration such as 1s"),
        row("lazysession.durability.replicas=1,lazysession.durability.timeout=5s,"
                + "spring.data.redis.timeout=2s", "lazysession.durability.timeout", "5s",
            "must be shorter than spring.data.redis.timeout (2s)",
            "Set lazysession.durability.timeout below 2s (e.g. half of it), or raise "
                + "spring.data.redis.timeout."),
        row("lazysession.near-cache.max-bytes=10TB", "lazysession.near-cache.max-bytes", "10TB",
            "must be below this JVM's maximum heap",
            "Set it well below the heap, such as a quarter of it, or 0 for no near cache."),
        row("spring.data.redis.database=-1", "spring.data.redis.database", "-1",
            "must be 0 or more", "Set spring.data.redis.database to 0 (the default)"),
        row("spring.data.redis.timeout=0", "spring.data.redis.timeout", "0",
            "must be longer than 0 (0 would be no timeout",
            "Set spring.data.redis.timeout to a duration such as 2s"),
        row("spring.data.redis.timeout=-1s", "spring.data.redis.timeout", "-1s",
            "must be longer than 0", "Set spring.data.redis.timeout to a duration such as 2s"),
        row("lazysession.max-value-bytes=10B", "lazysession.max-value-bytes", "10B",
            "must be at least 1KB and below 2GB",
            "Set lazysession.max-value-bytes between 1KB and 2GB, or remove it for the default "
                + "(16MB)."),
        row("lazysession.pack.max-bytes=1MB", "lazysession.pack.max-bytes", "1MB",
            "must be between 0 and 64KB", "Set it between 0 (every attribute in a field of its "
                + "own) and 64KB"),
        row("lazysession.migrate-from=jdbc", "lazysession.migrate-from", "jdbc",
            "is not a store lazysession can take over from",
            "Set lazysession.migrate-from=spring-session-data-redis"),
        // keys alone refuse unprotected values, which a take-over reads: the analysis names the
        // setting to change, not the connection
        row("lazysession.encryption.keys=k1:" + SECRET
                + ",lazysession.migrate-from=spring-session-data-redis",
            "lazysession.encryption.accept-unprotected", null,
            "lazysession.encryption.accept-unprotected=false (the default with keys) refuses",
            "Set lazysession.encryption.accept-unprotected=true while lazysession.migrate-from "
                + "takes sessions over"),
        // lazysession.encryption.* and lazysession.session-budget.*: the analysis names the
        // property at fault and a fix, not "lazysession.encryption must be a valid Encryption"
        row("lazysession.encryption.keys=k1:" + SHORT_SECRET, "lazysession.encryption.keys", null,
            "key 'k1' must have 32 bytes (openssl rand -base64 32), had 16",
            "openssl rand -base64 32"),
        row("lazysession.encryption.keys=" + SECRET, "lazysession.encryption.keys", null,
            "must be keyId:base64", "openssl rand -base64 32"),
        // id and secret swapped (base64:keyId): the secret is read as the id, which the
        // analysis must not show either
        row("lazysession.encryption.keys=" + SECRET + ":k1", "lazysession.encryption.keys", null,
            "must be keyId:base64, in that order", "openssl rand -base64 32"),
        row("lazysession.encryption.keys=k1:" + SECRET
                + ",lazysession.encryption.write-unprotected=true"
                + ",lazysession.encryption.accept-unprotected=false",
            "lazysession.encryption.write-unprotected", null,
            "needs lazysession.encryption.accept-unprotected=true",
            "lazysession.encryption.accept-unprotected=true"),
        row("lazysession.session-budget.warn-bytes=64KB,lazysession.session-budget.max-bytes=64KB",
            "lazysession.session-budget.warn-bytes", "64KB",
            "must be below lazysession.session-budget.max-bytes (64KB), or it never warns",
            "Set lazysession.session-budget.warn-bytes below 64KB (e.g. half of it), or remove it."),
        row("lazysession.session-budget.max-bytes=0", "lazysession.session-budget.max-bytes", "0",
            "must be more than 0", "Set lazysession.session-budget.max-bytes to a size such as"),
        row("lazysession.session-budget.warn-bytes=-1KB", "lazysession.session-budget.warn-bytes",
            "-1KB", "must be more than 0",
            "Set lazysession.session-budget.warn-bytes to a size such as"),
        // a typo in a name stops startup naming the nearest valid property
        row("lazysession.compresion=none", "lazysession.compresion", null,
            "is not a lazysession property; did you mean lazysession.compression?",
            "Rename it to lazysession.compression"),
        row("lazysession.max-session-per-principal=1", "lazysession.max-session-per-principal",
            null, "is not a lazysession property; did you mean "
                + "lazysession.max-sessions-per-principal?",
            "Rename it to lazysession.max-sessions-per-principal"),
        row("lazysession.encryption.key=k1:" + SECRET, "lazysession.encryption.key", null,
            "is not a lazysession property; did you mean lazysession.encryption.keys?",
            "Rename it to lazysession.encryption.keys"),
        row("spring.session.timeout=500ms",
            "spring.session.timeout or server.servlet.session.timeout", "500ms",
            "must be at least one second", "Set the session timeout to 1s or more"),
        row("spring.session.data.redis.flush-mode=later", "spring.session.data.redis.flush-mode",
            null, "unknown flush mode 'later'", "Use on-save or immediate"));
  }

  private static Arguments row(String properties, String setting, String value, String reason,
      String fix) {
    return Arguments.of(properties, setting, value, reason, fix);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("misconfigurations")
  void startup_misconfiguration_isAnalyzedNamingPropertyValueAndFix(String properties,
      String setting, String value, String reason, String fix) {
    MockEnvironment environment = new MockEnvironment();
    for (String property : properties.split(",")) {
      environment.setProperty(property.substring(0, property.indexOf('=')),
          property.substring(property.indexOf('=') + 1));
    }
    runner.withPropertyValues(properties.split(",")).run(context -> {
      assertThat(context).hasFailed();
      FailureAnalysis analysis = new LazySessionFailureAnalyzer(environment)
          .analyze(context.getStartupFailure());

      assertThat(analysis).as("a failure analysis").isNotNull();
      assertThat(analysis.getDescription())
          .startsWith("lazysession (Spring Session on Redis) could not start: ")
          .contains("Setting: " + setting)
          .contains(reason);
      if (value != null) {
        assertThat(analysis.getDescription()).contains("Value: " + value);
      }
      assertThat(analysis.getAction()).contains(fix);
      assertThat(analysis.getDescription() + analysis.getAction()).as("never shows a key")
          .doesNotContain(SECRET).doesNotContain(SHORT_SECRET);
    });
  }

  /**
   * A cleanup interval below a millisecond (500us, PT0.0001S) passes the property checks (it is not
   * negative) and then fails startup in the sweeper's scheduler with a bare IllegalArgumentException
   * (message null), which no analysis explains: it must either start or name the property.
   */
  @org.junit.jupiter.api.Test
  void cleanupInterval_belowOneMillisecond_startsOrIsAnalyzedNamingTheProperty() {
    MockEnvironment environment = new MockEnvironment();
    environment.setProperty("lazysession.cleanup-interval", "500us");
    runner.withPropertyValues("lazysession.cleanup-interval=500us").run(context -> {
      if (context.getStartupFailure() == null) {
        return;
      }
      FailureAnalysis analysis = new LazySessionFailureAnalyzer(environment)
          .analyze(context.getStartupFailure());
      assertThat(analysis).as("a failure analysis of " + context.getStartupFailure()).isNotNull();
      assertThat(analysis.getDescription()).contains("Setting: lazysession.cleanup-interval");
    });
  }
}
