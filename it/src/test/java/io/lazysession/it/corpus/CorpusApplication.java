package io.lazysession.it.corpus;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TimeZone;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.i18n.SimpleTimeZoneAwareLocaleContext;
import org.springframework.context.i18n.TimeZoneAwareLocaleContext;
import org.springframework.security.web.WebAttributes;
import jakarta.servlet.http.HttpSession;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.stereotype.Component;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.SessionAttributes;
import org.springframework.web.context.annotation.SessionScope;
import org.springframework.web.servlet.LocaleResolver;
import org.springframework.web.servlet.i18n.SessionLocaleResolver;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;
import org.springframework.web.servlet.view.RedirectView;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * An ordinary Spring Boot MVC application with Spring Security form login, as a team writes one:
 * each of its pages keeps in the session what Spring keeps there for a common flow (saved request,
 * CSRF token, failed and successful sign-in, flash attributes, a session-scoped bean, a locale and
 * time zone, {@code @SessionAttributes}). No lazysession setting.
 */
@SpringBootApplication
public class CorpusApplication {
  @Bean
  SecurityFilterChain security(HttpSecurity http) throws Exception {
    http.authorizeHttpRequests(requests -> requests
            .requestMatchers("/public/**").permitAll()
            .anyRequest().authenticated())
        .formLogin(Customizer.withDefaults());
    return http.build();
  }

  @Bean
  UserDetailsService users() {
    return new InMemoryUserDetailsManager(User.withUsername("alice").password("{noop}secret")
        .roles("USER").build());
  }

  @Bean
  LocaleResolver localeResolver() {
    return new SessionLocaleResolver();
  }

  /** A session-scoped bean with a destroy method: Spring also stores its destruction callback. */
  @Component
  @SessionScope
  public static class Basket implements Serializable, DisposableBean {
    private static final long serialVersionUID = 1L;
    private final List<String> items = new ArrayList<>();

    /** Methods, not fields: the controller holds Spring's scoped proxy, not the bean itself. */
    public String add(String item) {
      items.add(item);
      return String.join(",", items);
    }

    public String items() {
      return String.join(",", items);
    }

    @Override
    public void destroy() {
      items.clear();
    }
  }

  /** What {@code @SessionAttributes} keeps between requests. */
  public record Draft(String text) implements Serializable {}

  @RestController
  @SessionAttributes("draft")
  static class Pages {
    private final Basket basket;
    private final LocaleResolver locales;

    Pages(Basket basket, LocaleResolver locales) {
      this.basket = basket;
      this.locales = locales;
    }

    @GetMapping("/private")
    String hello(java.security.Principal principal) {
      return "hello " + principal.getName();
    }

    /** The last failed sign-in, as Spring Security's failure handler keeps it in the session. */
    @GetMapping("/public/last-error")
    String lastError(HttpSession session) {
      Object failure = session.getAttribute(WebAttributes.AUTHENTICATION_EXCEPTION);
      return failure == null ? "none" : failure.getClass().getSimpleName() + ": "
          + ((Exception) failure).getMessage();
    }

    @GetMapping("/public/flash")
    RedirectView flash(RedirectAttributes redirect) {
      redirect.addFlashAttribute("message", "Added to your cart");
      return new RedirectView("/public/flash/show", true);
    }

    @GetMapping("/public/flash/show")
    String showFlash(Model model) {
      Object message = model.getAttribute("message");
      return message == null ? "none" : message.toString();
    }

    @GetMapping("/public/basket/add")
    String add(@RequestParam String item) {
      return basket.add(item);
    }

    @GetMapping("/public/basket")
    String basket() {
      return basket.items();
    }

    @GetMapping("/public/locale/set")
    String setLocale(@RequestParam String tag, @RequestParam String zone,
        HttpServletRequest request, HttpServletResponse response) {
      ((SessionLocaleResolver) locales).setLocaleContext(request, response,
          new SimpleTimeZoneAwareLocaleContext(Locale.forLanguageTag(tag), TimeZone.getTimeZone(zone)));
      return "ok";
    }

    @GetMapping("/public/locale")
    String locale(HttpServletRequest request) {
      TimeZoneAwareLocaleContext context = (TimeZoneAwareLocaleContext)
          ((SessionLocaleResolver) locales).resolveLocaleContext(request);
      return context.getLocale().toLanguageTag() + " " + context.getTimeZone().getID();
    }

    @ModelAttribute("draft")
    Draft draft() {
      return new Draft("");
    }

    /** The session exists before the body is written: @SessionAttributes stores after it. */
    @GetMapping("/public/draft/set")
    String setDraft(@RequestParam String text, Model model, HttpSession session) {
      model.addAttribute("draft", new Draft(text));
      return "ok";
    }

    @GetMapping("/public/draft")
    @ResponseBody
    String draft(@ModelAttribute("draft") Draft draft) {
      return draft.text();
    }
  }
}
