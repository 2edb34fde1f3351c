package io.lazysession.redis.config;

import io.lazysession.redis.DecodeFailurePolicy;
import io.lazysession.redis.LazyReactiveRedisSessionRepository;
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
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportAware;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.session.config.annotation.web.server.SpringWebSessionConfiguration;
import org.springframework.util.ClassUtils;

/**
 * What {@link EnableLazyWebSession} imports: the repository (built by {@link RepositoryFactory} from
 * the annotation's attributes bound as {@code lazysession.*}, as {@link LazyHttpSessionConfiguration}
 * does) and its reactive face, plus Spring Session's {@code webSessionManager}. Public only because
 * Spring imports it; not meant to be used directly.
 */
@Configuration(proxyBeanMethods = false)
public class LazyWebSessionConfiguration extends SpringWebSessionConfiguration
    implements ImportAware, BeanClassLoaderAware, EnvironmentAware, BeanFactoryAware,
    DisposableBean {
  private static final String ANNOTATION = "@EnableLazyWebSession";

  private final Map<String, Object> settings = new HashMap<>();
  private Duration maxInactiveInterval = LazyRedisSessionRepository.DEFAULT_MAX_INACTIVE_INTERVAL;
  private String redisUrl = "";
  private final List<String> defaultPackages = new ArrayList<>();
  private @Nullable ClassLoader classLoader;
  private @Nullable RedisClient ownedClient;
  private @Nullable Environment environment;
  private @Nullable BeanFactory beanFactory;

  /**
   * The reactive face of {@code repository}; a setting it cannot honour yet is reported as a
   * configuration error naming the property.
   */
  static LazyReactiveRedisSessionRepository reactive(LazyRedisSessionRepository repository) {
    try {
      return LazyReactiveRedisSessionRepository.of(repository);
    } catch (IllegalArgumentException e) {
      throw new LazySessionConfigurationException("lazysession.*",
          "a reactive (WebFlux) application uses a setting the reactive repository does not "
              + "support yet: " + e.getMessage(),
          "Remove that setting for this application.", e);
    }
  }

  @Override
  public void setImportMetadata(AnnotationMetadata metadata) {
    Map<String, @Nullable Object> attributes =
        metadata.getAnnotationAttributes(EnableLazyWebSession.class.getName());
    if (attributes == null) {
      return;
    }
    maxInactiveInterval =
        Duration.ofSeconds((Integer) attributes.get("maxInactiveIntervalInSeconds"));
    redisUrl = (String) attributes.get("redisUrl");
    String packageName = ClassUtils.getPackageName(metadata.getClassName());
    if (!packageName.isEmpty()) { // the default package has nothing to allow
      defaultPackages.add(packageName);
    }
    put("namespace", attributes.get("namespace"));
    put("on-decode-failure",
        ((DecodeFailurePolicy) attributes.get("onDecodeFailure")).propertyValue());
    String[] packages = (String[]) attributes.get("allowedPackages");
    if (packages != null && packages.length > 0) {
      put("allowed-packages", String.join(",", packages));
    }
    put("codec", attributes.get("codec"));
    put("compression", attributes.get("compression"));
    put("compression.level", attributes.get("compressionLevel"));
    put("compression.min-bytes", attributes.get("compressionMinBytes"));
    put("near-cache.max-bytes", attributes.get("nearCacheMaxBytes"));
    put("touch-interval", attributes.get("touchInterval"));
    put("max-value-bytes", attributes.get("maxValueBytes"));
  }

  /** Records one attribute as its property; "" and -1 mean "not set": the property's default. */
  private void put(String property, @Nullable Object value) {
    if (value == null || "".equals(value) || Integer.valueOf(-1).equals(value)) {
      return;
    }
    settings.put(LazySessionProperties.PREFIX + "." + property, value);
  }

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanClassLoader(ClassLoader classLoader) {
    this.classLoader = classLoader;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  /** The annotation's settings, bound as {@code lazysession.*}; errors name the attribute too. */
  LazySessionProperties properties() {
    Map<String, Object> resolved = new HashMap<>();
    settings.forEach((key, value) -> resolved.put(key, value instanceof String text
        && environment != null ? environment.resolveRequiredPlaceholders(text) : value));
    try {
      return LazySessionProperties.bind(new MapConfigurationPropertySource(resolved));
    } catch (RuntimeException e) {
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      throw new LazySessionConfigurationException(ANNOTATION,
          "an attribute is not valid: " + root.getMessage(),
          "Fix the attribute of " + ANNOTATION + " that mirrors the property named above.", e);
    }
  }

  /** The servlet face, which owns the connection and the expiry sweep. */
  @Bean(destroyMethod = "close")
  public LazyRedisSessionRepository lazySessionRepository(
      ObjectProvider<AttributeSerializer> serializers, ApplicationEventPublisher events,
      ObjectProvider<LazySessionRepositoryCustomizer> customizers) {
    LazySessionProperties properties = properties();
    AbstractRedisClient client;
    RedisTarget target = null;
    String clientName;
    if (!redisUrl.isBlank()) {
      String url = environment == null ? redisUrl
          : environment.resolveRequiredPlaceholders(redisUrl);
      clientName = ANNOTATION + "(redisUrl)";
      RedisClient created = RedisConnectionSettings.createClient(url, clientName);
      ownedClient = created;
      client = created;
      target = RedisConnectionSettings.urlTarget(url, clientName);
    } else {
      clientName = LazySessionAutoConfiguration.CLIENT_BEAN_NAME;
      if (beanFactory == null || !beanFactory.containsBean(clientName)) {
        throw new LazySessionConfigurationException(ANNOTATION + "(redisUrl)",
            "no Redis to connect to: redisUrl is empty and there is no bean named " + clientName,
            "Set redisUrl (e.g. \"${redis.url}\"), or define the session store's RedisClient "
                + "(or RedisClusterClient) as @Bean(\"" + clientName + "\"); other client beans "
                + "are not used for sessions.");
      }
      client = beanFactory.getBean(clientName, AbstractRedisClient.class);
    }
    AttributeSerializer serializer = serializers.getIfUnique(
        () -> properties.serializer(defaultPackages, classLoader));
    return RepositoryFactory.build(new RepositoryFactory.Request(client, target, clientName,
        serializer, properties, properties.namespace(), null, maxInactiveInterval,
        ANNOTATION + "(maxInactiveIntervalInSeconds)", events,
        customizers.orderedStream().toList()));
  }

  @Bean
  public LazyReactiveRedisSessionRepository reactiveSessionRepository(
      LazyRedisSessionRepository lazySessionRepository) {
    return reactive(lazySessionRepository);
  }

  @Override
  public void destroy() {
    if (ownedClient != null) {
      ownedClient.shutdown();
    }
  }
}
