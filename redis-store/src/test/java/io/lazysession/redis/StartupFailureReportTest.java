package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.redis.bootapp.ShopApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * What a user sees when a Spring Boot application starts with a lazysession setting it cannot
 * have: Spring Boot's "APPLICATION FAILED TO START" report (lazysession's failure analyzer, found
 * through META-INF/spring.factories and ahead of Boot's own binding analyzer), naming the
 * property, the value and the fix, and no stack trace. No Redis is needed: each fails before the
 * first connection.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureReportTest {
  private static void start(String... arguments) {
    assertThatThrownBy(() -> new SpringApplicationBuilder(ShopApplication.class)
        .web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=redis://127.0.0.1:1")
        .run(arguments)).isNotNull();
  }

  @Test
  void run_namespaceWithASlash_reportsPropertyValueAndFix(CapturedOutput output) {
    start("--lazysession.namespace=my/app");

    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("lazysession (Spring Session on Redis) could not start: lazysession.namespace "
            + "must be made of letters, digits and -_.: only")
        .contains("Setting: lazysession.namespace")
        .contains("Value: my/app")
        .contains("Action:")
        .contains("Set lazysession.namespace to such a name, e.g. my-app.");
  }

  @Test
  void run_touchIntervalLongerThanTheTimeout_reportsPropertyValueAndFix(CapturedOutput output) {
    start("--lazysession.touch-interval=2h");

    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("lazysession.touch-interval must be shorter than the session timeout")
        .contains("Value: 2h")
        .contains("Set lazysession.touch-interval well below 30m (e.g. 30s)");
  }

  @Test
  void run_valueRefusedWhileBinding_isReportedByLazysessionNotAsAGenericBindFailure(
      CapturedOutput output) {
    start("--lazysession.compression.level=23");

    assertThat(output.getOut() + output.getErr())
        .contains("lazysession.compression.level must be between 1 and 22")
        .contains("Value: 23")
        .contains("Set lazysession.compression.level between 1 (fastest) and 22 (smallest)")
        .doesNotContain("Update your application's configuration");
  }

  @Test
  void run_valueThatDoesNotConvert_saysWhatTheValueShouldLookLike(CapturedOutput output) {
    start("--lazysession.near-cache.max-staleness=soon");

    assertThat(output.getOut() + output.getErr())
        .contains("lazysession.near-cache.max-staleness must be a duration with a unit")
        .contains("Value: soon")
        .contains("Set lazysession.near-cache.max-staleness to a duration with a unit "
            + "(250ms, 30s, 5m, 2h) or in ISO-8601 (PT5M)");
  }

  @Test
  void run_typoInAPropertyName_reportsItAndTheNearestValidProperty(CapturedOutput output) {
    start("--lazysession.compresion=none");

    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("lazysession (Spring Session on Redis) could not start: lazysession.compresion "
            + "(from ")
        .contains("is not a lazysession property; did you mean lazysession.compression?")
        .contains("Setting: lazysession.compresion")
        .contains("Rename it to lazysession.compression (docs/user-guide.md lists every "
            + "property)")
        .contains("set lazysession.ignore-unknown-properties=true");
  }
}
