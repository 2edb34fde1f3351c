package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.bootapp.ShopApplication;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.session.Session;
import org.springframework.session.SessionRepository;
import org.springframework.session.data.redis.RedisSessionRepository;

/**
 * {@code lazysession.migrate-from} in a Spring Boot application: a session Spring Session Data Redis
 * stored under {@code spring.session.data.redis.namespace} is served, and taken over at its first save.
 * (How a take-over works is {@link SpringSessionDataRedisMigrationIT}'s subject.)
 */
class BootMigrateFromIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static LettuceConnectionFactory connectionFactory;

  @BeforeAll
  static void connect() {
    RedisURI uri = redis.uri();
    connectionFactory = new LettuceConnectionFactory(
        new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
    connectionFactory.afterPropertiesSet();
    connectionFactory.start();
  }

  @AfterAll
  static void shutdown() {
    connectionFactory.destroy();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static SessionRepository<Session> springSessionDataRedis(String namespace) {
    RedisSessionRepository repository = new RedisSessionRepository(
        SpringSessionDataRedisMigrationIT.ssdrTemplate(connectionFactory));
    repository.setRedisKeyNamespace(namespace);
    return (SessionRepository) repository;
  }

  static ConfigurableApplicationContext start(String... properties) {
    return new SpringApplicationBuilder(ShopApplication.class)
        .web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(), "lazysession.cleanup-interval=0")
        .properties(properties)
        .run();
  }

  @Test
  void migrateFrom_springSessionNamespace_sessionServedAndTakenOver() {
    SessionRepository<Session> ssdr = springSessionDataRedis("boot-shop");
    Session stored = ssdr.createSession();
    stored.setAttribute("user", "ada");
    ssdr.save(stored);

    try (ConfigurableApplicationContext context = start(
        "lazysession.migrate-from=spring-session-data-redis",
        "spring.session.data.redis.namespace=boot-shop")) {
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);
      LazySession session = repository.findById(stored.getId());

      assertThat(session).isNotNull();
      assertThat((String) session.getAttribute("user")).isEqualTo("ada");
      repository.save(session);
      assertThat(ssdr.findById(stored.getId())).isNull();
      assertThat(repository.metrics().sessionsMigrated()).isEqualTo(1);
      assertThat((String) repository.findById(stored.getId()).getAttribute("user"))
          .isEqualTo("ada");
    }
  }

  @Test
  void migrateFrom_unset_springSessionDataRedisSessionIsNotRead() {
    SessionRepository<Session> ssdr = springSessionDataRedis("spring:session");
    Session stored = ssdr.createSession();
    stored.setAttribute("user", "grace");
    ssdr.save(stored);

    try (ConfigurableApplicationContext context = start()) {
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);

      assertThat(repository.findById(stored.getId())).isNull();
      assertThat(ssdr.findById(stored.getId())).isNotNull();
    }
  }
}
