package io.lazysession.redis.config;

import io.lazysession.redis.DecodeFailurePolicy;
import io.lazysession.redis.EncryptionKey;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.SessionLimit;
import io.lazysession.serializer.codec.CodecKind;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.util.unit.DataSize;

/**
 * The checks {@link LazySessionProperties} runs when it is bound. Each failure is a
 * {@link LazySessionConfigurationException} that names the property, the value and the fix, which
 * Spring Boot prints as a failure analysis ({@link LazySessionFailureAnalyzer}). Stateless.
 */
final class PropertyChecks {
  private static final String PREFIX = LazySessionProperties.PREFIX + ".";
  /** A binary class name: Java identifiers joined by dots ({@code $} is an identifier character). */
  private static final Pattern CLASS_NAME =
      Pattern.compile("\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*"
          + "(\\.\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*)*");

  private PropertyChecks() {}

  /**
   * A value {@code lazysession.<name>} cannot take.
   *
   * @param name the property below {@code lazysession.}, e.g. {@code touch-interval}
   * @param reason what is wrong, e.g. "must be 0 or more"
   * @param action the fix, a sentence
   */
  static LazySessionConfigurationException invalid(String name, Object value, String reason,
      String action) {
    Object shown = value instanceof Duration duration ? shown(duration)
        : value instanceof DataSize size ? shown(size) : value;
    return LazySessionConfigurationException.invalidValue(PREFIX + name, shown, reason, action);
  }

  /**
   * The compression in force: {@code lazysession.compression} or its YAML-friendly twin
   * {@code lazysession.compression.algorithm}; both set, they must agree.
   */
  static String compression(@Nullable String compression, @Nullable String algorithm) {
    if (compression != null && algorithm != null && !normalized(compression)
        .equals(normalized(algorithm))) {
      throw LazySessionConfigurationException.invalidValue(PREFIX + "compression.algorithm",
          algorithm, "is set as well as " + PREFIX + "compression (" + compression
              + "), and they differ",
          "Keep one of them: " + PREFIX + "compression in .properties files, "
              + PREFIX + "compression.algorithm when YAML nests compression.level under "
              + "compression.");
    }
    String value = algorithm != null ? algorithm : compression;
    if (value == null) {
      return LazySessionProperties.DEFAULT_COMPRESSION;
    }
    String name = algorithm != null ? "compression.algorithm" : "compression";
    String kind = normalized(value);
    if (!kind.equals("zstd") && !kind.equals("none")) {
      throw invalid(name, value, "is not a compression lazysession knows",
          "Set " + PREFIX + name + " to zstd (the default) or none.");
    }
    return kind;
  }

  /** Whether a checked compression value turns compression on. */
  static boolean compressionEnabled(String compression) {
    return normalized(compression).equals("zstd");
  }

  static void codec(String codec) {
    try {
      CodecKind.fromProperty(codec);
    } catch (IllegalArgumentException e) {
      throw invalid("codec", codec, "is not a codec lazysession knows",
          "Set " + PREFIX + "codec to kryo (the default) or jdk.");
    }
  }

  static void allowListMode(String mode) {
    try {
      io.lazysession.serializer.ClassAllowList.Mode.fromProperty(mode);
    } catch (IllegalArgumentException e) {
      throw invalid("allow-list-mode", mode, "is not an allow-list mode",
          "Set " + PREFIX + "allow-list-mode to enforce (the default) or audit (decode every "
              + "class and log each one outside the list once).");
    }
  }

  static void onDecodeFailure(String policy) {
    try {
      DecodeFailurePolicy.fromProperty(policy);
    } catch (IllegalArgumentException e) {
      throw invalid("on-decode-failure", policy, "is not a decode failure policy",
          "Set " + PREFIX + "on-decode-failure to drop-attribute (the default), "
              + "invalidate-session or fail.");
    }
  }

  /**
   * Fails naming both properties when {@code lazysession.anonymous-timeout} is set and not shorter
   * than the session timeout (it would change nothing).
   */
  static void anonymousTimeoutBelow(@Nullable Duration anonymousTimeout, Duration sessionTimeout,
      String sessionTimeoutName) {
    if (anonymousTimeout != null && !sessionTimeout.isNegative()
        && anonymousTimeout.compareTo(sessionTimeout) >= 0) {
      throw PropertyChecks.invalid("anonymous-timeout", anonymousTimeout,
          "must be shorter than the session timeout (" + sessionTimeoutName + ", "
              + PropertyChecks.shown(sessionTimeout) + "), or it changes nothing",
          "Set " + PREFIX + "anonymous-timeout below " + PropertyChecks.shown(sessionTimeout)
              + " (e.g. 10m), or remove it.");
    }
  }

