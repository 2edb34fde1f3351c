package io.lazysession.redis;

import static io.lazysession.redis.SessionLimitLoginIT.browser;
import static io.lazysession.redis.SessionLimitLoginIT.me;
import static io.lazysession.redis.SessionLimitLoginIT.signIn;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.webfluxloginapp.WebFluxLoginApplication;
import io.lazysession.testing.RedisServerExtension;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The reactive twin of {@link SessionLimitLoginIT}: the limit of sessions per principal in a Spring
 * Security WebFlux form login, switched on by properties alone, over two nodes: with refuse-new a
 * second sign-in lands on the login failure page (not an error), with evict-oldest it signs in and
 * the first browser is signed out.
 */
class SessionLimitWebFluxLoginIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static ConfigurableApplicationContext start(String namespace, String action) {
    return new SpringApplicationBuilder(WebFluxLoginApplication.class)
        .web(WebApplicationType.REACTIVE)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(), "lazysession.namespace=" + namespace,
            "lazysession.max-sessions-per-principal=1", "lazysession.max-sessions-action=" + action)
        .run();
  }

  @Test
  void login_refuseNewBeyondTheLimit_landsOnTheLoginFailurePage() throws Exception {
    String namespace = TestRedis.uniqueNamespace("rx-login-refuse");
    try (ConfigurableApplicationContext node1 = start(namespace, "refuse-new");
        ConfigurableApplicationContext node2 = start(namespace, "refuse-new")) {
      HttpClient laptop = browser();
      HttpClient phone = browser();
      HttpResponse<String> first = signIn(laptop, node1);
      assertThat(first.statusCode()).isEqualTo(302);
      assertThat(first.headers().firstValue("Location")).hasValueSatisfying(
          location -> assertThat(location).doesNotContain("error"));

      HttpResponse<String> second = signIn(phone, node2);

      assertThat(second.statusCode()).as("a failed login, not an error").isEqualTo(302);
      assertThat(second.headers().firstValue("Location")).hasValueSatisfying(
          location -> assertThat(location).endsWith("/login?error"));
      assertThat(me(phone, node2).statusCode()).as("not signed in").isEqualTo(302);
      assertThat(me(laptop, node2).body()).isEqualTo("ann");
      assertThat(me(laptop, node1).body()).isEqualTo("ann");
      assertThat(node1.getBean(LazyRedisSessionRepository.class).findByPrincipalName("ann"))
          .hasSize(1);
    }
  }

  @Test
  void login_evictOldestBeyondTheLimit_signsTheFirstBrowserOut() throws Exception {
    String namespace = TestRedis.uniqueNamespace("rx-login-evict");
    try (ConfigurableApplicationContext node1 = start(namespace, "evict-oldest");
        ConfigurableApplicationContext node2 = start(namespace, "evict-oldest")) {
      HttpClient laptop = browser();
      HttpClient phone = browser();
      assertThat(signIn(laptop, node1).statusCode()).isEqualTo(302);
      assertThat(me(laptop, node2).body()).isEqualTo("ann");

      HttpResponse<String> second = signIn(phone, node2);

      assertThat(second.statusCode()).isEqualTo(302);
      assertThat(second.headers().firstValue("Location")).hasValueSatisfying(
          location -> assertThat(location).doesNotContain("error"));
      assertThat(me(phone, node1).body()).isEqualTo("ann");
      assertThat(me(laptop, node1).statusCode()).as("signed out").isEqualTo(302);
      assertThat(me(laptop, node2).statusCode()).as("signed out").isEqualTo(302);
      assertThat(node1.getBean(LazyRedisSessionRepository.class).findByPrincipalName("ann"))
          .hasSize(1);
    }
  }
}
