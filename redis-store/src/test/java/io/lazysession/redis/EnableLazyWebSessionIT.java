package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.redis.config.EnableLazyWebSession;
import io.lazysession.redis.config.LazySessionConfigurationException;
import io.lazysession.testing.RedisServerExtension;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.WebSession;
import org.springframework.web.server.session.WebSessionManager;

/** Plain Spring (no Boot): {@code @EnableLazyWebSession}, one configuration path with Boot's. */
class EnableLazyWebSessionIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @Configuration(proxyBeanMethods = false)
  @EnableLazyWebSession(namespace = "plain-webflux", redisUrl = "${test.redis.url}",
      maxInactiveIntervalInSeconds = 600)
  static class SessionConfig {}

  @Configuration(proxyBeanMethods = false)
  @EnableLazyWebSession(redisUrl = "${test.redis.url}", maxSessionsPerPrincipal = "1",
      maxSessionsAction = "refuse-new")
  static class LimitedConfig {}

  @Configuration(proxyBeanMethods = false)
  @EnableLazyWebSession(redisUrl = "${test.redis.url}", codec = "xml")
  static class BadCodecConfig {}

  static AnnotationConfigApplicationContext start(Class<?> config) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
        Map.of("test.redis.url", redis.uri().toURI().toString())));
    context.register(config);
    context.refresh();
    return context;
  }

  @Test
  void enableLazyWebSession_withRedisUrl_webSessionManagerStoresSessionsInRedis() {
    try (AnnotationConfigApplicationContext context = start(SessionConfig.class)) {
      LazyReactiveRedisSessionRepository repository =
          context.getBean(LazyReactiveRedisSessionRepository.class);
      assertThat(repository.servletRepository().namespace()).isEqualTo("plain-webflux");
      assertThat(repository.servletRepository().defaultMaxInactiveInterval()).hasMinutes(10);
      WebSessionManager manager = context.getBean(WebSessionManager.class);
      MockServerWebExchange exchange =
          MockServerWebExchange.from(MockServerHttpRequest.get("/").build());

      WebSession session = manager.getSession(exchange).block();
      session.getAttributes().put("visits", 1);
      session.save().block();

      LazySession stored = repository.findById(session.getId()).block();
      assertThat((Integer) stored.getAttribute("visits")).isEqualTo(1);
    }
  }

  @Test
  void enableLazyWebSession_maxSessionsPerPrincipal_definesTheSessionLimitWebFilter() {
    try (AnnotationConfigApplicationContext limited = start(LimitedConfig.class);
        AnnotationConfigApplicationContext unlimited = start(SessionConfig.class)) {
      assertThat(limited.getBeansOfType(SessionLimitWebFilter.class)).hasSize(1);
      assertThat(unlimited.getBeansOfType(SessionLimitWebFilter.class)).isEmpty();
    }
  }

  @Test
  void enableLazyWebSession_invalidAttribute_failsNamingTheAnnotation() {
    assertThatThrownBy(() -> start(BadCodecConfig.class).close())
        .hasRootCauseInstanceOf(RuntimeException.class)
        .satisfies(failure -> assertThat(failure).hasStackTraceContaining("@EnableLazyWebSession"))
        .satisfies(failure -> assertThat(failure)
            .hasStackTraceContaining(LazySessionConfigurationException.class.getSimpleName()));
  }
}
