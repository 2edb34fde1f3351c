package io.lazysession.redis.refusalapp;

import ch.qos.logback.classic.Level;
import jakarta.servlet.http.HttpSession;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Boot web app with an error page of its own ({@code error/500.html} under
 * {@code classpath:/refusalapp/}) that puts into its session a value of a class outside the
 * allow-list (a logback {@link Level}), which the save at the end of the request refuses.
 */
@SpringBootApplication
public class RefusalApplication {
  /** What the app's error page says. */
  public static final String ERROR_PAGE = "Sorry, the shop could not keep your basket";

  @RestController
  static class Pages {
    @GetMapping("/refused")
    String refused(HttpSession session) {
      session.setAttribute("level", Level.INFO);
      return "stored";
    }

    @GetMapping("/visits")
    String visits(HttpSession session) {
      Integer visits = (Integer) session.getAttribute("visits");
      int now = visits == null ? 1 : visits + 1;
      session.setAttribute("visits", now);
      return String.valueOf(now);
    }
  }
}
