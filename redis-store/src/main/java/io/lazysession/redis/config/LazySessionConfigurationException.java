package io.lazysession.redis.config;

import org.jspecify.annotations.Nullable;

/**
 * A setting that lazysession cannot start with: names the setting, says why, and what to do
 * instead. Spring Boot prints it through {@link LazySessionFailureAnalyzer}. Immutable.
 */
public class LazySessionConfigurationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String setting;
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
    super(setting + ": " + reason + ". " + action, cause);
    this.setting = setting;
    this.reason = reason;
    this.action = action;
  }

  /** The property or attribute to change. */
  public String setting() {
    return setting;
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
