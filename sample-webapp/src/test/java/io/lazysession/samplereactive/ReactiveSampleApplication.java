package io.lazysession.samplereactive;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.core.oidc.user.OidcUser;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.WebSession;
import reactor.core.publisher.Mono;

/**
 * A WebFlux application signed into with OpenID Connect, whose WebSession (Spring Security's
 * authorization request, saved request and security context) lives in Redis through lazysession's
 * reactive auto-configuration; nothing of lazysession is used directly.
 */
@SpringBootApplication
public class ReactiveSampleApplication {
  @Bean
  SecurityWebFilterChain security(ServerHttpSecurity http) {
    return http.authorizeExchange(exchanges -> exchanges.anyExchange().authenticated())
        .oauth2Login(Customizer.withDefaults())
        .build();
  }

  @RestController
  static class AccountController {
    @GetMapping("/me")
    Mono<String> me(@AuthenticationPrincipal OidcUser user, WebSession session) {
      Integer visits = session.getAttribute("visits");
      int now = visits == null ? 1 : visits + 1;
      session.getAttributes().put("visits", now);
      return Mono.just(user.getFullName() + " " + now);
    }
  }
}
