package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lazysession.redis.config.EnableLazyHttpSession;
import io.lazysession.redis.config.LazySessionAutoConfiguration;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.session.web.http.SessionRepositoryFilter;

/** Plain Spring (no Boot): {@code @EnableLazyHttpSession}, one configuration path with Boot's. */
class EnableLazyHttpSessionIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @Configuration(proxyBeanMethods = false)
  @EnableLazyHttpSession(namespace = "plain-spring", maxInactiveIntervalInSeconds = 600)
  static class SessionConfig {
    @Bean(name = LazySessionAutoConfiguration.CLIENT_BEAN_NAME, destroyMethod = "shutdown")
    RedisClient sessionRedisClient() {
      return RedisClient.create(redis.uri());
    }
  }

  @Test
  void enableLazyHttpSession_withRedisClientBean_registersRepositoryAndFilter() {
    try (AnnotationConfigApplicationContext context =
        new AnnotationConfigApplicationContext(SessionConfig.class)) {
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);
      assertThat(context.getBeansOfType(SessionRepositoryFilter.class)).hasSize(1);
      assertThat(repository.namespace()).isEqualTo("plain-spring");
      assertThat(repository.defaultMaxInactiveInterval()).hasMinutes(10);

      LazySession session = repository.createSession();
      session.setAttribute("basket", ShopFixtures.attributes().get("cart")); // annotated package
      repository.save(session);
      assertThat((Object) repository.findById(session.getId()).getAttribute("basket"))
          .isEqualTo(ShopFixtures.attributes().get("cart"));
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableLazyHttpSession(namespace = "plain-spring-url", redisUrl = "${test.redis.url}")
  static class UrlSessionConfig {}

  @Test
  void enableLazyHttpSession_withRedisUrl_buildsAFailFastClient() {
    Logger connectionLogger = (Logger) LoggerFactory.getLogger(SessionConnection.class);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    connectionLogger.addAppender(logs);
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
      context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
          Map.of("test.redis.url", redis.uri().toURI().toString())));
      context.register(UrlSessionConfig.class);
      context.refresh();
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);

      LazySession session = repository.createSession();
      repository.save(session);

      assertThat(repository.findById(session.getId())).isNotNull();
      assertThat(logs.list).as("warnings about a client that does not fail fast")
          .noneMatch(event -> event.getFormattedMessage().contains("REJECT_COMMANDS"));
    } finally {
      connectionLogger.detachAppender(logs);
    }
  }

  @Test
  void enableLazyHttpSession_onAClassInTheDefaultPackage_starts() throws Exception {
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
      context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
          Map.of("test.redis.url", redis.uri().toURI().toString())));
      // Loaded by name: a class of the default package cannot be imported.
      context.register(Class.forName("DefaultPackageSessionConfig"));
      context.refresh();
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);

      LazySession session = repository.createSession();
      session.setAttribute("visits", 1);
      repository.save(session);
      assertThat((Integer) repository.findById(session.getId()).getAttribute("visits"))
          .isEqualTo(1);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableLazyHttpSession(redisUrl = "${test.redis.url}", codec = "jdk", compression = "none",
      nearCacheMaxBytes = "0")
  static class AttributesConfig {}

  @Test
  void enableLazyHttpSession_codecAndCompressionAttributes_decideWhatIsWritten() throws Exception {
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
      context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
          Map.of("test.redis.url", redis.uri().toURI().toString())));
      context.register(AttributesConfig.class);
      context.refresh();
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);
      LazySession session = repository.createSession();
      session.setAttribute("note", "x".repeat(2000));
      repository.save(session);

      RedisClient client = RedisClient.create(redis.uri());
      try {
        byte[] stored = TestRedis.rawCommands(client).hget(
            (repository.namespace() + ":s:{" + session.getId() + "}").getBytes(),
            "note".getBytes());
        // JDK serialization's stream magic, uncompressed: the attributes were applied.
        assertThat(indexOf(stored, new byte[] {(byte) 0xAC, (byte) 0xED, 0x00, 0x05}))
            .isNotNegative();
      } finally {
        client.shutdown();
      }
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  @Configuration(proxyBeanMethods = false)
  @EnableLazyHttpSession(namespace = "plain-spring-limit", redisUrl = "${test.redis.url}",
      maxSessionsPerPrincipal = "1", maxSessionsAction = "refuse-new")
  static class LimitSessionConfig {}

  @Test
  void enableLazyHttpSession_withALimit_addsTheStrategyToSpringSecurity() {
    try (AnnotationConfigApplicationContext withLimit = context(LimitSessionConfig.class);
        AnnotationConfigApplicationContext without = context(UrlSessionConfig.class)) {
      assertThat(withLimit.getBeanNamesForType(
          org.springframework.security.config.Customizer.class))
          .containsExactly("lazySessionLimitStrategy");
      assertThat(without.getBeanNamesForType(
          org.springframework.security.config.Customizer.class)).isEmpty();
    }
  }

  private static AnnotationConfigApplicationContext context(Class<?> configuration) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
        Map.of("test.redis.url", redis.uri().toURI().toString())));
    context.register(configuration);
    context.refresh();
    return context;
  }
}
