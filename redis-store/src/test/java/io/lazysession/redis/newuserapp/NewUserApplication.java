package io.lazysession.redis.newuserapp;

import jakarta.servlet.http.HttpSession;
import jakarta.servlet.http.HttpSessionBindingEvent;
import jakarta.servlet.http.HttpSessionBindingListener;
import java.io.Serializable;
import java.security.Principal;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.session.SessionDestroyedEvent;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.session.HttpSessionCreatedEvent;
import org.springframework.security.web.session.HttpSessionEventPublisher;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.Session;
import org.springframework.session.security.SpringSessionBackedSessionRegistry;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * What a team moving from Spring Session Data Redis typically has: form login with remember-me,
 * {@code maximumSessions(1)} through Spring Session's {@link SpringSessionBackedSessionRegistry},
 * an {@link HttpSessionEventPublisher}, and a value that listens to its binding.
 */
@SpringBootApplication
@EnableWebSecurity
public class NewUserApplication {
  /** Session events as Spring Security's listeners receive them. */
  public static final List<String> EVENTS = new CopyOnWriteArrayList<>();

  @Bean
  SecurityFilterChain security(HttpSecurity http,
      FindByIndexNameSessionRepository<? extends Session> sessions,
      UserDetailsService users,
      @org.springframework.beans.factory.annotation.Value("${newuser.fixation:change}") String fixation)
      throws Exception {
    return http.authorizeHttpRequests(requests -> requests
            .requestMatchers("/public/**").permitAll()
            .anyRequest().authenticated())
        .formLogin(Customizer.withDefaults())
        .rememberMe(remember -> remember.key("new-user-key").userDetailsService(users))
        .sessionManagement(session -> {
          switch (fixation) {
            case "migrate" -> session.sessionFixation().migrateSession();
            case "new" -> session.sessionFixation().newSession();
            default -> session.sessionFixation().changeSessionId();
          }
          session.maximumSessions(1)
              .sessionRegistry(new SpringSessionBackedSessionRegistry<>(sessions));
        })
        .build();
  }

  /**
   * Users as every node sees them alike (a shared database): not an in-memory manager, whose
   * password upgrade after a sign-in would differ between nodes and break remember-me cookies.
   */
  @Bean
  UserDetailsService users() {
    InMemoryUserDetailsManager users = new InMemoryUserDetailsManager(
        User.withUsername("ann").password("{noop}secret").roles("USER").build());
    return users::loadUserByUsername;
  }

  @Bean
  HttpSessionEventPublisher httpSessionEventPublisher() {
    return new HttpSessionEventPublisher();
  }

  @Bean
  ApplicationListener<HttpSessionCreatedEvent> created() {
    return event -> EVENTS.add("created " + event.getSession().getId());
  }

  @Bean
  ApplicationListener<SessionDestroyedEvent> destroyed() {
    return event -> EVENTS.add("destroyed " + event.getId());
  }

  /** A value that wants to know when it leaves the session, as a Servlet container tells it. */
  public static final class Tracked implements HttpSessionBindingListener, Serializable {
    private static final long serialVersionUID = 1L;
    public static final List<String> CALLS = new CopyOnWriteArrayList<>();
    private final String name;

    public Tracked(String name) {
      this.name = name;
    }

    @Override
    public void valueBound(HttpSessionBindingEvent event) {
      CALLS.add("bound " + name);
    }

    @Override
    public void valueUnbound(HttpSessionBindingEvent event) {
      CALLS.add("unbound " + name);
    }
  }

  @RestController
  static class Pages {
    @GetMapping("/me")
    String me(Principal principal, HttpSession session) {
      return principal.getName();
    }

    @GetMapping("/public/session")
    String session(HttpSession session) {
      return session.getId();
    }

    @GetMapping("/public/track")
    String track(@RequestParam String name, HttpSession session) {
      session.setAttribute("tracked", new Tracked(name));
      return "ok";
    }

    @GetMapping("/public/untrack")
    String untrack(HttpSession session) {
      session.removeAttribute("tracked");
      return "ok";
    }
  }
}
