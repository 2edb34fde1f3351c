package io.lazysession.redis.webfluxapp;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.WebSession;
import reactor.core.publisher.Mono;

/** A tiny Spring Boot WebFlux app that uses the WebSession and nothing of lazysession directly. */
@SpringBootApplication
public class WebFluxShopApplication {

  /** A class of the application's own package: decodable without any allowed-packages setting. */
  public record Basket(List<String> items) implements Serializable {}

  @RestController
  static class SessionController {
    @GetMapping("/visits")
    Mono<String> visits(WebSession session) {
      Integer visits = session.getAttribute("visits");
      int now = visits == null ? 1 : visits + 1;
      session.getAttributes().put("visits", now);
      return Mono.just(Integer.toString(now));
    }

    @GetMapping("/basket/add/{item}")
    Mono<String> add(WebSession session, @PathVariable String item) {
      Basket basket = session.getAttribute("basket");
      List<String> items = new ArrayList<>(basket == null ? List.of() : basket.items());
      items.add(item);
      session.getAttributes().put("basket", new Basket(items));
      return Mono.just(String.join(",", items));
    }

    @GetMapping("/basket")
    Mono<String> basket(WebSession session) {
      Basket basket = session.getAttribute("basket");
      return Mono.just(basket == null ? "" : String.join(",", basket.items()));
    }

    @GetMapping("/sign-in/{name}")
    Mono<String> signIn(WebSession session, @PathVariable String name) {
      // As a login does: a new id against session fixation, then the principal.
      return session.changeSessionId().then(Mono.fromSupplier(() -> {
        session.getAttributes().put(
            "org.springframework.session.FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME",
            name);
        return name;
      }));
    }

    @GetMapping("/sign-in-first-visit/{name}")
    Mono<String> signInFirstVisit(WebSession session, @PathVariable String name) {
      // As Spring Security's WebSessionServerSecurityContextRepository signs in a visitor whose
      // first request this is (a login form without a session-held CSRF token, an API login):
      // the principal first, then a new id, saved at once.
      session.getAttributes().put(
          "org.springframework.session.FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME",
          name);
      return session.changeSessionId().thenReturn(name);
    }

    @GetMapping("/sign-out")
    Mono<String> signOut(WebSession session) {
      return session.invalidate().thenReturn("bye");
    }
  }
}
