package io.lazysession.testing;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The harness settings: each is read from a system property, else from the environment variable of the
 * same name in upper case with dots and dashes as underscores (e.g. {@code LAZYSESSION_TEST_REDIS_URL}).
 *
 * <ul>
 *   <li>{@code lazysession.test.redis.mode}: {@code auto} (default: url if given, else Testcontainers
 *       when a Docker engine answers, else embedded), {@code url}, {@code container}, {@code embedded}
 *   <li>{@code lazysession.test.redis.url}: an existing server, e.g. {@code redis://127.0.0.1:6379}
 *   <li>{@code lazysession.test.redis.image}: the container image (default {@code redis:7.4-alpine})
 *   <li>{@code lazysession.test.redis.network}: {@code bridge} (default: port mapping, as on Docker
 *       Desktop) or {@code host} (each container binds its own port on 127.0.0.1)
 * </ul>
 */
record HarnessConfig(String mode, @Nullable String url, String image, boolean hostNetwork) {
  static final String DEFAULT_IMAGE = "redis:7.4-alpine";

  static HarnessConfig load() {
    String mode = setting("lazysession.test.redis.mode", "auto").toLowerCase(Locale.ROOT);
    String url = setting("lazysession.test.redis.url", "");
    String image = setting("lazysession.test.redis.image", DEFAULT_IMAGE);
    String network = setting("lazysession.test.redis.network", "bridge").toLowerCase(Locale.ROOT);
    if (!network.equals("bridge") && !network.equals("host")) {
      throw new IllegalStateException(
          "lazysession.test.redis.network must be 'bridge' or 'host', was '" + network + "'");
    }
    if (!mode.matches("auto|url|container|embedded")) {
      throw new IllegalStateException("lazysession.test.redis.mode must be one of auto, url, "
          + "container, embedded; was '" + mode + "'");
    }
    return new HarnessConfig(mode, url.isBlank() ? null : url, image, network.equals("host"));
  }

  private static String setting(String name, String defaultValue) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      value = System.getenv(name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
    }
    return value == null || value.isBlank() ? defaultValue : value.trim();
  }
}
