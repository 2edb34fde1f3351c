package io.lazysession.redis.config;

import java.util.Locale;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * {@code lazysession.enabled}: true (or unset) matches, false backs off, and any other value stops
 * startup naming the property, rather than backing off silently as a plain property condition
 * would (an application that wrote {@code lazysession.enabled=yes} would lose its sessions on
 * every restart without a word). Stateless.
 */
class EnabledCondition extends SpringBootCondition {
  static final String PROPERTY = LazySessionProperties.PREFIX + ".enabled";

  @Override
  public ConditionOutcome getMatchOutcome(ConditionContext context,
      AnnotatedTypeMetadata metadata) {
    String value = context.getEnvironment().getProperty(PROPERTY);
    String normalized = value == null ? "true" : value.trim().toLowerCase(Locale.ROOT);
    if (normalized.equals("true")) {
      return ConditionOutcome.match(PROPERTY + " is " + (value == null ? "not set" : value));
    }
    if (normalized.equals("false")) {
      return ConditionOutcome.noMatch(PROPERTY + " is " + value);
    }
    throw LazySessionConfigurationException.invalidValue(PROPERTY, value,
        "must be true or false",
        "Set " + PROPERTY + " to true or false (true, the default, stores sessions in Redis; "
            + "false backs off entirely).");
  }
}
