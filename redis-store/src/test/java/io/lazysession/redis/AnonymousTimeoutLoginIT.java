package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.loginapp.LoginApplication;
import io.lazysession.redis.webfluxloginapp.WebFluxLoginApplication;
import io.lazysession.testing.RedisServerExtension;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What docs/session-policies.md says happens with lazysession.anonymous-timeout when a user takes
 * longer than it on the sign-in page: the session holding the login form's CSRF token is gone when
 * the form is posted. The expiry is made by deleting the session, as the expiry does (no waiting).
 */
class AnonymousTimeoutLoginIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private static final Pattern CSRF = Pattern.compile("name=\"_csrf\"[^>]*value=\"([^\"]+)\"");

  private static ConfigurableApplicationContext start(Class<?> application,
      WebApplicationType type) {
    return new SpringApplicationBuilder(application).web(type)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(),
            "lazysession.namespace=" + TestRedis.uniqueNamespace("anonymous-login"),
            "lazysession.anonymous-timeout=20s")
        .run();
  }

  /** Opens the login page, lets its session expire, then posts the form; the response. */
  private static HttpResponse<String> signInAfterTheSessionExpired(
      ConfigurableApplicationContext node) throws Exception {
    String base = "http://127.0.0.1:" + node.getEnvironment().getProperty("local.server.port");
    CookieManager cookies = new CookieManager();
    HttpClient browser = HttpClient.newBuilder().cookieHandler(cookies).build();
    HttpResponse<String> page = browser.send(HttpRequest.newBuilder(URI.create(base + "/login"))
        .build(), HttpResponse.BodyHandlers.ofString());
    Matcher csrf = CSRF.matcher(page.body());
    assertThat(csrf.find()).as("the login page's CSRF token").isTrue();
    String cookie = cookies.getCookieStore().getCookies().stream()
        .filter(c -> c.getName().equals("SESSION")).findFirst().orElseThrow().getValue();
    LazyRedisSessionRepository repository = node.getBean(LazyRedisSessionRepository.class);
    String id = repository.findById(cookie) != null ? cookie
        : new String(Base64.getDecoder().decode(cookie), StandardCharsets.UTF_8);
    assertThat(repository.findById(id).getMaxInactiveInterval().toSeconds()).isEqualTo(20);
    repository.deleteById(id);

    String form = "username=ann&password=secret&_csrf="
        + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8);
    return browser.send(HttpRequest.newBuilder(URI.create(base + "/login"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void servletLogin_postedAfterTheAnonymousSessionExpired_isForbiddenByTheCsrfCheck()
      throws Exception {
    try (ConfigurableApplicationContext node = start(LoginApplication.class,
        WebApplicationType.SERVLET)) {
      HttpResponse<String> response = signInAfterTheSessionExpired(node);

      assertThat(response.statusCode()).isEqualTo(403);
    }
  }

  @Test
  void webFluxLogin_postedAfterTheAnonymousSessionExpired_isForbiddenByTheCsrfCheck()
      throws Exception {
    try (ConfigurableApplicationContext node = start(WebFluxLoginApplication.class,
        WebApplicationType.REACTIVE)) {
      HttpResponse<String> response = signInAfterTheSessionExpired(node);

      assertThat(response.statusCode()).isEqualTo(403);
      assertThat(response.body()).isEqualTo("Access Denied");
    }
  }
}
