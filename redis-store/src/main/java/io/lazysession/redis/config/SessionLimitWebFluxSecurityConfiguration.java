package io.lazysession.redis.config;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.SessionLimitWebFilter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Spring Security WebFlux with a limit of sessions per principal: the filter that refuses a sign-in
 * beyond the limit at authentication, so that the user lands on the login failure page
 * (docs/session-policies.md). The reactive twin of {@link SessionLimitSecurityConfiguration}: a web
 * filter instead of a customizer, as WebFlux security has no session authentication strategy to
 * add. Imported by the Boot auto-configuration whatever {@code lazysession.max-sessions-per-principal}
 * is (the filter passes everything through without a limit), and by {@link EnableLazyWebSession}
 * (through {@link Selector}) when its {@code maxSessionsPerPrincipal} is set; only with Spring
 * Security's WebFlux support on the class path.
 */
@Configuration(proxyBeanMethods = false)
class SessionLimitWebFluxSecurityConfiguration {
  static final String SECURITY_WEB_FILTER_CHAIN =
      "org.springframework.security.web.server.SecurityWebFilterChain";

  @Bean
  SessionLimitWebFilter lazySessionLimitWebFilter(LazyRedisSessionRepository repository) {
    return new SessionLimitWebFilter(repository);
  }

  /**
   * Imports the configuration for {@link EnableLazyWebSession} when the annotation sets a limit and
   * Spring Security's WebFlux support is on the class path.
   */
  static final class Selector implements ImportSelector {
    @Override
    public String[] selectImports(AnnotationMetadata metadata) {
      return AnnotationSettings.importsWhenLimited(metadata, EnableLazyWebSession.class,
          SECURITY_WEB_FILTER_CHAIN,
          "io.lazysession.redis.config.SessionLimitWebFluxSecurityConfiguration");
    }
  }
}
