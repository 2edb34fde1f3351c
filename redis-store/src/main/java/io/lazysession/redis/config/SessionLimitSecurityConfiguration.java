package io.lazysession.redis.config;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.SessionLimitAuthenticationStrategy;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;

/**
 * Spring Security with a limit of sessions per principal: every {@code HttpSecurity} gets the
 * strategy that refuses a sign-in beyond the limit at authentication, so that the user lands on the
 * login failure page (docs/session-policies.md). Imported by the Boot auto-configuration whatever
 * {@code lazysession.max-sessions-per-principal} is (the strategy admits everything without a
 * limit, and the property may be given only at run time to an application built for Spring AOT),
 * and by {@link EnableLazyHttpSession} (through {@link Selector}) when its
 * {@code maxSessionsPerPrincipal} is set; only with Spring Security's configuration on the class
 * path.
 */
@Configuration(proxyBeanMethods = false)
class SessionLimitSecurityConfiguration {
  static final String HTTP_SECURITY =
      "org.springframework.security.config.annotation.web.builders.HttpSecurity";

  @Bean
  Customizer<HttpSecurity> lazySessionLimitStrategy(LazyRedisSessionRepository repository) {
    SessionLimitAuthenticationStrategy strategy = new SessionLimitAuthenticationStrategy(repository);
    return http -> http.sessionManagement(
        sessions -> sessions.addSessionAuthenticationStrategy(strategy));
  }

  /**
   * Imports the configuration for {@link EnableLazyHttpSession} when the annotation sets a limit
   * and Spring Security's {@code HttpSecurity} is on the class path (nothing of Spring Security is
   * loaded otherwise).
   */
  static final class Selector implements ImportSelector {
    @Override
    public String[] selectImports(AnnotationMetadata metadata) {
      return AnnotationSettings.importsWhenLimited(metadata, EnableLazyHttpSession.class,
          HTTP_SECURITY, "io.lazysession.redis.config.SessionLimitSecurityConfiguration");
    }
  }
}
