package io.lazysession.redis.config;

import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.session.FlushMode;

/**
 * Spring Boot's {@code spring.session.data.redis.*} properties, which an application moving from
 * Spring Session Data Redis may still set. Each is honoured or refused at startup, never ignored:
 *
 * <ul>
 *   <li>{@code namespace}: the key prefix, when {@code lazysession.namespace} is not set (both set
 *       and different: refused);
 *   <li>{@code flush-mode}: {@code on-save} (the default) writes a request's changes in one round
 *       trip when it ends; {@code immediate} saves each change as it is made
 *       ({@link #flushMode(Binder)}, applied to the repository's builder);
 *   <li>{@code save-mode}: {@code on-set-attribute} and {@code on-get-attribute} are both covered
 *       (lazysession writes every attribute set, and every attribute read whose bytes changed);
 *       {@code always} is refused (it would rewrite attributes nobody read);
 *   <li>{@code cleanup-cron}: refused, {@code lazysession.cleanup-interval} says how often to sweep;
 *   <li>{@code repository-type} ({@code default}, {@code indexed}) and {@code configure-action}:
 *       accepted; lazysession always keeps the principal index and publishes session events, and
 *       never needs Redis configuration (no keyspace notifications).
 * </ul>
 *
 * Stateless.
 */
final class SpringSessionRedisProperties {
  static final String PREFIX = "spring.session.data.redis";

  private SpringSessionRedisProperties() {}

  /**
   * Checks the properties and returns the namespace to use.
   *
   * @param lazyNamespace {@code lazysession.namespace} as bound (default included)
   * @throws LazySessionConfigurationException naming the property and what to use instead
   */
  static String check(Binder binder, String lazyNamespace) {
    flushMode(binder);
    String saveMode = normalized(binder, "save-mode");
    if (saveMode != null && !saveMode.equals("on-set-attribute")
        && !saveMode.equals("on-get-attribute")) {
      if (saveMode.equals("always")) {
        throw new LazySessionConfigurationException(PREFIX + ".save-mode",
            "save-mode 'always' (rewrite every attribute on every save) is not supported: "
                + "lazysession writes every attribute that was set, and every attribute that was "
                + "read and changed in place, and never rewrites attributes nobody read",
            "Remove " + PREFIX + ".save-mode (on-set-attribute and on-get-attribute are both "
                + "covered).");
      }
      throw new LazySessionConfigurationException(PREFIX + ".save-mode",
          "unknown save mode '" + saveMode + "'",
          "Use on-set-attribute or on-get-attribute, or remove the property.");
    }
    if (binder.bind(PREFIX + ".cleanup-cron", String.class).isBound()) {
      throw new LazySessionConfigurationException(PREFIX + ".cleanup-cron",
          "lazysession sweeps expired sessions at a fixed interval, not on a cron schedule",
          "Remove " + PREFIX + ".cleanup-cron and set lazysession.cleanup-interval (e.g. 30s).");
    }
    String namespace = binder.bind(PREFIX + ".namespace", String.class).orElse(null);
    if (namespace == null || namespace.isBlank()) {
      return lazyNamespace;
    }
    boolean lazySet = binder.bind(LazySessionProperties.PREFIX + ".namespace", String.class)
        .isBound();
    if (lazySet && !lazyNamespace.equals(namespace)) {
      throw new LazySessionConfigurationException(PREFIX + ".namespace",
          "it is '" + namespace + "' while lazysession.namespace is '" + lazyNamespace + "'",
          "Set only one of them (lazysession.namespace is lazysession's own).");
    }
    return namespace;
  }

  /**
   * {@code spring.session.data.redis.flush-mode}: {@code on-save} (the default) or {@code immediate}.
   *
   * @throws LazySessionConfigurationException for any other value
   */
  static FlushMode flushMode(Binder binder) {
    String flushMode = normalized(binder, "flush-mode");
    if (flushMode == null || flushMode.equals("on-save")) {
      return FlushMode.ON_SAVE;
    }
    if (flushMode.equals("immediate")) {
      return FlushMode.IMMEDIATE;
    }
    throw new LazySessionConfigurationException(PREFIX + ".flush-mode",
        "unknown flush mode '" + flushMode + "'", "Use on-save or immediate, or remove the property.");
  }

  private static @Nullable String normalized(Binder binder, String name) {
    return binder.bind(PREFIX + "." + name, String.class)
        .map(value -> value.trim().toLowerCase(Locale.ROOT).replace('_', '-'))
        .orElse(null);
  }
}
