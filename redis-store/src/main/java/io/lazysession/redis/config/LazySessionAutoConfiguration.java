package io.lazysession.redis.config;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.micrometer.LazySessionMetrics;
import io.lazysession.serializer.AttributeSerializer;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.session.SessionRepository;
import org.springframework.session.config.annotation.web.http.SpringHttpSessionConfiguration;
import org.springframework.session.web.http.SessionRepositoryFilter;
import org.springframework.util.ClassUtils;

/**
 * Spring Boot auto-configuration: with redis-store on the class path, HTTP sessions live in Redis
 * through {@link LazyRedisSessionRepository}. The connection comes from {@code spring.data.redis.*},
 * the session timeout from {@code spring.session.timeout} (else {@code server.servlet.session.timeout}),
 * lazysession's own settings from {@code lazysession.*} (see {@link LazySessionProperties}).
 *
 * <p>Backs off when the application defines its own {@link SessionRepository}, or sets
 * {@code lazysession.enabled=false}. Classes of the application's package (the one of its
 * {@code @SpringBootApplication}) and, when Spring Security is present, {@code org.springframework.security}
 * may be decoded on top of JDK types and {@code lazysession.allowed-packages}.
 *
 * <p>Runs before Spring Boot's own session auto-configuration, which then registers this
 * repository's filter with its usual settings ({@code spring.session.servlet.*}).
 */
@AutoConfiguration(beforeName = {
    "org.springframework.boot.session.autoconfigure.SessionAutoConfiguration",
    "org.springframework.boot.session.data.redis.autoconfigure.SessionDataRedisAutoConfiguration"})
@ConditionalOnClass({LazyRedisSessionRepository.class, RedisClient.class, SessionRepository.class})
@ConditionalOnBooleanProperty(name = "lazysession.enabled", matchIfMissing = true)
@ConditionalOnMissingBean(SessionRepository.class)
public class LazySessionAutoConfiguration {
  static final String SPRING_SECURITY_PACKAGE = "org.springframework.security";

  /** The client for the session store, from {@code spring.data.redis.*}. */
  @Bean(destroyMethod = "shutdown")
  @ConditionalOnMissingBean(RedisClient.class)
  RedisClient lazySessionRedisClient(Environment environment) {
    return RedisConnectionSettings.bind(environment).createClient();
  }

  @Bean
  @ConditionalOnMissingBean(AttributeSerializer.class)
  AttributeSerializer lazySessionAttributeSerializer(Environment environment,
      BeanFactory beanFactory) {
    List<String> packages = new ArrayList<>();
    if (AutoConfigurationPackages.has(beanFactory)) {
      packages.addAll(AutoConfigurationPackages.get(beanFactory));
    }
    ClassLoader classLoader = beanFactory instanceof org.springframework.beans.factory.config
        .ConfigurableBeanFactory configurable ? configurable.getBeanClassLoader() : null;
    if (ClassUtils.isPresent("org.springframework.security.core.context.SecurityContextImpl",
        classLoader)) {
      packages.add(SPRING_SECURITY_PACKAGE);
    }
    return LazySessionProperties.bind(environment).serializer(packages, classLoader);
  }

  @Bean(destroyMethod = "close")
  LazyRedisSessionRepository sessionRepository(ObjectProvider<RedisClient> clients,
      AttributeSerializer serializer, Environment environment, ApplicationEventPublisher events) {
    RedisClient client = clients.getIfUnique();
    if (client == null) {
      throw new IllegalStateException("lazysession needs exactly one io.lettuce.core.RedisClient "
          + "bean; define one, or none to have it built from spring.data.redis.*");
    }
    return RepositoryFactory.build(client,
        RedisConnectionSettings.bind(environment).describe(), serializer,
        LazySessionProperties.bind(environment), RepositoryFactory.sessionTimeout(environment),
        events);
  }

  /** The {@link SessionRepositoryFilter} (Spring Session's standard servlet wiring). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass(SessionRepositoryFilter.class)
  @ConditionalOnMissingBean(SessionRepositoryFilter.class)
  @Import(SpringHttpSessionConfiguration.class)
  static class ServletConfiguration {}

  /** Micrometer counters, when Micrometer is on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterBinder.class)
  static class MetricsConfiguration {
    @Bean
    @ConditionalOnMissingBean(LazySessionMetrics.class)
    LazySessionMetrics lazySessionMetrics(LazyRedisSessionRepository repository) {
      return new LazySessionMetrics(repository);
    }
  }
}