  /**
   * {@code lazysession.max-sessions-per-principal} with {@code max-sessions-action}; null when no
   * limit is set.
   */
  static @Nullable SessionLimit sessionLimit(@Nullable Integer max, String action) {
    SessionLimit.Action parsed = switch (normalized(action)) {
      case "evict-oldest" -> SessionLimit.Action.EVICT_OLDEST;
      case "refuse-new" -> SessionLimit.Action.REFUSE_NEW;
      default -> throw invalid("max-sessions-action", action, "is not a limit action",
          "Set " + PREFIX + "max-sessions-action to evict-oldest (the default) or refuse-new.");
    };
    if (max == null) {
      return null;
    }
    if (max < 1) {
      throw invalid("max-sessions-per-principal", max, "must be at least 1",
          "Set it to 1 or more (1: one session per user), or remove it for no limit.");
    }
    return new SessionLimit(max, parsed);
  }

  /** {@code lazysession.migrate-from}, normalized; null when blank (no take-over). */
  static @Nullable String migrateFrom(@Nullable String migrateFrom, String supported) {
    if (migrateFrom == null || migrateFrom.isBlank()) {
      return null;
    }
    String normalized = normalized(migrateFrom);
    if (!normalized.equals(supported)) {
      throw invalid("migrate-from", migrateFrom, "is not a store lazysession can take over from",
          "Set " + PREFIX + "migrate-from=" + supported + " (Spring Session Data Redis 4.x), or "
              + "remove it: no take-over.");
    }
    return normalized;
  }

  static void maxValueBytes(DataSize maxValueBytes) {
    if (maxValueBytes.toBytes() < 1024 || maxValueBytes.toBytes() > Integer.MAX_VALUE) {
      throw invalid("max-value-bytes", maxValueBytes, "must be at least 1KB and below 2GB",
          "Set " + PREFIX + "max-value-bytes between 1KB and 2GB, or remove it for the "
              + "default (16MB).");
    }
  }

  /** @param range the accepted values and the default, e.g. "from 1 to 22; 3 is the default" */
  static void between(String name, int value, int min, int max, String range) {
    if (value < min || value > max) {
      throw invalid(name, value, max == Integer.MAX_VALUE ? "must be " + min + " or more"
          : "must be between " + min + " and " + max, "Set " + PREFIX + name + " " + range + ".");
    }
  }

  /** @param example a duration to suggest, e.g. "5m (the default)" */
  static void nonNegative(String name, Duration value, String example) {
    if (value.isNegative()) {
      throw invalid(name, value, "must be 0 or more",
          "Set " + PREFIX + name + " to a duration such as " + example + ".");
    }
  }

  /** @param example a duration to suggest, e.g. "500ms (the default)" */
  static void positive(String name, Duration value, String example) {
    if (value.isNegative() || value.isZero()) {
      throw invalid(name, value, "must be longer than 0",
          "Set " + PREFIX + name + " to a duration such as " + example + ".");
    }
  }

  /** As {@link #wholeSeconds}, for a setting that is off when unset. */
  static void wholeSecondsIfSet(String name, @Nullable Duration value, String example) {
    if (value != null) {
      wholeSeconds(name, value, example + ", or remove it for none (the default)");
    }
  }

  /** @param example a duration to suggest, e.g. "8h, or remove it for none (the default)" */
  static void wholeSeconds(String name, Duration value, String example) {
    if (value.compareTo(Duration.ofSeconds(1)) < 0 || value.getNano() != 0) {
      throw invalid(name, value, "must be whole seconds, 1s or more",
          "Set " + PREFIX + name + " to a duration such as " + example + ".");
    }
  }

  /**
   * {@code id-renewal-interval}: whole seconds when set; {@code id-renewal-grace}: zero or more,
   * and shorter than the interval.
   */
  static void idRenewal(@Nullable Duration interval, Duration grace) {
    if (interval != null) {
      wholeSeconds("id-renewal-interval", interval, "15m, or remove it for none (the default)");
    }
    if (grace.isNegative() || (interval != null && grace.compareTo(interval) >= 0)) {
      throw invalid("id-renewal-grace", grace, interval == null ? "must not be negative"
              : "must be shorter than " + PREFIX + "id-renewal-interval (" + shown(interval)
                  + "), or the old id would outlive the new one",
          "Set " + PREFIX + "id-renewal-grace to a few seconds, such as 10s (the default).");
    }
  }

