package io.lazysession.redis.config;

import io.lazysession.redis.EncryptionKeySource;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.LazyRedisSessionRepositoryBuilder;
import io.lazysession.redis.SessionEncryption;
import io.lazysession.redis.SpringSessionDataRedis;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.compress.Compression;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.boot.web.context.reactive.ConfigurableReactiveWebEnvironment;
import org.springframework.core.env.Environment;

/**
 * The one place a repository is built from settings, for both the Spring Boot auto-configuration
 * and {@link EnableLazyHttpSession}: they differ only in where the settings and the client come
 * from (client building is separate: {@link RedisConnectionSettings}, {@link ConnectionDetailsClients},
 * or the application's own bean). Stateless.
 */
final class RepositoryFactory {
  static final Duration DEFAULT_TIMEOUT = LazyRedisSessionRepository.DEFAULT_MAX_INACTIVE_INTERVAL;
  static final String SESSION_TIMEOUT_NAME =
      "spring.session.timeout or server.servlet.session.timeout";

  static final String REQUIRE_REDIS_AT_STARTUP =
      LazySessionProperties.PREFIX + ".require-redis-at-startup";
  static final String ENCRYPTION_KEYS = LazySessionProperties.PREFIX + ".encryption.keys";
  private static final String ACCEPT_UNPROTECTED =
      LazySessionProperties.PREFIX + ".encryption.accept-unprotected";
  /** How the builder's refusal of a take-over that protection forbids starts. */
  private static final String MIGRATION_REFUSED =
      "taking sessions over from Spring Session Data Redis";
  private static final Logger log = LoggerFactory.getLogger(RepositoryFactory.class);

  private RepositoryFactory() {}

