package io.lazysession.redis.bootapp;

import jakarta.servlet.http.HttpSession;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** A tiny Spring Boot web app that uses the HTTP session and nothing of lazysession directly. */
@SpringBootApplication
public class ShopApplication {

  /** A class of the application's own package: decodable without any allowed-packages setting. */
  public record Basket(List<String> items) implements Serializable {}

  @RestController
  static class SessionController {
    @GetMapping("/visits")
    String visits(HttpSession session) {
      Integer visits = (Integer) session.getAttribute("visits");
      int now = visits == null ? 1 : visits + 1;
      session.setAttribute("visits", now);
      return Integer.toString(now);
    }

    @GetMapping("/basket/add/{item}")
    String add(HttpSession session, @PathVariable String item) {
      Basket basket = (Basket) session.getAttribute("basket");
      List<String> items = new ArrayList<>(basket == null ? List.of() : basket.items());
      items.add(item);
      session.setAttribute("basket", new Basket(items));
      return String.join(",", items);
    }

    @GetMapping("/basket")
    String basket(HttpSession session) {
      Basket basket = (Basket) session.getAttribute("basket");
      return basket == null ? "" : String.join(",", basket.items());
    }
  }
}
