package io.lazysession.redis.config;

import io.lazysession.redis.LazyReactiveRedisSessionRepository;
import io.lazysession.redis.LazyRedisSessionRepository;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.session.ReactiveSessionRepository;
import org.springframework.session.config.annotation.web.server.SpringWebSessionConfiguration;
import org.springframework.web.server.session.WebSessionManager;
import reactor.core.publisher.Mono;

/**
 * Spring Boot auto-configuration for reactive web applications (WebFlux): {@code WebSession}s live
 * in Redis through {@link LazyReactiveRedisSessionRepository}, the reactive face of the
 * {@link LazyRedisSessionRepository} that {@link LazySessionAutoConfiguration} builds from the same
 * {@code spring.data.redis.*}, {@code spring.session.timeout} and {@code lazysession.*} settings.
 *
 * <p>Spring Session's {@code SpringWebSessionConfiguration} then provides the
 * {@code webSessionManager}, using the application's (or Boot's) {@code WebSessionIdResolver}, so
 * that {@code server.reactive.session.cookie.*} applies. Backs off when the application defines its
 * own {@link ReactiveSessionRepository}, and with {@code lazysession.enabled=false} (no repository
 * is built then).
 *
 * <p>Not supported yet, and refused at startup naming the property: {@code lazysession.durability.*}
 * and {@code lazysession.migrate-from}.
 */
@AutoConfiguration(after = LazySessionAutoConfiguration.class,
    beforeName = {
        "org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration",
        "org.springframework.boot.session.autoconfigure.SessionsEndpointAutoConfiguration",
        // Its reactive repository backs off only when this one's exists: said, not left to the
        // alphabetical order of the two names.
        "org.springframework.boot.session.data.redis.autoconfigure.SessionDataRedisAutoConfiguration"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({LazyReactiveRedisSessionRepository.class, WebSessionManager.class,
    ReactiveSessionRepository.class, Mono.class})
@ConditionalOnBean(LazyRedisSessionRepository.class)
@ConditionalOnMissingBean(ReactiveSessionRepository.class)
@Import(SpringWebSessionConfiguration.class)
public class LazyWebSessionAutoConfiguration {
  @Bean
  LazyReactiveRedisSessionRepository reactiveSessionRepository(
      LazyRedisSessionRepository repository) {
    return LazyWebSessionConfiguration.reactive(repository);
  }

  /**
   * Spring Security WebFlux's side of the limit of sessions per principal: see the imported
   * configuration. Whatever {@code lazysession.max-sessions-per-principal} is, for the reason
   * {@link LazySessionAutoConfiguration} gives (a condition on it would be fixed by Spring AOT).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = SessionLimitWebFluxSecurityConfiguration.SECURITY_WEB_FILTER_CHAIN)
  @Import(SessionLimitWebFluxSecurityConfiguration.class)
  static class SessionLimitSecurity {}
}
