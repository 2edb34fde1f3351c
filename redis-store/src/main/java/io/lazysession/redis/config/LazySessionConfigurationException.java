package io.lazysession.redis.config;

import org.jspecify.annotations.Nullable;

/**
 * A setting that lazysession cannot start with: names the setting, the value when one was given,
 * says why, and what to do instead. Spring Boot prints it through
 * {@link LazySessionFailureAnalyzer}. Immutable.
 */
public class LazySessionConfigurationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String setting;
  private final @Nullable String value;
  private final String reason;
  private final String action;

  /**
   * @param setting the property or attribute to change, e.g. {@code spring.data.redis.url}
   * @param reason what is wrong with it
   * @param action what to do instead
   */
  public LazySessionConfigurationException(String setting, String reason, String action) {
    this(setting, reason, action, null);
  }

  public LazySessionConfigurationException(String setting, String reason, String action,
      @Nullable Throwable cause) {
    this(setting, null, reason, action, cause);
  }

  private LazySessionConfigurationException(String setting, @Nullable String value, String reason,
      String action, @Nullable Throwable cause) {
    super(value == null ? setting + ": " + reason + ". " + action
        : setting + " " + reason + ", was '" + value + "'. " + action, cause);
    this.setting = setting;
    this.value = value;
    this.reason = reason;
    this.action = action;
  }

  /**
   * A value the setting cannot take.
   *
   * @param setting the property or attribute, e.g. {@code lazysession.namespace}
   * @param value the value it was given, as the application wrote it when known
   * @param reason what is wrong with it, said of the setting ("must be 0 or more")
   * @param action what to set instead
   */
  public static LazySessionConfigurationException invalidValue(String setting, Object value,
      String reason, String action) {
    return new LazySessionConfigurationException(setting, String.valueOf(value), reason, action,
        null);
  }

  /** The same failure, said of another name for the setting (an annotation's attribute). */
  LazySessionConfigurationException as(String otherSetting) {
    LazySessionConfigurationException renamed = new LazySessionConfigurationException(otherSetting,
        value, reason.replace(setting, otherSetting), action.replace(setting, otherSetting), this);
    return renamed;
  }

  /** The property or attribute to change. */
  public String setting() {
    return setting;
  }

  /** The value the setting was given, when the failure is about one. */
  public @Nullable String value() {
    return value;
  }

  /** What is wrong. */
  public String reason() {
    return reason;
  }

  /** What to do instead. */
  public String action() {
    return action;
  }
}
