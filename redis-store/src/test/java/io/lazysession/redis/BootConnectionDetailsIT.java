package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.redis.bootapp.ShopApplication;
import io.lazysession.redis.config.LazySessionAutoConfiguration;
import io.lazysession.redis.config.LazySessionConfigurationException;
import io.lazysession.redis.config.LazySessionRepositoryCustomizer;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The store's connection comes from Spring Boot's {@link DataRedisConnectionDetails} (what
 * {@code @ServiceConnection} and Docker Compose provide), with the application's Lettuce customizers
 * and {@link ClientResources}; (see BootSentinelAuthIT for Sentinel credentials).
 */
class BootConnectionDetailsIT {
  static ConfigurableApplicationContext start(Class<?> configuration, String... properties) {
    return new SpringApplicationBuilder(ShopApplication.class, configuration)
        .web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "lazysession.namespace=" + TestRedis.uniqueNamespace("details"))
        .properties(properties)
        .run();
  }

  static void assertRoundTrip(ConfigurableApplicationContext context) {
    LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);
    LazySession session = repository.createSession();
    session.setAttribute("greeting", "hello");
    repository.save(session);
    assertThat((String) repository.findById(session.getId()).getAttribute("greeting"))
        .isEqualTo("hello");
  }

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @Configuration(proxyBeanMethods = false)
  static class ServiceConnectionLike {
    @Bean
    DataRedisConnectionDetails redisConnectionDetails() {
      return new DataRedisConnectionDetails() {
        @Override
        public DataRedisConnectionDetails.Standalone getStandalone() {
          return DataRedisConnectionDetails.Standalone.of(redis.uri().getHost(),
              redis.uri().getPort());
        }
      };
    }

    @Bean
    LettuceClientConfigurationBuilderCustomizer clientName() {
      return builder -> builder.clientName("customized-session-store");
    }

    @Bean
    LazySessionRepositoryCustomizer touchEveryRequest() {
      return builder -> builder.touchInterval(java.time.Duration.ZERO);
    }
  }

  @Test
  void connectionDetailsBean_winsOverProperties_andCustomizersApply() {
    // spring.data.redis.url points nowhere: only the details bean leads to the harness's Redis.
    try (ConfigurableApplicationContext context = start(ServiceConnectionLike.class,
        "spring.data.redis.url=redis://127.0.0.1:1")) {
      assertRoundTrip(context);

      String clients = redis.sync(redis.primary(), commands -> commands.clientList());
      assertThat(clients).contains("name=customized-session-store");
      assertThat(context.getBean(LazyRedisSessionRepository.class).touchInterval()).isZero();
      RedisClient sessionClient = context.getBean(LazySessionAutoConfiguration.CLIENT_BEAN_NAME,
          RedisClient.class);
      ClientResources application = context.getBean(ClientResources.class);
      assertThat(sessionClient.getResources().eventLoopGroupProvider())
          .as("the application's event loops, not a second set")
          .isSameAs(application.eventLoopGroupProvider());
      assertThat(sessionClient.getResources().eventExecutorGroup())
          .isSameAs(application.eventExecutorGroup());
      assertThat(sessionClient.getResources().reconnectDelay().createDelay(30))
          .as("only the reconnect delay is the store's own").isEqualTo(Duration.ofMillis(500));
    }
  }

  @Test
  void flushModeImmediate_eachChangeIsInRedisBeforeTheRequestEnds() {
    try (ConfigurableApplicationContext context = start(ServiceConnectionLike.class,
        "spring.session.data.redis.flush-mode=immediate")) {
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);
      LazySession session = repository.createSession();
      assertThat(repository.findById(session.getId())).as("created at once").isNotNull();

      session.setAttribute("step", "1");

      LazySession elsewhere = repository.findById(session.getId());
      assertThat(elsewhere).isNotNull();
      assertThat((String) elsewhere.getAttribute("step")).isEqualTo("1");
      session.removeAttribute("step");
      assertThat(repository.findById(session.getId()).getAttributeNames()).isEmpty();
    }
  }

  @Test
  void flushModeUnknown_failsAtStartupNamingTheProperty() {
    assertThatThrownBy(() -> start(ServiceConnectionLike.class,
        "spring.session.data.redis.flush-mode=eventually"))
        .hasRootCauseInstanceOf(LazySessionConfigurationException.class)
        .rootCause().hasMessageContaining("spring.session.data.redis.flush-mode");
  }

  @Test
  void springSessionNamespace_isTheKeyPrefix() {
    String namespace = TestRedis.uniqueNamespace("spring-ns");
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
        ShopApplication.class, ServiceConnectionLike.class).web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.session.data.redis.namespace=" + namespace)
        .run()) {
      assertThat(context.getBean(LazyRedisSessionRepository.class).namespace())
          .isEqualTo(namespace);
    }
  }
}
