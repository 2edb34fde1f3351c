package io.lazysession.redis.config;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link LazySessionConfigurationException} into Spring Boot's startup report
 * ("Description: ... Action: ..."), naming the setting to change. Stateless.
 */
class LazySessionFailureAnalyzer extends AbstractFailureAnalyzer<LazySessionConfigurationException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure,
      LazySessionConfigurationException cause) {
    String description = "lazysession (Spring Session on Redis) could not start: " + cause.reason()
        + ".\n\nSetting: " + cause.setting()
        + (cause.getCause() == null ? "" : "\nCause: " + cause.getCause().getMessage());
    return new FailureAnalysis(description, cause.action(), cause);
  }
}
