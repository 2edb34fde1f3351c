package io.lazysession.it.corpus;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.testing.RedisServerExtension;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Issue 21's corpus, servlet face: what the Spring portfolio keeps in sessions for its ordinary
 * flows, over real HTTP, on two application nodes sharing one Redis, each step on one node and the
 * next on the other, with default settings only (the Redis URL, and a namespace per run).
 */
class SpringFlowsCorpusIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();
  private static final AtomicInteger RUNS = new AtomicInteger();

  static ConfigurableApplicationContext node1;
  static ConfigurableApplicationContext node2;

  @BeforeAll
  static void start() {
    String namespace = "corpus" + ProcessHandle.current().pid() + "x" + RUNS.incrementAndGet();
    node1 = start(namespace);
    node2 = start(namespace);
  }

  static ConfigurableApplicationContext start(String namespace) {
    return new SpringApplicationBuilder(CorpusApplication.class)
        .web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(), "lazysession.namespace=" + namespace)
        .run();
  }

  @AfterAll
  static void stop() {
    if (node1 != null) {
      node1.close();
    }
    if (node2 != null) {
      node2.close();
    }
  }

  private final HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager())
      .build();

  static int port(ConfigurableApplicationContext node) {
    return Integer.parseInt(node.getEnvironment().getProperty("local.server.port"));
  }

  HttpResponse<String> get(ConfigurableApplicationContext node, String path) throws Exception {
    return browser.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port(node) + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(ConfigurableApplicationContext node, String path, String form)
      throws Exception {
    return browser.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(node) + path))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static String csrf(String loginPage) {
    Matcher matcher = Pattern.compile("name=\"_csrf\"[^>]*value=\"([^\"]+)\"").matcher(loginPage);
    assertThat(matcher.find()).as("login page has a CSRF token: " + loginPage).isTrue();
    return URLEncoder.encode(matcher.group(1), StandardCharsets.UTF_8);
  }

  /** Saved request, CSRF token, failed sign-in, sign-in, security context: each on the other node. */
  @Test
  void formLogin_stepsAlternatingNodes_savedRequestFailureAndContextSurvive() throws Exception {
    HttpResponse<String> denied = get(node1, "/private");
    assertThat(denied.statusCode()).isEqualTo(302);
    assertThat(denied.headers().firstValue("Location")).hasValueSatisfying(
        location -> assertThat(location).endsWith("/login"));

    String token = csrf(get(node2, "/login").body());
    HttpResponse<String> failed = post(node1, "/login",
        "username=alice&password=wrong&_csrf=" + token);
    assertThat(failed.statusCode()).isEqualTo(302);
    assertThat(failed.headers().firstValue("Location")).hasValueSatisfying(
        location -> assertThat(location).endsWith("/login?error"));
    assertThat(get(node2, "/public/last-error").body())
        .isEqualTo("BadCredentialsException: Bad credentials");
    HttpResponse<String> errorPage = get(node2, "/login?error");
    assertThat(errorPage.statusCode()).isEqualTo(200);

    HttpResponse<String> signedIn = post(node1, "/login",
        "username=alice&password=secret&_csrf=" + csrf(errorPage.body()));
    assertThat(signedIn.statusCode()).isEqualTo(302);
    assertThat(signedIn.headers().firstValue("Location")).hasValueSatisfying(
        location -> assertThat(location).contains("/private"));
    HttpResponse<String> page = get(node2, "/private");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).isEqualTo("hello alice");
    assertThat(get(node1, "/private").body()).isEqualTo("hello alice");
    assertNothingHidden();
  }

  @Test
  void flashAttribute_setOnOneNode_shownByTheRedirectTargetOnTheOther() throws Exception {
    HttpResponse<String> redirect = get(node1, "/public/flash");
    assertThat(redirect.statusCode()).isEqualTo(302);

    assertThat(get(node2, "/public/flash/show").body()).isEqualTo("Added to your cart");
    assertThat(get(node1, "/public/flash/show").body()).isEqualTo("none");
  }

  @Test
  void sessionScopedBean_changedOnOneNode_seenOnTheOther() throws Exception {
    assertThat(get(node1, "/public/basket/add?item=book").body()).isEqualTo("book");
    assertThat(get(node2, "/public/basket/add?item=pen").body()).isEqualTo("book,pen");
    assertThat(get(node1, "/public/basket").body()).isEqualTo("book,pen");
  }

  @Test
  void localeAndTimeZone_setOnOneNode_resolvedOnTheOther() throws Exception {
    assertThat(get(node1, "/public/locale/set?tag=fr-FR&zone=Europe/Paris").body()).isEqualTo("ok");

    assertThat(get(node2, "/public/locale").body()).isEqualTo("fr-FR Europe/Paris");
  }

  @Test
  void sessionAttributes_setOnOneNode_boundOnTheOther() throws Exception {
    assertThat(get(node1, "/public/draft/set?text=hello").body()).isEqualTo("ok");

    assertThat(get(node2, "/public/draft").body()).isEqualTo("hello");
  }

  /** No attribute was refused or hidden on either node. */
  private static void assertNothingHidden() {
    assertThat(node1.getBean(LazyRedisSessionRepository.class).metrics().decodeFailures()
        + node2.getBean(LazyRedisSessionRepository.class).metrics().decodeFailures()).isZero();
  }
}
