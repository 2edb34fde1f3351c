package io.lazysession.redis.config;

import io.lazysession.redis.DecodeFailurePolicy;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.codec.ClassAllowList;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportAware;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.session.config.annotation.web.http.SpringHttpSessionConfiguration;
import org.springframework.util.ClassUtils;

/**
 * What {@link EnableLazyHttpSession} imports: the repository plus Spring Session's servlet filter.
 * Public only because Spring imports it; not meant to be used directly.
 */
@Configuration(proxyBeanMethods = false)
public class LazyHttpSessionConfiguration extends SpringHttpSessionConfiguration
    implements ImportAware, BeanClassLoaderAware, DisposableBean {
  private String namespace = LazyRedisSessionRepository.DEFAULT_NAMESPACE;
  private Duration maxInactiveInterval = LazyRedisSessionRepository.DEFAULT_MAX_INACTIVE_INTERVAL;
  private String redisUrl = "";
  private DecodeFailurePolicy onDecodeFailure = DecodeFailurePolicy.DROP_ATTRIBUTE;
  private final List<String> allowedPackages = new ArrayList<>();
  private @Nullable ClassLoader classLoader;
  private @Nullable RedisClient ownedClient;

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
  public void setBeanClassLoader(ClassLoader classLoader) {
    this.classLoader = classLoader;
  }

  @Bean(destroyMethod = "close")
  public LazyRedisSessionRepository sessionRepository(ObjectProvider<RedisClient> clients,
      ObjectProvider<AttributeSerializer> serializers, ApplicationEventPublisher events) {
    RedisClient client;
    if (!redisUrl.isBlank()) {
      client = RedisClient.create(redisUrl);
      ownedClient = client;
    } else {
      client = clients.getIfUnique();
      if (client == null) {
        throw new IllegalStateException("@EnableLazyHttpSession needs a redisUrl or exactly one "
            + "io.lettuce.core.RedisClient bean");
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
    return LazyRedisSessionRepository.builder(client)
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
