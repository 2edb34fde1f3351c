package io.lazysession.redis.config;

import io.lazysession.redis.DecodeFailurePolicy;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.serializer.AttributeSerializer;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * The attributes of {@link EnableLazyHttpSession} or {@link EnableLazyWebSession}, turned into
 * {@code lazysession.*} values and bound into {@link LazySessionProperties} exactly as the Boot
 * properties are, and the repository built from them by {@link RepositoryFactory}. One per imported
 * configuration; not thread-safe (Spring configures it once, on the thread that refreshes the
 * context).
 */
final class AnnotationSettings {
  /** Annotation attribute to {@code lazysession.*} property, for the attributes an annotation has. */
  private static final Map<String, String> PROPERTIES = Map.ofEntries(
      Map.entry("namespace", "namespace"), Map.entry("codec", "codec"),
      Map.entry("compression", "compression"), Map.entry("compressionLevel", "compression.level"),
      Map.entry("compressionMinBytes", "compression.min-bytes"),
      Map.entry("nearCacheMaxBytes", "near-cache.max-bytes"),
      Map.entry("durabilityReplicas", "durability.replicas"),
      Map.entry("durabilityTimeout", "durability.timeout"),
      Map.entry("touchInterval", "touch-interval"), Map.entry("maxValueBytes", "max-value-bytes"),
      Map.entry("expiryEvents", "expiry-events"),
      Map.entry("migrateFrom", "migrate-from"),
      Map.entry("migrateFromNamespace", "migrate-from-namespace"),
      Map.entry("absoluteTimeout", "absolute-timeout"),
      Map.entry("anonymousTimeout", "anonymous-timeout"),
      Map.entry("idRenewalInterval", "id-renewal-interval"),
      Map.entry("idRenewalGrace", "id-renewal-grace"),
      Map.entry("maxSessionsPerPrincipal", "max-sessions-per-principal"),
      Map.entry("maxSessionsAction", "max-sessions-action"));

  private final String annotation;
  private final Map<String, Object> settings = new HashMap<>();
  private final List<String> defaultPackages = new ArrayList<>();
  private Duration maxInactiveInterval = LazyRedisSessionRepository.DEFAULT_MAX_INACTIVE_INTERVAL;
  private String redisUrl = "";
  private @Nullable RedisClient ownedClient;

  AnnotationSettings(String annotation) {
    this.annotation = annotation;
  }

  /** Reads the annotation's attributes; {@code className} is the annotated class. */
  void read(Map<String, @Nullable Object> attributes, String className) {
    maxInactiveInterval =
        Duration.ofSeconds((Integer) attributes.get("maxInactiveIntervalInSeconds"));
    redisUrl = (String) attributes.get("redisUrl");
    String packageName = ClassUtils.getPackageName(className);
    if (!packageName.isEmpty()) { // the default package has nothing to allow
      defaultPackages.add(packageName);
    }
    put("on-decode-failure",
        ((DecodeFailurePolicy) attributes.get("onDecodeFailure")).propertyValue());
    String[] packages = (String[]) attributes.get("allowedPackages");
    if (packages != null && packages.length > 0) {
      put("allowed-packages", String.join(",", packages));
    }
    PROPERTIES.forEach((attribute, property) -> put(property, attributes.get(attribute)));
  }

  /** Records one attribute as its property; "" and -1 mean "not set": the property's default. */
  private void put(String property, @Nullable Object value) {
    if (value == null || "".equals(value) || Integer.valueOf(-1).equals(value)) {
      return;
    }
    settings.put(LazySessionProperties.PREFIX + "." + property, value);
  }

  /** The annotation's settings, bound as {@code lazysession.*}; errors name the attribute too. */
  LazySessionProperties properties(@Nullable Environment environment) {
    Map<String, Object> resolved = new HashMap<>();
    settings.forEach((key, value) -> resolved.put(key, value instanceof String text
        && environment != null ? environment.resolveRequiredPlaceholders(text) : value));
    try {
      return LazySessionProperties.bind(new MapConfigurationPropertySource(resolved));
    } catch (RuntimeException e) {
      LazySessionConfigurationException named = named(e);
      if (named != null) {
        throw named;
      }
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      throw new LazySessionConfigurationException(annotation,
          "an attribute is not valid: " + root.getMessage(),
          "Fix the attribute of " + annotation + " that mirrors the property named above.", e);
    }
  }