  /**
   * Whether Redis answered with an error (a refusal) rather than not answering. Through Sentinels,
   * the first connection of the clients built here carries the Sentinels' own error answers
   * ({@link SentinelRefusals}).
   */
  static boolean isRefusal(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof RedisCommandExecutionException) {
        return true;
      }
      for (Throwable suppressed : cause.getSuppressed()) {
        if (isRefusal(suppressed)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * {@code spring.session.timeout}, else the server's ({@link #serverSessionTimeout}), else 30 minutes. Bare
   * numbers are seconds, as Spring Boot declares both properties ({@code @DurationUnit(SECONDS)}).
   */
  static Duration sessionTimeout(Environment environment) {
    Binder binder = Binder.get(environment);
    return binder.bind("spring.session.timeout", DurationProperties.SECONDS)
        .orElseGet(() -> binder.bind(serverSessionTimeout(environment),
            DurationProperties.SECONDS).orElse(DEFAULT_TIMEOUT));
  }

  /**
   * The server's own session timeout that Spring Boot falls back to: {@code
   * server.reactive.session.timeout} in a reactive web application (as Boot's session
   * configuration reads it for WebFlux), else {@code server.servlet.session.timeout}.
   */
  private static String serverSessionTimeout(Environment environment) {
    return environment instanceof ConfigurableReactiveWebEnvironment
        ? "server.reactive.session.timeout" : "server.servlet.session.timeout";
  }

  /** Where {@link #sessionTimeout} comes from, for error messages. */
  static String sessionTimeoutName(Environment environment) {
    return "spring.session.timeout or " + serverSessionTimeout(environment);
  }

  /**
   * What the repository is built from.
   *
   * @param client the store's client: a {@link RedisClient} or {@link RedisClusterClient}
   * @param target where it connects, when the configuration built it (null: an application's bean)
   * @param clientName the setting that provided the client, for the error when it is not usable
   * @param properties {@code lazysession.*} (or the annotation's attributes, bound the same way)
   * @param namespace the key prefix, after {@code spring.session.data.redis.namespace} was applied
   * @param springSessionNamespace {@code spring.session.data.redis.namespace} when set: the default
   *     prefix of the sessions {@code lazysession.migrate-from} takes over
   * @param sessionTimeout the default max inactive interval
   * @param sessionTimeoutName the setting that holds it, for error messages
   */
  record Request(AbstractRedisClient client, @Nullable RedisTarget target, String clientName,
      AttributeSerializer serializer, LazySessionProperties properties, String namespace,
      @Nullable String springSessionNamespace, Duration sessionTimeout, String sessionTimeoutName, ApplicationEventPublisher events,
      List<LazySessionRepositoryCustomizer> customizers) {}

  /**
   * Where the sessions to take over live: {@code lazysession.migrate-from-namespace}, else
   * {@code spring.session.data.redis.namespace}, else Spring Session's default.
   */
  static String migrateFromNamespace(LazySessionProperties properties,
      @Nullable String springSessionNamespace) {
    if (properties.migrateFromNamespace() != null) {
      return properties.migrateFromNamespace();
    }
    return springSessionNamespace != null ? springSessionNamespace
        : SpringSessionDataRedis.DEFAULT_NAMESPACE;
  }

  /**
   * The customizer that turns protection on with the keys of an {@link EncryptionKeySource} bean
   * and the {@code lazysession.encryption.*} flags; null without such a bean.
   *
   * @throws LazySessionConfigurationException when {@code lazysession.encryption.keys} is set too
   */
  static @Nullable LazySessionRepositoryCustomizer keySource(LazySessionProperties properties,
      @Nullable EncryptionKeySource source) {
    if (source == null) {
      return null;
    }
    if (properties.encryption().keys() != null) {
      throw new LazySessionConfigurationException(LazySessionProperties.PREFIX + ".encryption.keys",
          "the keys are set both by this property and by an EncryptionKeySource bean",
          "Keep one of them: remove the property, or the bean.");
    }
    SessionEncryption encryption = properties.encryption().settings(source);
    return builder -> builder.encryption(encryption);
  }

  static LazyRedisSessionRepository build(Request request) {
    LazySessionProperties properties = request.properties();
    properties.checkTouchInterval(request.sessionTimeout(), request.sessionTimeoutName());
    PropertyChecks.anonymousTimeoutBelow(properties.anonymousTimeout(), request.sessionTimeout(),
        request.sessionTimeoutName());
    if (request.target() != null) {
      properties.checkDurabilityTimeout(request.target().commandTimeout(),
          request.target().commandTimeoutName());
    }
    LazyRedisSessionRepositoryBuilder builder;
    if (request.client() instanceof RedisClusterClient cluster) {
      builder = LazyRedisSessionRepository.builder(cluster);
    } else if (request.client() instanceof RedisClient standalone) {
      builder = LazyRedisSessionRepository.builder(standalone);
    } else {
      throw new LazySessionConfigurationException(request.clientName(),
          "the session store needs an io.lettuce.core.RedisClient or RedisClusterClient, got "
              + request.client().getClass().getName(),
          "Define the bean as a RedisClient or RedisClusterClient, or remove it to have one "
              + "built from spring.data.redis.*.");
    }
    builder.serializer(request.serializer());
    try {
      builder.namespace(request.namespace());
    } catch (IllegalArgumentException e) {
      throw namespaceInvalid(request);
    }
    try {
      builder.defaultMaxInactiveInterval(request.sessionTimeout());
    } catch (IllegalArgumentException e) {
      throw LazySessionConfigurationException.invalidValue(request.sessionTimeoutName(),
          PropertyChecks.shown(request.sessionTimeout()), "must be at least one second (or negative: sessions never "
              + "expire), as Redis keeps whole seconds",
          "Set the session timeout to 1s or more, e.g. 30m (the default).");
    }
    builder.onDecodeFailure(properties.decodeFailurePolicy())
        .expiryGrace(properties.expiryGrace())
        .cleanupInterval(properties.cleanupInterval())
        .expiryEvents(properties.expiryEvents())
        .nearCacheMaxBytes(properties.nearCache().maxBytes().toBytes())
        .nearCacheTracking(properties.nearCache().tracking())
        .durability(properties.durability().replicas(), properties.durability().timeout())
        .sessionBudget(properties.sessionBudget().toBudget())
        .eventPublisher(request.events())
        .requireRedisAtStartup(properties.requireRedisAtStartup())
        .absoluteTimeout(properties.absoluteTimeout())
        .anonymousTimeout(properties.anonymousTimeout())
        .idRenewal(properties.idRenewalInterval(), properties.idRenewalGrace())
        .sessionLimit(PropertyChecks.sessionLimit(properties.maxSessionsPerPrincipal(),
            properties.maxSessionsAction()));
    if (properties.touchInterval() != null) {
      builder.touchInterval(properties.touchInterval());
    }
    if (properties.migrateFrom() != null) {
      builder.migrateFrom(SpringSessionDataRedis.namespace(
          migrateFromNamespace(properties, request.springSessionNamespace())));
    }
    SessionEncryption encryption = properties.encryption().settings(null);
    if (encryption != null) {
      builder.encryption(encryption);
    }
    properties.compressionDictionary().applyTo(builder);
    request.customizers().forEach(customizer -> customizer.customize(builder));
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      if (e.getMessage() == null || !e.getMessage().contains("lazysession.near-cache.mode")) {
        throw e;
      }
      throw new LazySessionConfigurationException("lazysession.near-cache.mode", e.getMessage(),
          "Set lazysession.near-cache.mode=validate, or run Redis as that message says.", e);
    } catch (IllegalStateException e) {
      LazySessionConfigurationException keys = keysRefused(e);
      if (keys != null) {
        throw keys;
      }
      if (String.valueOf(e.getMessage()).startsWith(MIGRATION_REFUSED)) {
        throw new LazySessionConfigurationException(ACCEPT_UNPROTECTED, e.getMessage(),
            "Set " + ACCEPT_UNPROTECTED + "=true while " + LazySessionProperties.PREFIX
                + ".migrate-from takes sessions over (docs/migration.md), then remove both.", e);
      }
      // The builder's message says what failed (typically: cannot connect); add where we looked.
      String where = request.target() == null
          ? "the application's " + request.clientName() + " bean"
          : request.target().description();
      boolean notAnOutage = !properties.requireRedisAtStartup() || isRefusal(e);
      throw new LazySessionConfigurationException(
          notAnOutage ? (request.target() == null ? request.clientName() : "spring.data.redis.*")
              : REQUIRE_REDIS_AT_STARTUP,
          e.getMessage() + " Redis was expected at " + where + (notAnOutage ? ""
              : ", and " + REQUIRE_REDIS_AT_STARTUP + "=true makes that a startup failure"),
          "Check that Redis is running and reachable there, and the connection settings "
              + "(spring.data.redis.url, host, port, password, sentinel.*, cluster.nodes)"
              + (notAnOutage ? "." : "; or remove " + REQUIRE_REDIS_AT_STARTUP + "=true (default "
                  + "false) to start without Redis and answer 503 until it is reachable."), e);
    }
  }

  /**
   * Redis was reached, and the names key it holds does not open with this node's keys (a key id
   * whose secret differs from the other nodes', or none of their ids): a failure of
   * {@code lazysession.encryption.keys}, not of the connection. The message names the key ids,
   * never a key. Null for any other failure.
   */
  static @Nullable LazySessionConfigurationException keysRefused(IllegalStateException failure) {
    String prefix = ENCRYPTION_KEYS + ": ";
    String message = failure.getMessage();
    if (message == null || !message.startsWith(prefix)) {
      return null;
    }
    return new LazySessionConfigurationException(ENCRYPTION_KEYS,
        message.substring(prefix.length()).replaceAll("\\.$", ""),
        "Give this node the " + ENCRYPTION_KEYS + " of the other nodes of the namespace: each key "
            + "id with the same secret as theirs (a new secret needs a new key id; "
            + "docs/security.md, Rotation). Redis is reachable: the connection settings are fine.",
        failure);
  }

  /**
   * The one INFO line that says what the store does, logged once it is built: where Redis is
   * (without credentials), the namespace, codec, compression, near cache and allow-list mode,
   * encryption (never a key) and every other setting changed from its default
   * ({@link ChangedSettings}).
   *
   * @param allowListMode what the allow-list does with a class outside it
   * @param encryption the protection in force (from the properties or a key source bean)
   */
  static void logStarted(Request request, String allowListMode,
      @Nullable SessionEncryption encryption) {
    if (log.isInfoEnabled()) {
      log.info(summary(request, allowListMode, encryption));
    }
  }

  /** As {@link #logStarted(Request, String, SessionEncryption)}, encryption from the properties. */
  static void logStarted(Request request, String allowListMode) {
    logStarted(request, allowListMode, request.properties().encryption().settings(null));
  }

  static String summary(Request request, String allowListMode,
      @Nullable SessionEncryption encryption) {
    List<String> changed = ChangedSettings.changed(request.properties());
    return summary(request, allowListMode) + "; " + ChangedSettings.encryption(encryption)
        + (changed.isEmpty() ? "" : "; changed from the defaults: "
            + String.join(", ", changed));
  }

  private static String summary(Request request, String allowListMode) {
    LazySessionProperties properties = request.properties();
    Compression compression = request.serializer().compression();
    LazySessionProperties.NearCache nearCache = properties.nearCache();
    String where = request.target() == null
        ? "the application's " + request.clientName() + " bean"
        : request.target().description();
    return "lazysession stores sessions in Redis at " + where + ", namespace '"
        + request.namespace() + "'; codec " + request.serializer().codec().name()
            .toLowerCase(Locale.ROOT)
        + ", compression " + (compression.enabled() ? "zstd level " + compression.level()
            + " from " + compression.minBytes() + " bytes"
            + (compression.dictionary() == null ? "" : " with a dictionary") : "none")
        + ", near cache " + (nearCache.maxBytes().toBytes() == 0 ? "off"
            : nearCache.mode().name().toLowerCase(Locale.ROOT) + " ("
                + PropertyChecks.shown(nearCache.maxBytes())
                + (nearCache.tracking() == null ? ""
                    : ", max staleness " + PropertyChecks.shown(nearCache.maxStaleness()))
                + ")")
        + ", allow-list " + allowListMode + ", session timeout "
        + PropertyChecks.shown(request.sessionTimeout());
  }

  /** The namespace in force is not a valid key prefix: names the property it came from. */
  private static LazySessionConfigurationException namespaceInvalid(Request request) {
    String namespace = request.namespace();
    String setting = namespace.equals(request.properties().namespace())
        ? LazySessionProperties.PREFIX + ".namespace"
        : SpringSessionRedisProperties.PREFIX + ".namespace";
    String suggestion = namespace.replaceAll("[^A-Za-z0-9_.:\\-]+", "-")
        .replaceAll("^-+|-+$", "");
    return LazySessionConfigurationException.invalidValue(setting, namespace,
        "must be made of letters, digits and -_.: only (it starts every Redis key of a session; "
            + "no spaces, slashes or braces)",
        "Set " + setting + " to such a name, e.g. "
            + (suggestion.isEmpty() ? LazyRedisSessionRepository.DEFAULT_NAMESPACE : suggestion)
            + ".");
  }
}
