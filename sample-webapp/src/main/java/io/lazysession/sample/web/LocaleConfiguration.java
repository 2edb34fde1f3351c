package io.lazysession.sample.web;

import java.util.Locale;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.LocaleResolver;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.i18n.LocaleChangeInterceptor;
import org.springframework.web.servlet.i18n.SessionLocaleResolver;

/**
 * The shop's language, chosen with {@code ?lang=de} (or {@code en}) on any page and kept in the HTTP
 * session by Spring MVC's {@link SessionLocaleResolver}: a {@link Locale} attribute that every node reads
 * from Redis. The texts come from {@code messages*.properties} through Spring Boot's message source.
 */
@Configuration(proxyBeanMethods = false)
class LocaleConfiguration implements WebMvcConfigurer {
  static final String LANGUAGE_PARAMETER = "lang";

  /** Named {@code localeResolver}: the bean name Spring MVC's DispatcherServlet looks up. */
  @Bean
  LocaleResolver localeResolver() {
    SessionLocaleResolver resolver = new SessionLocaleResolver();
    resolver.setDefaultLocale(Locale.ENGLISH);
    return resolver;
  }

  @Override
  public void addInterceptors(InterceptorRegistry registry) {
    LocaleChangeInterceptor interceptor = new LocaleChangeInterceptor();
    interceptor.setParamName(LANGUAGE_PARAMETER);
    interceptor.setIgnoreInvalidLocale(true);
    registry.addInterceptor(interceptor);
  }
}
