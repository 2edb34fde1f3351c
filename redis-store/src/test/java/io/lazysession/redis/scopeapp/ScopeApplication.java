package io.lazysession.redis.scopeapp;

import jakarta.annotation.PreDestroy;
import jakarta.servlet.http.HttpSession;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Configuration;
import org.springframework.session.data.redis.config.annotation.web.http.EnableRedisHttpSession;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.annotation.SessionScope;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * Two {@code @SessionScope} beans with a destroy method, one by {@code @PreDestroy} and one by
 * {@link DisposableBean}, as an application has them: Spring keeps each bean and its destruction
 * callback in the session.
 */
@SpringBootApplication
public class ScopeApplication {
  /** What the destroy methods saw, in the order they ran (both nodes run in this JVM). */
  public static final List<String> DESTROYED = new CopyOnWriteArrayList<>();

  /** A bean whose destroy method is {@code @PreDestroy}. */
  @Component("cart")
  @SessionScope
  public static class Cart implements Serializable {
    private static final long serialVersionUID = 1L;
    private final List<String> items = new ArrayList<>();

    public void add(String item) {
      items.add(item);
    }

    public List<String> items() {
      return items;
    }

    @PreDestroy
    void close() {
      DESTROYED.add("cart " + items);
    }
  }

  /** A bean whose destroy method is {@link DisposableBean#destroy}. */
  @Component("wizard")
  @SessionScope
  public static class Wizard implements Serializable, DisposableBean {
    private static final long serialVersionUID = 1L;
    private String step = "start";

    public void step(String step) {
      this.step = step;
    }

    public String step() {
      return step;
    }

    @Override
    public void destroy() {
      DESTROYED.add("wizard " + step);
    }
  }

  /** Spring Session Data Redis instead of lazysession, for comparison (with lazysession.enabled=false). */
  @Configuration(proxyBeanMethods = false)
  @EnableRedisHttpSession
  public static class SpringSessionDataRedis {}

  @RestController
  static class Pages {
    private final Cart cart;
    private final Wizard wizard;

    Pages(Cart cart, Wizard wizard) {
      this.cart = cart;
      this.wizard = wizard;
    }

    @GetMapping("/add")
    String add(@RequestParam String item) {
      cart.add(item); // through the scoped proxy: methods, never fields
      wizard.step(item);
      return show();
    }

    @GetMapping("/show")
    String show() {
      return cart.items() + " " + wizard.step();
    }

    /** Ends the two beans as Spring's scope does ({@code SessionScope.remove}). */
    @GetMapping("/forget")
    String forget() {
      RequestAttributes attributes = RequestContextHolder.currentRequestAttributes();
      attributes.removeAttribute("scopedTarget.cart", RequestAttributes.SCOPE_SESSION);
      attributes.removeAttribute("scopedTarget.wizard", RequestAttributes.SCOPE_SESSION);
      return "forgotten";
    }

    @GetMapping("/id")
    String id(HttpSession session) {
      return session.getId();
    }

    /** What a sign-out does to the session. */
    @GetMapping("/invalidate")
    String invalidate(HttpSession session) {
      session.invalidate();
      return "invalidated";
    }
  }
}
