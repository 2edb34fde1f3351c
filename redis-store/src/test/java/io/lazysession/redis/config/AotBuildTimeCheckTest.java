package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.mock.env.MockEnvironment;

/**
 * The check that the generated code of an application built for Spring AOT runs as it starts:
 * {@code lazysession.enabled} at run time must agree with the build, else startup stops naming the
 * property, both values and the rule. (AotLoginIT runs it in a built application.)
 */
class AotBuildTimeCheckTest {
  @Test
  void check_disabledAtRunTimeOfAnEnabledBuild_failsNamingThePropertyAndTheRule() {
    MockEnvironment environment = new MockEnvironment()
        .withProperty("lazysession.enabled", "false");

    assertThatThrownBy(() -> AotBuildTimeCheck.check(environment, true, "not set"))
        .isInstanceOfSatisfying(LazySessionConfigurationException.class, e -> {
          assertThat(e.setting()).isEqualTo("lazysession.enabled");
          assertThat(e.value()).isEqualTo("false");
          assertThat(e.reason()).isEqualTo("differs from its value when the application was "
              + "built for Spring AOT (not set): Spring AOT decides at build time, from the "
              + "build's settings, whether lazysession stores the sessions, and ignores the "
              + "value it runs with");
          assertThat(e.action()).isEqualTo("Build the application with lazysession.enabled=false"
              + " (set it where the build runs Spring AOT, e.g. in application.properties), or "
              + "run it with lazysession.enabled=true or without it.");
        });
  }

  @Test
  void check_unsetAtRunTimeOfADisabledBuild_fails() {
    assertThatThrownBy(() -> AotBuildTimeCheck.check(new MockEnvironment(), false, "false"))
        .isInstanceOfSatisfying(LazySessionConfigurationException.class, e -> {
          assertThat(e.value()).isEqualTo("not set");
          assertThat(e.reason()).contains("(false)");
          assertThat(e.action()).isEqualTo("Build the application with lazysession.enabled=true"
              + " (set it where the build runs Spring AOT, e.g. in application.properties), or "
              + "run it with lazysession.enabled=false.");
        });
  }

  @Test
  void check_sameValueAsTheBuild_passes() {
    assertThatCode(() -> AotBuildTimeCheck.check(new MockEnvironment(), true, "not set"))
        .doesNotThrowAnyException();
    assertThatCode(() -> AotBuildTimeCheck.check(new MockEnvironment()
        .withProperty("lazysession.enabled", " FALSE"), false, "false"))
        .doesNotThrowAnyException();
  }

  @Test
  void check_invalidValueAtRunTime_failsAsTheConditionWould() {
    MockEnvironment environment = new MockEnvironment().withProperty("lazysession.enabled", "yes");

    assertThatThrownBy(() -> AotBuildTimeCheck.check(environment, true, "not set"))
        .isInstanceOf(LazySessionConfigurationException.class)
        .hasMessageContaining("lazysession.enabled must be true or false, was 'yes'");
  }

  @Test
  void aotFactories_registerTheCheck() {
    assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
        .load(BeanFactoryInitializationAotProcessor.class))
        .anyMatch(AotBuildTimeCheck.class::isInstance);
  }
}
