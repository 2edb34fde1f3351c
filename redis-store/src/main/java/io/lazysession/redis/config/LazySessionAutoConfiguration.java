package io.lazysession.redis.config;

import io.lazysession.redis.EncryptionKeySource;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.micrometer.LazySessionMetrics;
import io.lazysession.redis.micrometer.TimedSessionRepository;
import io.lazysession.serializer.AttributeSerializer;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import org.springframework.session.FlushMode;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.Environment;
import org.springframework.session.SessionRepository;
import org.springframework.session.config.annotation.web.http.SpringHttpSessionConfiguration;
import org.springframework.session.web.http.SessionRepositoryFilter;

/**
 * Spring Boot auto-configuration: in a web application with redis-store on the class path, HTTP
 * sessions live in Redis through {@link LazyRedisSessionRepository}.
 *
 * <ul>
 *   <li>Redis: the client bean named {@value #CLIENT_BEAN_NAME} when the application defines one;
 *       else a client of the store's own, built from Spring Boot's {@code DataRedisConnectionDetails}
 *       when spring-boot-data-redis is present ({@code spring.data.redis.*}, {@code @ServiceConnection},
 *       Docker Compose, SSL bundles, Lettuce customizers, the shared {@code ClientResources}), else
 *       from {@code spring.data.redis.*} read directly. Any other Lettuce client bean of the
 *       application is left alone.
 *   <li>Settings: {@code lazysession.*} ({@link LazySessionProperties}), the session timeout from
 *       {@code spring.session.timeout} (else {@code server.servlet.session.timeout}, or
 *       {@code server.reactive.session.timeout} in a reactive web application), and
 *       {@code spring.session.data.redis.*} honoured or refused ({@link SpringSessionRedisProperties}).
 *   <li>{@link LazySessionRepositoryCustomizer} beans adjust the builder last.
 *   <li>With Micrometer: counters, size summaries, find/save timers ({@link TimedSessionRepository},
 *       the primary {@code SessionRepository}); with the actuator too, the {@value
 *       LazySessionSizesEndpoint#ID} endpoint (largest attributes). With Boot's health support: a {@code lazysession} health
 *       contribution that checks the store's own connection.
 * </ul>
 *
 * <p>Backs off when the application defines its own {@link SessionRepository}, or sets
 * {@code lazysession.enabled=false}. Classes of the application's packages (every auto-configuration
 * package, its {@code @SpringBootApplication}'s by default, widened to their organisation prefix:
 * {@code org.acme} for {@code org.acme.shop}, see {@code ClassAllowList.organizationPackage}) may be
 * decoded on top of JDK types, the Spring portfolio's session classes and
 * {@code lazysession.allowed-packages}.
 *
 * <p>Runs before Spring Boot's session auto-configuration (spring-boot-session), which then applies
 * {@code server.servlet.session.cookie.*} and {@code spring.session.servlet.*} to this repository's
 * filter and exposes the {@code sessions} actuator endpoint. Stateless.
 */
