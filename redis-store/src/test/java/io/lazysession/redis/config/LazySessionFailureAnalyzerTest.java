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
}
