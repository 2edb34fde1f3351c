package io.lazysession.redis.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.util.unit.DataSize;

/**
 * Turns a failure to start because of lazysession's settings into Spring Boot's startup report
 * ("Description: ... Action: ..."), naming the setting, the value it was given (and where, when the
 * environment knows) and the fix:
 *
 * <ul>
 *   <li>a {@link LazySessionConfigurationException} anywhere in the causes (every check of
 *       {@link LazySessionProperties}, {@code spring.session.data.redis.*}, the client);
 *   <li>a {@code lazysession.*} value that cannot be converted at all ({@code touch-interval=2x}),
 *       which Boot alone would report without saying what the value should look like.
 * </ul>
 *
 * Runs before Boot's own analyzers, which would otherwise report the binding failure around the
 * cause generically. Stateless.
 */
class LazySessionFailureAnalyzer implements FailureAnalyzer, Ordered {
  private static final String TITLE = "lazysession (Spring Session on Redis) could not start: ";

  private final @Nullable Environment environment;

  /** Spring Boot instantiates it with the application's environment, when there is one. */
  public LazySessionFailureAnalyzer(@Nullable Environment environment) {
    this.environment = environment;
  }

  LazySessionFailureAnalyzer() {
    this(null);
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  public @Nullable FailureAnalysis analyze(Throwable failure) {
    LazySessionConfigurationException configuration =
        cause(failure, LazySessionConfigurationException.class);
    if (configuration != null) {
      return analyze(failure, configuration);
    }
    BindException bind = cause(failure, BindException.class);
    if (bind != null && bind.getName().toString().startsWith(LazySessionProperties.PREFIX + ".")) {
      return analyze(failure, bind);
    }
    return null;
  }

  private FailureAnalysis analyze(Throwable failure, LazySessionConfigurationException cause) {
    StringBuilder description = new StringBuilder(TITLE);
    if (cause.value() == null) {
      description.append(cause.reason()).append(cause.reason().endsWith("?") ? "" : ".")
          .append("\n\nSetting: ").append(cause.setting());
    } else {
      description.append(cause.setting()).append(' ').append(cause.reason())
          .append(".\n\nSetting: ").append(cause.setting())
          .append("\nValue: ").append(valueOf(cause.setting(), cause.value()));
    }
    if (cause.getCause() != null && (cause.getCause().getMessage() == null
        || !cause.getCause().getMessage().contains(cause.reason()))) {
      description.append("\nCause: ").append(cause.getCause().getMessage());
    }
    return new FailureAnalysis(description.toString(), cause.action(), failure);
  }

  private FailureAnalysis analyze(Throwable failure, BindException cause) {
    String name = cause.getName().toString();
    Class<?> type = cause.getTarget().getType().resolve(Object.class);
    String expected = expected(type);
    ConfigurationProperty property = cause.getProperty();
    String value = property == null ? valueOf(name, null)
        : shown(property.getValue(), property.getOrigin());
    Throwable root = cause;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    String description = TITLE + name + " must be " + expected + ".\n\nSetting: " + name
        + "\nValue: " + value + "\nCause: " + root.getMessage();
    return new FailureAnalysis(description, "Set " + name + " to " + expected + ". Or remove "
        + name + " for the default.", failure);
  }

  /** What a value of {@code type} looks like, as a property. */
  static String expected(Class<?> type) {
    if (type == Duration.class) {
      return "a duration with a unit (250ms, 30s, 5m, 2h) or in ISO-8601 (PT5M); a bare number "
          + "is in seconds";
    }
    if (type == DataSize.class) {
      return "a size with a unit (512B, 64KB, 16MB); a bare number is in bytes";
    }
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      return "a whole number";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (type.isEnum()) {
      return "one of " + Arrays.stream(type.getEnumConstants())
          .map(constant -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
          .collect(Collectors.joining(", "));
    }
    return "a valid " + type.getSimpleName();
  }

  /** The value as the application wrote it, and where, when the environment holds it. */
  private String valueOf(String setting, @Nullable String fallback) {
    if (environment != null && ConfigurationPropertyName.isValid(setting)) {
      ConfigurationPropertyName name = ConfigurationPropertyName.of(setting);
      for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
        ConfigurationProperty property = source.getConfigurationProperty(name);
        if (property != null) {
          return shown(property.getValue(), property.getOrigin());
        }
      }
    }
    return fallback == null ? "(not known)" : fallback;
  }

  private static String shown(@Nullable Object value, @Nullable Object origin) {
    return value + (origin == null ? "" : " (from " + origin + ")");
  }

  private static <T extends Throwable> @Nullable T cause(Throwable failure, Class<T> type) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (type.isInstance(cause)) {
        return type.cast(cause);
      }
    }
    return null;
  }
}
