package io.lazysession.redis;

import io.lazysession.redis.webfluxloginapp.WebFluxLoginApplication;
import io.lazysession.testing.RedisServerExtension;
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
    SessionLimitLoginIT.refuseNew_secondSignIn_landsOnTheLoginFailurePage(
        SessionLimitWebFluxLoginIT::start);
  }

  @Test
  void login_evictOldestBeyondTheLimit_signsTheFirstBrowserOut() throws Exception {
    SessionLimitLoginIT.evictOldest_secondSignIn_signsTheFirstBrowserOut(
        SessionLimitWebFluxLoginIT::start);
  }
}
