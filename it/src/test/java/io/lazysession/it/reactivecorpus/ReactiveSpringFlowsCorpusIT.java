package io.lazysession.it.reactivecorpus;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Issue 21's corpus, WebFlux face: Spring Security's WebSession state and {@code @SessionAttributes}
 * over real HTTP on two nodes sharing one Redis, each step on one node and the next on the other,
 * with default settings only (the Redis URL, and a namespace per run).
 */
class ReactiveSpringFlowsCorpusIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static ConfigurableApplicationContext node1;
  static ConfigurableApplicationContext node2;

  @BeforeAll
  static void start() {
    String namespace = "rcorpus" + ProcessHandle.current().pid();
    node1 = start(namespace);
    node2 = start(namespace);
  }

  static ConfigurableApplicationContext start(String namespace) {
    return new SpringApplicationBuilder(ReactiveCorpusApplication.class)
        .web(WebApplicationType.REACTIVE)
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
    // As a browser asks: Spring Security saves only requests for HTML to go back to after sign-in
    return browser.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port(node) + path)).header("Accept", "text/html").build(),
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

  @Test
  void formLogin_stepsAlternatingNodes_savedRequestCsrfAndContextSurvive() throws Exception {
    HttpResponse<String> denied = get(node1, "/private");
    assertThat(denied.statusCode()).isEqualTo(302);

    String token = csrf(get(node2, "/login").body());
    HttpResponse<String> failed = post(node1, "/login",
        "username=alice&password=wrong&_csrf=" + token);
    assertThat(failed.statusCode()).isEqualTo(302);
    assertThat(failed.headers().firstValue("Location")).hasValueSatisfying(
        location -> assertThat(location).endsWith("/login?error"));

    HttpResponse<String> signedIn = post(node2, "/login",
        "username=alice&password=secret&_csrf=" + csrf(get(node1, "/login?error").body()));
    assertThat(signedIn.statusCode()).isEqualTo(302);
    assertThat(signedIn.headers().firstValue("Location")).hasValueSatisfying(
        location -> assertThat(location).endsWith("/private"));
    assertThat(get(node1, "/private").body()).isEqualTo("hello alice");
    assertThat(get(node2, "/private").body()).isEqualTo("hello alice");
  }

  @Test
  void sessionAttributes_setOnOneNode_boundOnTheOther() throws Exception {
    assertThat(get(node1, "/public/draft/set?text=hello").body()).isEqualTo("hello");

    assertThat(get(node2, "/public/draft").body()).isEqualTo("hello");
  }
}
