package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.config.EnableLazyHttpSession;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.session.web.http.SessionRepositoryFilter;

/** Plain Spring (no Boot): {@code @EnableLazyHttpSession} with the context's RedisClient. */
class EnableLazyHttpSessionIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @Configuration(proxyBeanMethods = false)
  @EnableLazyHttpSession(namespace = "plain-spring", maxInactiveIntervalInSeconds = 600)
  static class SessionConfig {
    @Bean(destroyMethod = "shutdown")
    RedisClient redisClient() {
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
}