@AutoConfiguration(
    beforeName = {
        "org.springframework.boot.session.autoconfigure.SessionAutoConfiguration",
        "org.springframework.boot.session.autoconfigure.SessionsEndpointAutoConfiguration",
        "org.springframework.boot.session.data.redis.autoconfigure.SessionDataRedisAutoConfiguration"},
    afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnWebApplication
@ConditionalOnClass({LazyRedisSessionRepository.class, RedisClient.class, SessionRepository.class})
@Conditional(EnabledCondition.class)
@ConditionalOnMissingBean(SessionRepository.class)
@EnableConfigurationProperties(LazySessionProperties.class)
// In this order: the connection details when Boot has them, else spring.data.redis.* read directly.
@Import({SessionClientConfigurations.FromConnectionDetails.class,
    SessionClientConfigurations.FromProperties.class})
public class LazySessionAutoConfiguration {
  /** The name of the Lettuce client bean the session store uses (defined by the app, or here). */
  public static final String CLIENT_BEAN_NAME = "lazySessionRedisClient";
  static final String ALLOW_LIST_ENFORCE = "enforce";
  private static final Logger log = LoggerFactory.getLogger(LazySessionAutoConfiguration.class);

  @Bean
  @ConditionalOnMissingBean(AttributeSerializer.class)
  AttributeSerializer lazySessionAttributeSerializer(LazySessionProperties properties,
      BeanFactory beanFactory) {
    List<String> packages = new ArrayList<>();
    if (AutoConfigurationPackages.has(beanFactory)) {
      for (String name : AutoConfigurationPackages.get(beanFactory)) {
        if (name.isEmpty()) {
          // A class in the default package has no package to allow; say so instead of failing.
          log.warn("The application's @SpringBootApplication class is in the default package, so "
              + "no application package is allowed to decode by default: move it into a package "
              + "or list your session attribute packages in lazysession.allowed-packages");
        } else {
          packages.add(name);
        }
      }
    }
    ClassLoader classLoader = beanFactory instanceof ConfigurableBeanFactory configurable
        ? configurable.getBeanClassLoader() : null;
    // Spring Security's session classes are always allowed, package by package
    // (ClassAllowList.springSecurityPackages()): not the whole of org.springframework.security.
    return properties.serializer(packages, classLoader);
  }

  @Bean(destroyMethod = "close")
  LazyRedisSessionRepository sessionRepository(
      @Qualifier(CLIENT_BEAN_NAME) AbstractRedisClient client,
      ObjectProvider<RedisTarget> target, AttributeSerializer serializer,
      LazySessionProperties properties, Environment environment,
      ApplicationEventPublisher events,
      ObjectProvider<LazySessionRepositoryCustomizer> customizers,
      ObjectProvider<EncryptionKeySource> keySource) {
    UnknownProperties.check(environment);
    List<LazySessionRepositoryCustomizer> applied = new ArrayList<>();
    LazySessionRepositoryCustomizer keys =
        RepositoryFactory.keySource(properties, keySource.getIfAvailable());
    if (keys != null) {
      applied.add(keys);
    }
    customizers.orderedStream().forEach(applied::add);
    String namespace = SpringSessionRedisProperties.check(Binder.get(environment),
        properties.namespace());
    RepositoryFactory.Request request = new RepositoryFactory.Request(client,
        target.getIfAvailable(), CLIENT_BEAN_NAME, serializer, properties, namespace,
        Binder.get(environment).bind(SpringSessionRedisProperties.PREFIX + ".namespace",
            String.class).map(value -> value.isBlank() ? null : value).orElse(null),
        RepositoryFactory.sessionTimeout(environment),
        RepositoryFactory.sessionTimeoutName(environment),
        events, withFlushMode(SpringSessionRedisProperties.flushMode(Binder.get(environment)),
            applied));
    LazyRedisSessionRepository repository = RepositoryFactory.build(request);
    RepositoryFactory.logStarted(request, allowListMode(environment),
        properties.encryption().settings(keySource.getIfAvailable()));
    return repository;
  }

  /** {@code lazysession.allow-list-mode} when the application sets it, else enforce. */
  private static String allowListMode(Environment environment) {
    return Binder.get(environment).bind(LazySessionProperties.PREFIX + ".allow-list-mode",
        String.class).map(value -> value.trim().toLowerCase(java.util.Locale.ROOT))
        .orElse(ALLOW_LIST_ENFORCE);
  }

  /** {@code spring.session.data.redis.flush-mode} first, so that an application's customizer wins. */
  private static List<LazySessionRepositoryCustomizer> withFlushMode(FlushMode flushMode,
      List<LazySessionRepositoryCustomizer> customizers) {
    List<LazySessionRepositoryCustomizer> all = new ArrayList<>(customizers.size() + 1);
    all.add(builder -> builder.flushMode(flushMode));
    all.addAll(customizers);
    return all;
  }

  /** The {@link SessionRepositoryFilter} (Spring Session's standard servlet wiring). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass(SessionRepositoryFilter.class)
  @ConditionalOnMissingBean(SessionRepositoryFilter.class)
  @Import(SpringHttpSessionConfiguration.class)
  static class ServletConfiguration {}

  /**
   * Spring Security's side of the limit of sessions per principal: see the imported configuration.
   * Whatever {@code lazysession.max-sessions-per-principal} is: the strategy admits everything
   * without a limit, and a condition on the property would be fixed when an application is built
   * for Spring AOT, leaving a limit set only at run time without its login failure page.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass(name = SessionLimitSecurityConfiguration.HTTP_SECURITY)
  @Import(SessionLimitSecurityConfiguration.class)
  static class SessionLimitSecurity {}

  /** Micrometer counters and timers, when Micrometer is on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterBinder.class)
  static class MetricsConfiguration {
    @Bean
    @ConditionalOnMissingBean(LazySessionMetrics.class)
    LazySessionMetrics lazySessionMetrics(LazyRedisSessionRepository repository) {
      return new LazySessionMetrics(repository);
    }

    /** Primary, so that Spring Session's filter and the sessions endpoint go through the timers. */
    @Bean
    @Primary
    TimedSessionRepository timedSessionRepository(LazyRedisSessionRepository repository) {
      return new TimedSessionRepository(repository);
    }
  }

  /** The {@value LazySessionSizesEndpoint#ID} actuator endpoint, with Micrometer and actuator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"io.micrometer.core.instrument.binder.MeterBinder",
      "org.springframework.boot.actuate.endpoint.annotation.Endpoint"})
  static class SizesEndpointConfiguration {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(LazySessionSizesEndpoint.class)
    LazySessionSizesEndpoint lazySessionSizesEndpoint(LazySessionMetrics metrics,
        LazyRedisSessionRepository repository) {
      return new LazySessionSizesEndpoint(metrics, repository.namespace());
    }
  }

  /** The {@value LazySessionFormatEndpoint#ID} actuator endpoint, with actuator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
  static class FormatEndpointConfiguration {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(LazySessionFormatEndpoint.class)
    LazySessionFormatEndpoint lazySessionFormatEndpoint(LazyRedisSessionRepository repository) {
      return new LazySessionFormatEndpoint(repository);
    }
  }

  /** The {@code lazysession} health contribution, with Spring Boot's health support. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnEnabledHealthIndicator("lazysession")
  static class HealthConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "lazysessionHealthIndicator")
    HealthIndicator lazysessionHealthIndicator(LazyRedisSessionRepository repository,
        ObjectProvider<RedisTarget> target) {
      @Nullable RedisTarget where = target.getIfAvailable();
      return new LazySessionHealthIndicator(repository,
          where == null ? CLIENT_BEAN_NAME + " bean" : where.description());
    }
  }
}
