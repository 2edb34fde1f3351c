package io.lazysession.redis.webfluxloginapp;

import java.security.Principal;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * A Spring Boot WebFlux app with Spring Security's form login as an application writes it, and
 * nothing of lazysession in its code: the limit of sessions per principal comes from properties
 * alone. The reactive twin of {@code loginapp.LoginApplication}.
 */
@SpringBootApplication
@EnableWebFluxSecurity
public class WebFluxLoginApplication {
  @Bean
  SecurityWebFilterChain security(ServerHttpSecurity http) {
    return http.authorizeExchange(exchanges -> exchanges.anyExchange().authenticated())
        .formLogin(Customizer.withDefaults())
        .build();
  }

  @Bean
  MapReactiveUserDetailsService users() {
    return new MapReactiveUserDetailsService(
        User.withUsername("ann").password("{noop}secret").roles("USER").build());
  }

  @RestController
  static class Me {
    @GetMapping("/me")
    Mono<String> me(Mono<Principal> principal) {
      return principal.map(Principal::getName);
    }
  }
}
