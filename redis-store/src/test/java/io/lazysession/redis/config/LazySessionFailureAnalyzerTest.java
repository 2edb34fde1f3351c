package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

class LazySessionFailureAnalyzerTest {
  @Test
  void analyze_configurationExceptionInsideBeanCreation_namesTheSettingAndTheAction() {
    LazySessionConfigurationException cause = new LazySessionConfigurationException(
        "spring.session.data.redis.flush-mode", "flush-mode 'immediate' is not supported",
        "Remove spring.session.data.redis.flush-mode or set it to on-save.");

    FailureAnalysis analysis = new LazySessionFailureAnalyzer()
        .analyze(new BeanCreationException("sessionRepository", "failed", cause));

    assertThat(analysis.getDescription()).contains("flush-mode 'immediate' is not supported")
        .contains("Setting: spring.session.data.redis.flush-mode");
    assertThat(analysis.getAction()).isEqualTo(
        "Remove spring.session.data.redis.flush-mode or set it to on-save.");
  }

  @Test
  void analyze_otherFailure_isLeftToOtherAnalyzers() {
    assertThat(new LazySessionFailureAnalyzer().analyze(new IllegalStateException("x"))).isNull();
  }

  @Test
  void getOrder_runsBeforeBootsBindFailureAnalyzer() {
    assertThat(new LazySessionFailureAnalyzer().getOrder())
        .isEqualTo(org.springframework.core.Ordered.HIGHEST_PRECEDENCE);
  }

  @Test
  void analyze_bindFailureOfAnotherPrefix_isLeftToBoot() {
    org.springframework.mock.env.MockEnvironment environment =
        new org.springframework.mock.env.MockEnvironment().withProperty("other.timeout", "soon");
    Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() ->
        org.springframework.boot.context.properties.bind.Binder.get(environment)
            .bind("other.timeout", java.time.Duration.class));

    assertThat(failure).isInstanceOf(
        org.springframework.boot.context.properties.bind.BindException.class);
    assertThat(new LazySessionFailureAnalyzer(environment).analyze(failure)).isNull();
  }
}
