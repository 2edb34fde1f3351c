package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.newuserapp.NewUserApplication;
import io.lazysession.testing.RedisServerExtension;
import java.net.CookieManager;
import java.net.HttpCookie;
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
 * A Spring Security application as a team moving from Spring Session Data Redis has it (remember-me,
 * maximumSessions with Spring Session's registry, HttpSessionEventPublisher), on two nodes, with
 * no lazysession setting but the Redis URL.
 */
class NewUserSecurityIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();
  private static final Pattern CSRF = Pattern.compile("name=\"_csrf\"[^>]*value=\"([^\"]+)\"");

  static ConfigurableApplicationContext node1;
  static ConfigurableApplicationContext node2;

  @BeforeAll
  static void start() {
    String namespace = TestRedis.uniqueNamespace("newuser");
    node1 = start(namespace);
    node2 = start(namespace);
  }

  static ConfigurableApplicationContext start(String namespace) {
    return new SpringApplicationBuilder(NewUserApplication.class).web(WebApplicationType.SERVLET)
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

  static String base(ConfigurableApplicationContext node) {
    return "http://127.0.0.1:" + node.getEnvironment().getProperty("local.server.port");
  }

  static HttpResponse<String> get(HttpClient browser, ConfigurableApplicationContext node,
      String path) throws Exception {
    return browser.send(HttpRequest.newBuilder(URI.create(base(node) + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> signIn(HttpClient browser, ConfigurableApplicationContext node,
      String extra) throws Exception {
    HttpResponse<String> page = get(browser, node, "/login");
    Matcher csrf = CSRF.matcher(page.body());
    assertThat(csrf.find()).as("the login page's CSRF token").isTrue();
    String form = "username=ann&password=secret" + extra + "&_csrf="
        + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8);
    return browser.send(HttpRequest.newBuilder(URI.create(base(node) + "/login"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void rememberMe_sessionGone_signsInAgainOnTheOtherNode() throws Exception {
    CookieManager cookies = new CookieManager();
    HttpClient browser = HttpClient.newBuilder().cookieHandler(cookies).build();
    HttpResponse<String> signedIn = signIn(browser, node1, "&remember-me=on");
    assertThat(signedIn.statusCode()).isEqualTo(302);
    assertThat(get(browser, node2, "/me").body()).isEqualTo("ann");

    // The browser was closed: the session cookie is gone, the remember-me cookie stays.
    for (HttpCookie cookie : java.util.List.copyOf(cookies.getCookieStore().getCookies())) {
      if (cookie.getName().equals("SESSION")) {
        cookies.getCookieStore().remove(null, cookie);
      }
    }
    HttpResponse<String> me = get(browser, node2, "/me");
    assertThat(me.statusCode()).isEqualTo(200);
    assertThat(me.body()).isEqualTo("ann");
    assertThat(get(browser, node1, "/me").body()).isEqualTo("ann");
  }

  @Test
  void maximumSessions_secondSignIn_expiresTheFirstBrowser() throws Exception {
    HttpClient first = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
    HttpClient second = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
    assertThat(signIn(first, node1, "").statusCode()).isEqualTo(302);
    assertThat(get(first, node2, "/me").body()).isEqualTo("ann");

    assertThat(signIn(second, node2, "").statusCode()).isEqualTo(302);
    assertThat(get(second, node1, "/me").body()).isEqualTo("ann");

    HttpResponse<String> expired = get(first, node1, "/me");
    assertThat(expired.body()).as("status " + expired.statusCode())
        .contains("This session has been expired");
    assertThat(get(second, node2, "/me").body()).isEqualTo("ann");
  }

  @Test
  void sessionEvents_createdAndDestroyed_reachSpringSecurity() throws Exception {
    NewUserApplication.EVENTS.clear();
    HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
    String id = get(browser, node1, "/public/session").body();
    assertThat(NewUserApplication.EVENTS).contains("created " + id);
    assertThat(signIn(browser, node2, "").statusCode()).isEqualTo(302);
    HttpResponse<String> page = get(browser, node1, "/me");
    assertThat(page.body()).isEqualTo("ann");
    String signedInId = get(browser, node1, "/public/session").body();
    NewUserApplication.EVENTS.clear();
    HttpResponse<String> logoutPage = get(browser, node1, "/logout");
    Matcher csrf = CSRF.matcher(logoutPage.body());
    assertThat(csrf.find()).isTrue();
    HttpResponse<String> out = browser.send(HttpRequest.newBuilder(URI.create(base(node1) + "/logout"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("_csrf="
            + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(out.statusCode()).isEqualTo(302);
    assertThat(NewUserApplication.EVENTS).contains("destroyed " + signedInId);
  }

  @Test
  void bindingListener_removedOnTheOtherNode_isUnbound() throws Exception {
    NewUserApplication.Tracked.CALLS.clear();
    HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
    assertThat(get(browser, node1, "/public/track?name=a").body()).isEqualTo("ok");
    assertThat(get(browser, node2, "/public/untrack").body()).isEqualTo("ok");
    assertThat(NewUserApplication.Tracked.CALLS).containsExactly("bound a", "unbound a");
  }
}
