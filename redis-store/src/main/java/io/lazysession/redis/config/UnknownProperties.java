package io.lazysession.redis.config;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;

/**
 * Properties under {@code lazysession.} that lazysession does not know (a typo such as {@code
 * lazysession.compresion} or {@code lazysession.encryption.key} would otherwise leave a setting
 * silently at its default). Stateless.
 *
 * <p>What is known is what binding {@link LazySessionProperties} uses, found as Spring Boot finds
 * unbound properties with {@code ignoreUnknownFields = false} ({@link NoUnboundElementsBindHandler}:
 * every relaxed form, indexed list elements and environment variables bind or not as the real
 * binding would), plus the properties read outside that binding ({@value EnabledCondition#PROPERTY}
 * and {@value #IGNORE}). The nearest valid name offered comes from the configuration metadata the
 * build writes from the same binding ({@code META-INF/spring-configuration-metadata.json}).
 *
 * <p>As in Spring Boot, the system environment and JVM system properties hold much that is not
 * meant for the application (a {@code LAZYSESSION_*} variable of a script): an unknown name there is
 * logged, and only when a valid name is near it; anywhere else it stops startup, unless {@value
 * #IGNORE} is true (a configuration shared by two versions in a rolling deploy or a rollback), which
 * logs each one instead.
 */
final class UnknownProperties {
  static final String IGNORE = LazySessionProperties.PREFIX + ".ignore-unknown-properties";
  private static final String METADATA = "META-INF/spring-configuration-metadata.json";
  private static final Set<String> ENVIRONMENT_SOURCES = Set.of(
      StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
      StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
  private static final Logger log = LoggerFactory.getLogger(UnknownProperties.class);

  private UnknownProperties() {}

  /**
   * Fails naming each unknown {@code lazysession.*} property of the application's configuration
   * and the nearest valid one; logs those of the environment that look like typos.
   *
   * @throws LazySessionConfigurationException when there is one, and {@value #IGNORE} is not true
   */
  static void check(Environment environment) {
    Binder binder = Binder.get(environment);
    boolean ignore = binder.bind(IGNORE, Boolean.class).orElse(false);
    List<ConfigurationProperty> unknown = unknown(binder);
    if (unknown.isEmpty()) {
      return;
    }
    List<String> names = validNames();
    List<String> refused = new ArrayList<>();
    for (ConfigurationProperty property : unknown) {
      boolean environmentVariable = fromEnvironment(property);
      String nearest = nearest(property.getName(), names, !environmentVariable);
      String said = said(property, nearest);
      if (environmentVariable) {
        if (nearest != null) {
          log.warn("lazysession ignores {}", said);
        }
      } else if (ignore) {
        log.warn("lazysession ignores {} ({}=true)", said, IGNORE);
      } else {
        refused.add(said);
      }
    }
    if (!refused.isEmpty()) {
      ConfigurationProperty first = unknown.stream().filter(p -> !fromEnvironment(p)).findFirst()
          .orElseThrow();
      String nearest = nearest(first.getName(), names, true);
      throw new LazySessionConfigurationException(first.getName().toString(),
          String.join("; ", refused),
          (nearest == null ? "Remove it" : "Rename it to " + nearest) + " (docs/user-guide.md "
              + "lists every property). If a newer version of lazysession knows it (a "
              + "configuration shared across versions in a rolling deploy), set " + IGNORE
              + "=true to log unknown properties instead of stopping.");
    }
  }

  /** The {@code lazysession.*} properties of every source that binding does not use. */
  static List<ConfigurationProperty> unknown(Binder binder) {
    try {
      binder.bind(LazySessionProperties.PREFIX, Bindable.of(LazySessionProperties.class),
          new NoUnboundElementsBindHandler(BindHandler.DEFAULT, source -> true));
      return List.of();
    } catch (BindException e) {
      if (!(e.getCause() instanceof UnboundConfigurationPropertiesException unbound)) {
        throw e;
      }
      return unbound.getUnboundProperties().stream()
          .filter(property -> !isReadElsewhere(property.getName()))
          .sorted().toList();
    }
  }

  private static boolean isReadElsewhere(ConfigurationPropertyName name) {
    return name.equals(ConfigurationPropertyName.of(EnabledCondition.PROPERTY))
        || name.equals(ConfigurationPropertyName.of(IGNORE));
  }

  private static boolean fromEnvironment(ConfigurationProperty property) {
    ConfigurationPropertySource source = property.getSource();
    return source != null && source.getUnderlyingSource() instanceof PropertySource<?> underlying
        && ENVIRONMENT_SOURCES.contains(underlying.getName());
  }

  /** "name (from origin) is not a lazysession property; did you mean ...?" */
  private static String said(ConfigurationProperty property, @Nullable String nearest) {
    return property.getName() + (property.getOrigin() == null ? ""
        : " (from " + property.getOrigin() + ")") + " is not a lazysession property"
        + (nearest == null ? "" : "; did you mean " + nearest + "?");
  }

  /**
   * The valid name nearest to {@code name} in spelling (case, dashes, dots and indexes aside), or
   * else, with {@code byLastWord}, one that ends with the same word; null when none is near.
   */
  static @Nullable String nearest(ConfigurationPropertyName name, List<String> valid,
      boolean byLastWord) {
    String wanted = uniform(name.toString());
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : valid) {
      int distance = distance(wanted, uniform(candidate));
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    int suffix = wanted.length() - LazySessionProperties.PREFIX.length();
    if (best != null && bestDistance <= Math.max(2, suffix / 3)) {
      return best;
    }
    if (!byLastWord) {
      return null;
    }
    String last = uniform(name.getLastElement(ConfigurationPropertyName.Form.UNIFORM));
    return valid.stream().filter(candidate -> uniform(ConfigurationPropertyName.of(candidate)
        .getLastElement(ConfigurationPropertyName.Form.UNIFORM)).equals(last))
        .findFirst().orElse(null);
  }

  private static String uniform(String name) {
    return name.toLowerCase(Locale.ROOT).replaceAll("\\[[^]]*]", "").replaceAll("[^a-z0-9]", "");
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  /** Every {@code lazysession.*} name of the configuration metadata on the class path. */
  @SuppressWarnings("unchecked")
  static List<String> validNames() {
    Set<String> names = new TreeSet<>();
    try {
      Enumeration<URL> files = UnknownProperties.class.getClassLoader().getResources(METADATA);
      while (files.hasMoreElements()) {
        try (InputStream in = files.nextElement().openStream()) {
          Map<String, Object> json = JsonParserFactory.getJsonParser()
              .parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8));
          Object properties = json.get("properties");
          if (properties instanceof List<?> list) {
            for (Object property : list) {
              Object name = ((Map<String, Object>) property).get("name");
              if (name instanceof String text
                  && text.startsWith(LazySessionProperties.PREFIX + ".")) {
                names.add(text);
              }
            }
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      // Only the suggestions are lost: the check itself does not need the metadata.
      log.debug("lazysession could not read the configuration metadata", e);
    }
    return List.copyOf(names);
  }
}