  /** A duration as a property would say it: {@code 2h}, {@code 90s}, {@code 250ms}. */
  static String shown(Duration duration) {
    if (duration.isZero()) {
      return "0s";
    }
    if (duration.isNegative()) {
      return "-" + shown(duration.negated());
    }
    if (duration.getNano() % 1_000_000 != 0) {
      return duration.toString();
    }
    long millis = duration.toMillis();
    if (millis % 1000 != 0) {
      return millis + "ms";
    }
    long seconds = millis / 1000;
    if (seconds % 3600 == 0) {
      return seconds / 3600 + "h";
    }
    return seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
  }

  /** A size as a property would say it: {@code 64MB}, {@code 1KB}, {@code 1000B}. */
  static String shown(DataSize size) {
    long bytes = size.toBytes();
    if (bytes != 0 && bytes % (1024 * 1024) == 0) {
      return bytes / (1024 * 1024) + "MB";
    }
    return bytes != 0 && bytes % 1024 == 0 ? bytes / 1024 + "KB" : bytes + "B";
  }

  private static String normalized(String value) {
    return value.trim().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** {@code lazysession.session-budget.*}: each more than 0, the warning below the limit. */
  static void budget(@Nullable DataSize warnBytes, @Nullable DataSize maxBytes) {
    if (warnBytes != null && warnBytes.toBytes() <= 0) {
      throw invalid("session-budget.warn-bytes", warnBytes, "must be more than 0",
          "Set " + PREFIX + "session-budget.warn-bytes to a size such as 16KB, or remove it "
              + "for none (the default).");
    }
    if (maxBytes != null && maxBytes.toBytes() <= 0) {
      throw invalid("session-budget.max-bytes", maxBytes, "must be more than 0",
          "Set " + PREFIX + "session-budget.max-bytes to a size such as 64KB, or remove it "
              + "for none (the default).");
    }
    if (warnBytes != null && maxBytes != null && warnBytes.toBytes() >= maxBytes.toBytes()) {
      throw invalid("session-budget.warn-bytes", warnBytes, "must be below " + PREFIX
              + "session-budget.max-bytes (" + shown(maxBytes) + "), or it never warns: the save "
              + "is refused first",
          "Set " + PREFIX + "session-budget.warn-bytes below " + shown(maxBytes)
              + " (e.g. half of it), or remove it.");
    }
  }

  /**
   * {@code lazysession.encryption.*}: keys that parse (the failure never shows a key: the parser's
   * message names no secret), and no writing of what this node would refuse to read.
   */
  static void encryption(@Nullable String keys, boolean acceptUnprotected,
      boolean writeUnprotected) {
    if (keys != null) {
      try {
        EncryptionKey.parseList(keys);
      } catch (IllegalArgumentException e) {
        throw new LazySessionConfigurationException(PREFIX + "encryption.keys", e.getMessage(),
            "Set " + PREFIX + "encryption.keys to comma-separated keyId:base64 entries of 32 "
                + "random bytes each, ids distinct (make one with openssl rand -base64 32), or "
                + "remove it to turn protection off.");
      }
    }
    if (writeUnprotected && !acceptUnprotected) {
      throw new LazySessionConfigurationException(PREFIX + "encryption.write-unprotected",
          PREFIX + "encryption.write-unprotected=true needs " + PREFIX
              + "encryption.accept-unprotected=true: a node would refuse what it writes",
          "Set " + PREFIX + "encryption.accept-unprotected=true for the rollout, or remove "
              + PREFIX + "encryption.write-unprotected.");
    }
  }

  /** A list of full class names ({@code lazysession.immutable-types}), unmodifiable. */
  static List<String> classNames(String name, List<String> classNames) {
    for (String className : classNames) {
      if (!CLASS_NAME.matcher(className).matches()) {
        throw invalid(name, className, "must hold full class names",
            "List each class by its full name, such as com.example.shop.Money (a nested class with $: "
                + "com.example.shop.Cart$Line).");
      }
    }
    return List.copyOf(classNames);
  }

  /** {@code lazysession.near-cache.max-bytes} below this JVM's maximum heap, which it would fill. */
  static void nearCacheBelowHeap(DataSize size) {
    long heap = Runtime.getRuntime().maxMemory();
    // The default (64MB) is a bound the cache fills only as sessions are read: never refused, so
    // that the defaults start in a small heap (a 256MB container gets 64MB by default).
    if (heap != Long.MAX_VALUE && size.toBytes() > LazyRedisSessionRepository.DEFAULT_NEAR_CACHE_MAX_BYTES
        && size.toBytes() >= heap) {
      throw invalid("near-cache.max-bytes", size, "must be below this JVM's maximum heap ("
              + shown(DataSize.ofMegabytes(heap >> 20)) + "): a near cache that large would end in "
              + "an OutOfMemoryError",
          "Set it well below the heap, such as a quarter of it, or 0 for no near cache.");
    }
  }
}
