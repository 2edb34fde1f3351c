package io.lazysession.redis.config;

import io.lazysession.redis.DecodeFailurePolicy;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.codec.ClassAllowList;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportAware;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.session.config.annotation.web.http.SpringHttpSessionConfiguration;
import org.springframework.util.ClassUtils;

/**
 * What {@link EnableLazyHttpSession} imports: the repository plus Spring Session's servlet filter.
 * Public only because Spring imports it; not meant to be used directly.
 */
@Configuration(proxyBeanMethods = false)
public class LazyHttpSessionConfiguration extends SpringHttpSessionConfiguration
    implements ImportAware, BeanClassLoaderAware, EnvironmentAware, DisposableBean {
  private String namespace = LazyRedisSessionRepository.DEFAULT_NAMESPACE;
  private Duration maxInactiveInterval = LazyRedisSessionRepository.DEFAULT_MAX_INACTIVE_INTERVAL;
  private String redisUrl = "";
  private DecodeFailurePolicy onDecodeFailure = DecodeFailurePolicy.DROP_ATTRIBUTE;
  private final List<String> allowedPackages = new ArrayList<>();
  private @Nullable ClassLoader classLoader;
  private @Nullable RedisClient ownedClient;
  private @Nullable Environment environment;

  @Override
  public void setImportMetadata(AnnotationMetadata metadata) {
    Map<String, @Nullable Object> attributes =
        metadata.getAnnotationAttributes(EnableLazyHttpSession.class.getName());
    if (attributes == null) {
      return;
    }
    namespace = (String) attributes.get("namespace");
    maxInactiveInterval = Duration.ofSeconds((Integer) attributes.get("maxInactiveIntervalInSeconds"));
    redisUrl = (String) attributes.get("redisUrl");
    onDecodeFailure = (DecodeFailurePolicy) attributes.get("onDecodeFailure");
    allowedPackages.add(ClassUtils.getPackageName(metadata.getClassName()));
    allowedPackages.addAll(List.of((String[]) attributes.get("allowedPackages")));
  }

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanClassLoader(ClassLoader classLoader) {
    this.classLoader = classLoader;
  }

  @Bean(destroyMethod = "close")
  public LazyRedisSessionRepository sessionRepository(
      ObjectProvider<AbstractRedisClient> clients, ObjectProvider<AttributeSerializer> serializers,
      ApplicationEventPublisher events) {
    AbstractRedisClient client;
    if (!redisUrl.isBlank()) {
      String url = environment == null ? redisUrl
          : environment.resolveRequiredPlaceholders(redisUrl);
      client = RedisConnectionSettings.createClient(url, "@EnableLazyHttpSession(redisUrl)");
      ownedClient = (RedisClient) client;
    } else {
      client = clients.getIfUnique();
      if (!(client instanceof RedisClient) && !(client instanceof RedisClusterClient)) {
        throw new IllegalStateException("@EnableLazyHttpSession needs a redisUrl or exactly one "
            + "io.lettuce.core.RedisClient or RedisClusterClient bean");
      }
    }
    AttributeSerializer serializer = serializers.getIfUnique(() -> {
      AttributeSerializer.Builder builder = AttributeSerializer.builder()
          .allowList(ClassAllowList.builder().allowPackages(allowedPackages).build());
      if (classLoader != null) {
        builder.classLoader(classLoader);
      }
      return builder.build();
    });
    LazyRedisSessionRepository.Builder builder = client instanceof RedisClusterClient cluster
        ? LazyRedisSessionRepository.builder(cluster)
        : LazyRedisSessionRepository.builder((RedisClient) client);
    return builder
        .serializer(serializer)
        .namespace(namespace)
        .defaultMaxInactiveInterval(maxInactiveInterval)
        .onDecodeFailure(onDecodeFailure)
        .eventPublisher(events)
        .build();
  }

  @Override
  public void destroy() {
    if (ownedClient != null) {
      ownedClient.shutdown();
    }
  }
}
