package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.loginapp.LoginApplication;
import io.lazysession.testing.RedisServerExtension;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The limit of sessions per principal in a Spring Security form login, switched on by properties
 * alone, over two nodes: with refuse-new a second sign-in lands on the login failure page (not an
 * error), with evict-oldest it signs in and the first browser is signed out.
 */
class SessionLimitLoginIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private static final Pattern CSRF = Pattern.compile("name=\"_csrf\"[^>]*value=\"([^\"]+)\"");

  static ConfigurableApplicationContext start(String namespace, String action) {
    return new SpringApplicationBuilder(LoginApplication.class).web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(), "lazysession.namespace=" + namespace,
            "lazysession.max-sessions-per-principal=1", "lazysession.max-sessions-action=" + action)
        .run();
  }

  static String base(ConfigurableApplicationContext node) {
    return "http://127.0.0.1:" + node.getEnvironment().getProperty("local.server.port");
  }

  static HttpClient browser() {
    return HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
  }

  /** Opens the login page and posts the form; the response to the post. */
  static HttpResponse<String> signIn(HttpClient browser, ConfigurableApplicationContext node)
      throws Exception {
    return signIn(browser, base(node));
  }

  /** Opens the login page of the node at {@code base} and posts the form; the response to the post. */
  static HttpResponse<String> signIn(HttpClient browser, String base) throws Exception {
    HttpResponse<String> page = browser.send(HttpRequest.newBuilder(
        URI.create(base + "/login")).build(), HttpResponse.BodyHandlers.ofString());
    Matcher csrf = CSRF.matcher(page.body());
    assertThat(csrf.find()).as("the login page's CSRF token").isTrue();
    String form = "username=ann&password=secret&_csrf="
        + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8);
    return browser.send(HttpRequest.newBuilder(URI.create(base + "/login"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> me(HttpClient browser, ConfigurableApplicationContext node)
      throws Exception {
    return me(browser, base(node));
  }

  static HttpResponse<String> me(HttpClient browser, String base) throws Exception {
    return browser.send(HttpRequest.newBuilder(URI.create(base + "/me")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Starts a node of the login app on {@code namespace} with the limit 1 and {@code action}. */
  interface Nodes {
    ConfigurableApplicationContext start(String namespace, String action);
  }

  @Test
  void login_refuseNewBeyondTheLimit_landsOnTheLoginFailurePage() throws Exception {
    refuseNew_secondSignIn_landsOnTheLoginFailurePage(SessionLimitLoginIT::start);
  }

  @Test
  void login_evictOldestBeyondTheLimit_signsTheFirstBrowserOut() throws Exception {
    evictOldest_secondSignIn_signsTheFirstBrowserOut(SessionLimitLoginIT::start);
  }

  /**
   * The refused sign-in's failure, which Spring Security keeps in the session for the login page
   * ({@code SPRING_SECURITY_LAST_EXCEPTION}), tells the user the limit of sessions was reached, in
   * Spring Security's words, and shows none of the store's settings.
   */
  @Test
  void login_refuseNewBeyondTheLimit_lastExceptionSaysTheLimitOfSessionsWasReached()
      throws Exception {
    String namespace = TestRedis.uniqueNamespace("login-refuse-message");
    try (ConfigurableApplicationContext node1 = start(namespace, "refuse-new");
        ConfigurableApplicationContext node2 = start(namespace, "refuse-new")) {
      CookieManager phoneCookies = new CookieManager();
      signIn(browser(), node1);

      HttpResponse<String> second = signIn(
          HttpClient.newBuilder().cookieHandler(phoneCookies).build(), node2);

      assertThat(second.headers().firstValue("Location")).hasValueSatisfying(
          location -> assertThat(location).endsWith("/login?error"));
      String id = new String(java.util.Base64.getDecoder().decode(phoneCookies.getCookieStore()
          .getCookies().stream().filter(cookie -> cookie.getName().equals("SESSION"))
          .findFirst().orElseThrow().getValue()), StandardCharsets.UTF_8);
      LazySession session = node1.getBean(LazyRedisSessionRepository.class).findById(id);
      assertThat(session).isNotNull();
      Object failure = session.getAttribute("SPRING_SECURITY_LAST_EXCEPTION");
      assertThat(failure).isInstanceOf(SessionLimitAuthenticationException.class);
      assertThat(((Exception) failure).getMessage())
          .isEqualTo("Maximum sessions of 1 for this principal exceeded");
    }
  }

  /** Two browsers sign in as one user on two nodes with refuse-new: the second fails as a login. */
  static void refuseNew_secondSignIn_landsOnTheLoginFailurePage(Nodes nodes) throws Exception {
    String namespace = TestRedis.uniqueNamespace("login-refuse");
    try (ConfigurableApplicationContext node1 = nodes.start(namespace, "refuse-new");
        ConfigurableApplicationContext node2 = nodes.start(namespace, "refuse-new")) {
      HttpClient laptop = browser();
      HttpClient phone = browser();
      HttpResponse<String> first = signIn(laptop, node1);
      assertThat(first.statusCode()).isEqualTo(302);
      assertThat(first.headers().firstValue("Location")).hasValueSatisfying(
          location -> assertThat(location).doesNotContain("error"));

      HttpResponse<String> second = signIn(phone, node2);

      assertThat(second.statusCode()).as("a failed login, not an error").isEqualTo(302);
      assertThat(second.headers().firstValue("Location")).hasValueSatisfying(
          location -> assertThat(location).endsWith("/login?error"));
      assertThat(me(phone, node2).statusCode()).as("not signed in").isEqualTo(302);
      assertThat(me(laptop, node2).body()).isEqualTo("ann");
      assertThat(me(laptop, node1).body()).isEqualTo("ann");
      assertThat(node1.getBean(LazyRedisSessionRepository.class).findByPrincipalName("ann"))
          .hasSize(1);
    }
  }

  /** Two browsers sign in as one user on two nodes with evict-oldest: the first is signed out. */
  static void evictOldest_secondSignIn_signsTheFirstBrowserOut(Nodes nodes) throws Exception {
    String namespace = TestRedis.uniqueNamespace("login-evict");
    try (ConfigurableApplicationContext node1 = nodes.start(namespace, "evict-oldest");
        ConfigurableApplicationContext node2 = nodes.start(namespace, "evict-oldest")) {
      HttpClient laptop = browser();
      HttpClient phone = browser();
      assertThat(signIn(laptop, node1).statusCode()).isEqualTo(302);
      assertThat(me(laptop, node2).body()).isEqualTo("ann");

      HttpResponse<String> second = signIn(phone, node2);

      assertThat(second.statusCode()).isEqualTo(302);
      assertThat(second.headers().firstValue("Location")).hasValueSatisfying(
          location -> assertThat(location).doesNotContain("error"));
      assertThat(me(phone, node1).body()).isEqualTo("ann");
      assertThat(me(laptop, node1).statusCode()).as("signed out").isEqualTo(302);
      assertThat(me(laptop, node2).statusCode()).as("signed out").isEqualTo(302);
      assertThat(node1.getBean(LazyRedisSessionRepository.class).findByPrincipalName("ann"))
          .hasSize(1);
    }
  }
}
