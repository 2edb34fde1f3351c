package io.lazysession.redis.config;

import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * {@code lazysession.enabled}: true (or unset) matches, false backs off, and any other value stops
 * startup naming the property, rather than backing off silently as a plain property condition
 * would (an application that wrote {@code lazysession.enabled=yes} would lose its sessions on
 * every restart without a word). In an application built for Spring AOT the outcome is fixed when
 * it is built, and {@link AotBuildTimeCheck} stops startup when the value it runs with differs.
 * Stateless.
 */
class EnabledCondition extends SpringBootCondition {
  static final String PROPERTY = LazySessionProperties.PREFIX + ".enabled";

  @Override
  public ConditionOutcome getMatchOutcome(ConditionContext context,
      AnnotatedTypeMetadata metadata) {
    String value = context.getEnvironment().getProperty(PROPERTY);
    return enabled(value) ? ConditionOutcome.match(PROPERTY + " is " + describe(value))
        : ConditionOutcome.noMatch(PROPERTY + " is " + value);
  }

  /**
   * Whether {@code value} of {@value #PROPERTY} turns lazysession on (null: not set, on).
   *
   * @throws LazySessionConfigurationException when it is neither true nor false
   */
  static boolean enabled(@Nullable String value) {
    String normalized = value == null ? "true" : value.trim().toLowerCase(Locale.ROOT);
    if (normalized.equals("true")) {
      return true;
    }
    if (normalized.equals("false")) {
      return false;
    }
    throw LazySessionConfigurationException.invalidValue(PROPERTY, value,
        "must be true or false",
        "Set " + PROPERTY + " to true or false (true, the default, stores sessions in Redis; "
            + "false backs off entirely).");
  }

  /** {@code value} as a report says it. */
  static String describe(@Nullable String value) {
    return value == null ? "not set" : value;
  }
}