  /**
   * The repository: on the client made from {@code redisUrl} (owned here, shut down by
   * {@link #close}), else on the bean named {@value LazySessionAutoConfiguration#CLIENT_BEAN_NAME}.
   */
  LazyRedisSessionRepository repository(@Nullable Environment environment,
      @Nullable BeanFactory beanFactory, @Nullable ClassLoader classLoader,
      ObjectProvider<AttributeSerializer> serializers, ApplicationEventPublisher events,
      ObjectProvider<LazySessionRepositoryCustomizer> customizers) {
    LazySessionProperties properties = properties(environment);
    AbstractRedisClient client;
    RedisTarget target = null;
    String clientName;
    if (!redisUrl.isBlank()) {
      String url = environment == null ? redisUrl
          : environment.resolveRequiredPlaceholders(redisUrl);
      clientName = annotation + "(redisUrl)";
      RedisClient created = RedisConnectionSettings.createClient(url, clientName);
      ownedClient = created;
      client = created;
      target = RedisConnectionSettings.urlTarget(url, clientName);
    } else {
      clientName = LazySessionAutoConfiguration.CLIENT_BEAN_NAME;
      if (beanFactory == null || !beanFactory.containsBean(clientName)) {
        throw new LazySessionConfigurationException(annotation + "(redisUrl)",
            "no Redis to connect to: redisUrl is empty and there is no bean named " + clientName,
            "Set redisUrl (e.g. \"${redis.url}\"), or define the session store's RedisClient "
                + "(or RedisClusterClient) as @Bean(\"" + clientName + "\"); other client beans "
                + "are not used for sessions.");
      }
      client = beanFactory.getBean(clientName, AbstractRedisClient.class);
    }
    AttributeSerializer serializer = serializers.getIfUnique(
        () -> properties.serializer(defaultPackages, classLoader));
    try {
      RepositoryFactory.Request request = new RepositoryFactory.Request(client, target,
          clientName, serializer, properties, properties.namespace(), null, maxInactiveInterval,
          annotation + "(maxInactiveIntervalInSeconds)", events,
          customizers.orderedStream().toList());
      LazyRedisSessionRepository repository = RepositoryFactory.build(request);
      RepositoryFactory.logStarted(request, LazySessionAutoConfiguration.ALLOW_LIST_ENFORCE);
      return repository;
    } catch (LazySessionConfigurationException e) {
      LazySessionConfigurationException named = named(e);
      throw named != null ? named : e;
    }
  }

  /**
   * A failure that names a {@code lazysession.*} property, said of the annotation's attribute that
   * set it instead; null when there is none.
   */
  private @Nullable LazySessionConfigurationException named(RuntimeException failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof LazySessionConfigurationException configuration) {
        for (Map.Entry<String, String> entry : PROPERTIES.entrySet()) {
          String property = LazySessionProperties.PREFIX + "." + entry.getValue();
          if (configuration.setting().equals(property)) {
            return configuration.as(annotation + "(" + entry.getKey() + ")");
          }
        }
        return null;
      }
    }
    return null;
  }

  /** Shuts down the client made from {@code redisUrl}, if any. */
  void close() {
    if (ownedClient != null) {
      ownedClient.shutdown();
    }
  }

  /**
   * {@code configuration} (a class name) when {@code annotation} on {@code metadata} sets
   * {@code maxSessionsPerPrincipal} and {@code securityClass} is on the class path, else nothing:
   * what the annotations import for Spring Security, without loading any of it otherwise.
   */
  static String[] importsWhenLimited(AnnotationMetadata metadata, Class<?> annotation,
      String securityClass, String configuration) {
    Map<String, @Nullable Object> attributes =
        metadata.getAnnotationAttributes(annotation.getName());
    boolean limited = attributes != null && !"".equals(attributes.get("maxSessionsPerPrincipal"));
    return limited && ClassUtils.isPresent(securityClass, AnnotationSettings.class.getClassLoader())
        ? new String[] {configuration}
        : new String[0];
  }
}
