package io.lazysession.it.reactivecorpus;

import java.io.Serializable;
import java.security.Principal;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.stereotype.Controller;
import org.springframework.http.MediaType;
import java.nio.charset.StandardCharsets;
import org.springframework.web.reactive.config.ViewResolverRegistry;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.reactive.result.view.View;
import org.springframework.web.bind.annotation.SessionAttributes;
import reactor.core.publisher.Mono;

/**
 * The WebFlux twin of the servlet corpus application: Spring Security form login (saved request,
 * CSRF token, security context in the WebSession) and {@code @SessionAttributes}. No lazysession
 * setting.
 */
@SpringBootApplication
public class ReactiveCorpusApplication {
  @Bean
  SecurityWebFilterChain security(ServerHttpSecurity http) {
    return http.authorizeExchange(exchanges -> exchanges
            .pathMatchers("/public/**").permitAll()
            .anyExchange().authenticated())
        .formLogin(Customizer.withDefaults())
        .build();
  }

  @Bean
  MapReactiveUserDetailsService users() {
    return new MapReactiveUserDetailsService(User.withUsername("alice").password("{noop}secret")
        .roles("USER").build());
  }

  /** What {@code @SessionAttributes} keeps between requests. */
  public record Draft(String text) implements Serializable {}

  /**
   * Views that write the draft as text. WebFlux stores {@code @SessionAttributes} when it renders a
   * view (not for a {@code @ResponseBody}), so the draft pages render one.
   */
  @Bean
  WebFluxConfigurer textViews() {
    return new WebFluxConfigurer() {
      @Override
      public void configureViewResolvers(ViewResolverRegistry registry) {
        registry.viewResolver((name, locale) -> Mono.just(new DraftView()));
      }
    };
  }

  /** Writes the model's draft as text. */
  static class DraftView implements View {
    @Override
    public java.util.List<MediaType> getSupportedMediaTypes() {
      return java.util.List.of(MediaType.TEXT_HTML, MediaType.TEXT_PLAIN);
    }

    @Override
    public Mono<Void> render(java.util.@org.jspecify.annotations.Nullable Map<String, ?> model,
        @org.jspecify.annotations.Nullable MediaType contentType,
        org.springframework.web.server.ServerWebExchange exchange) {
      Object draft = model == null ? null : model.get("draft");
      byte[] text = (draft instanceof Draft d ? d.text() : "").getBytes(StandardCharsets.UTF_8);
      exchange.getResponse().getHeaders().setContentType(MediaType.TEXT_PLAIN);
      return exchange.getResponse().writeWith(
          Mono.just(exchange.getResponse().bufferFactory().wrap(text)));
    }
  }

  @Controller
  @SessionAttributes("draft")
  static class Pages {
    @GetMapping("/private")
    @ResponseBody
    Mono<String> hello(Mono<Principal> principal) {
      return principal.map(p -> "hello " + p.getName());
    }

    @ModelAttribute("draft")
    Draft draft() {
      return new Draft("");
    }

    @GetMapping("/public/draft/set")
    String setDraft(@RequestParam String text, Model model) {
      model.addAttribute("draft", new Draft(text));
      return "draft";
    }

    @GetMapping("/public/draft")
    String draft(@ModelAttribute("draft") Draft draft) {
      return "draft";
    }
  }
}
