package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * An unknown property under {@code lazysession.} stops startup naming it and the nearest valid
 * one; every valid name, in every form Spring Boot binds, starts. No Redis is involved: the check
 * runs before the first connection, and startup does not wait for Redis.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnknownPropertiesTest {
  static final String SECRET = Base64.getEncoder().encodeToString(new byte[32]);
  private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(LazySessionAutoConfiguration.class))
      .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1");

  /** An environment whose system environment holds only {@code variables}. */
  private WebApplicationContextRunner withEnvironmentVariables(Map<String, Object> variables) {
    return runner.withInitializer(context -> context.getEnvironment().getPropertySources()
        .replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
            new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables)));
  }

  @Test
  void startup_typoOfTheKeysProperty_failsNamingItAndTheValidOneWithoutTheKey() {
    runner.withPropertyValues("lazysession.encryption.key=k1:" + SECRET).run(context -> {
      FailureAnalysis analysis = new LazySessionFailureAnalyzer()
          .analyze(context.getStartupFailure());

      assertThat(analysis).isNotNull();
      assertThat(analysis.getDescription())
          .contains("lazysession.encryption.key (from ")
          .contains("is not a lazysession property; did you mean lazysession.encryption.keys?")
          .contains("Setting: lazysession.encryption.key");
      assertThat(analysis.getAction())
          .startsWith("Rename it to lazysession.encryption.keys")
          .contains("set lazysession.ignore-unknown-properties=true to log unknown properties "
              + "instead of stopping");
      assertThat(analysis.getDescription() + analysis.getAction()).doesNotContain(SECRET);
    });
  }

  @Test
  void startup_twoUnknownProperties_namesBoth() {
    runner.withPropertyValues("lazysession.compresion=none", "lazysession.shiny=yes")
        .run(context -> {
          FailureAnalysis analysis = new LazySessionFailureAnalyzer()
              .analyze(context.getStartupFailure());

          assertThat(analysis.getDescription())
              .contains("lazysession.compresion (from ")
              .contains("did you mean lazysession.compression?")
              .containsPattern("lazysession\\.shiny \\(from [^)]*\\) is not a lazysession "
                  + "property[;.]");
        });
  }

  @Test
  void startup_validNamesInEveryRelaxedForm_starts() {
    runner.withPropertyValues("lazysession.maxSessionsPerPrincipal=2",
            "lazysession.max_sessions_action=refuse-new", "lazysession.allowed-packages[0]=org.acme",
            "lazysession.allowedPackages[1]=com.example", "lazysession.NEAR-CACHE.MAX-BYTES=1MB",
            "lazysession.compression=zstd", "lazysession.compression.level=5",
            "lazysession.session-budget.warn-bytes=16KB", "lazysession.encryption.keys=k1:" + SECRET,
            "lazysession.enabled=true", "lazysession.ignore-unknown-properties=false")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void startup_validEnvironmentVariables_startWithoutAWarning(CapturedOutput output) {
    withEnvironmentVariables(Map.of("LAZYSESSION_COMPRESSION", "none",
        "LAZYSESSION_MAXSESSIONSPERPRINCIPAL", "2", "LAZYSESSION_ALLOWEDPACKAGES_0_", "org.acme",
        "LAZYSESSION_NEARCACHE_MAXBYTES", "1MB"))
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(LazySessionProperties.class).maxSessionsPerPrincipal())
              .isEqualTo(2);
        });
    assertThat(output).doesNotContain("lazysession ignores");
  }

  /**
   * Boot's own reasoning for unknown fields: the environment holds variables not meant for the
   * application (a script's LAZYSESSION_TEST_REDIS_MODE); a typo there is logged, not fatal.
   */
  @Test
  void startup_environmentVariableTypo_startsAndLogsTheNearestName(CapturedOutput output) {
    withEnvironmentVariables(Map.of("LAZYSESSION_COMPRESION", "none",
        "LAZYSESSION_TEST_REDIS_MODE", "container"))
        .run(context -> assertThat(context).hasNotFailed());

    assertThat(output).contains("lazysession ignores lazysession.compresion (from "
        + "\"LAZYSESSION_COMPRESION\" from property source \"systemEnvironment\") is not a "
        + "lazysession property; did you mean lazysession.compression?");
    assertThat(output).doesNotContain("LAZYSESSION_TEST_REDIS_MODE");
  }

  @Test
  void startup_unknownPropertyIgnoredBySetting_startsAndLogsIt(CapturedOutput output) {
    runner.withPropertyValues("lazysession.compresion=none",
            "lazysession.ignore-unknown-properties=true")
        .run(context -> assertThat(context).hasNotFailed());

    assertThat(output).contains("lazysession ignores lazysession.compresion")
        .contains("did you mean lazysession.compression? (lazysession.ignore-unknown-properties"
            + "=true)");
  }

  /** Every property of the metadata (what IDEs and the user guide offer) is known to the check. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("metadataNames")
  void unknown_eachPropertyOfTheMetadata_isKnown(String name) {
    Map<String, Object> source = new HashMap<>();
    source.put(name, sample(name));

    assertThat(UnknownProperties.unknown(new Binder(new MapConfigurationPropertySource(source))))
        .isEmpty();
  }

  static List<String> metadataNames() {
    List<String> names = UnknownProperties.validNames();
    assertThat(names).contains("lazysession.compression", "lazysession.enabled",
        UnknownProperties.IGNORE, "lazysession.encryption.keys",
        "lazysession.max-sessions-per-principal");
    return names;
  }

  /** A value {@code name} accepts when set alone. */
  private static String sample(String name) {
    return switch (name) {
      case "lazysession.encryption.keys" -> "k1:" + SECRET;
      case "lazysession.migrate-from" -> "spring-session-data-redis";
      case "lazysession.codec" -> "jdk";
      case "lazysession.compression", "lazysession.compression.algorithm" -> "none";
      case "lazysession.on-decode-failure" -> "fail";
      case "lazysession.allow-list-mode" -> "audit";
      case "lazysession.max-sessions-action" -> "refuse-new";
      case "lazysession.near-cache.mode" -> "track";
      case "lazysession.compression.min-bytes" -> "1";
      case "lazysession.allow-organization-packages" -> "false";
      // true alone is refused: it needs accept-unprotected=true (a rollout)
      case "lazysession.encryption.write-unprotected" -> "false";
      default -> name.endsWith("bytes") ? "2KB" : name.endsWith("timeout")
          || name.endsWith("interval") || name.endsWith("grace") || name.endsWith("staleness")
          ? "1h" : name.endsWith("packages") ? "org.acme" : name.endsWith("namespace") ? "shop"
          : name.matches(".*(replicas|level|principal)") ? "1" : "true";
    };
  }
}
