package io.lazysession.redis.config;

import io.lazysession.redis.LazyRedisSessionRepository;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.session.web.http.SessionRepositoryFilter;
import org.springframework.web.server.WebFilter;

/**
 * Spring Boot auto-configuration of what users see while Redis is unavailable: 503 with
 * {@code Retry-After} instead of 500, on both web stacks, with no configuration. A filter of the
 * application named {@value #SERVLET_FILTER_NAME} or {@value #WEB_FILTER_NAME} replaces ours.
 * Stateless.
 */
@AutoConfiguration(after = {LazySessionAutoConfiguration.class,
    LazyWebSessionAutoConfiguration.class})
@ConditionalOnBean(LazyRedisSessionRepository.class)
public class LazySessionOutageAutoConfiguration {
  static final String SERVLET_FILTER_NAME = "lazySessionUnavailableFilter";
  static final String WEB_FILTER_NAME = "lazySessionUnavailableWebFilter";
  /** Spring Boot's setting of the order of Spring Session's filter. */
  static final String SESSION_FILTER_ORDER = "spring.session.servlet.filter-order";

  /** The servlet filter, registered just before Spring Session's filter, for every dispatch. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass({Filter.class, FilterRegistrationBean.class, SessionRepositoryFilter.class})
  static class Servlet {
    @Bean(name = SERVLET_FILTER_NAME)
    @ConditionalOnMissingBean(name = SERVLET_FILTER_NAME)
    FilterRegistrationBean<SessionStoreUnavailableFilter> lazySessionUnavailableFilter(
        Environment environment) {
      FilterRegistrationBean<SessionStoreUnavailableFilter> registration =
          new FilterRegistrationBean<>(new SessionStoreUnavailableFilter());
      registration.setName(SERVLET_FILTER_NAME);
      registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC,
          DispatcherType.ERROR, DispatcherType.FORWARD, DispatcherType.INCLUDE);
      registration.setOrder(order(environment));
      return registration;
    }

    /** Just before Spring Session's filter, wherever spring.session.servlet.filter-order puts it. */
    static int order(Environment environment) {
      int sessionFilter = Binder.get(environment).bind(SESSION_FILTER_ORDER, Integer.class)
          .orElse(SessionRepositoryFilter.DEFAULT_ORDER);
      return sessionFilter == Integer.MIN_VALUE ? sessionFilter : sessionFilter - 1;
    }
  }

  /** The WebFlux filter, ordered first. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  @ConditionalOnClass(WebFilter.class)
  static class Reactive {
    @Bean(name = WEB_FILTER_NAME)
    @ConditionalOnMissingBean(name = WEB_FILTER_NAME)
    WebFilter lazySessionUnavailableWebFilter() {
      return new SessionStoreUnavailableWebFilter();
    }
  }
}
