package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.webfluxapp.WebFluxShopApplication;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.CookieManager;
import java.net.HttpCookie;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.session.ReactiveSessionRepository;
import org.springframework.web.server.session.WebSessionManager;

/**
 * A Spring Boot WebFlux application with redis-store on the class path and only
 * {@code spring.data.redis.url} set: its WebSessions live in Redis, shared by two app nodes.
 */
class WebFluxAutoConfigurationIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static RedisClient client;
  static RedisCommands<byte[], byte[]> raw;

  @BeforeAll
  static void connect() {
    client = RedisClient.create(redis.uri());
    raw = TestRedis.rawCommands(client);
  }

  @AfterAll
  static void shutdown() {
    client.shutdown();
  }

  static ConfigurableApplicationContext start(String... properties) {
    return new SpringApplicationBuilder(WebFluxShopApplication.class)
        .web(WebApplicationType.REACTIVE)
        .properties("server.port=0", "spring.main.banner-mode=off")
        .properties(properties)
        .run();
  }

  static int port(ConfigurableApplicationContext context) {
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }

  static String get(HttpClient http, int port, String path) throws Exception {
    HttpResponse<String> response = http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path).isEqualTo(200);
    return response.body();
  }

  static long sessionKeys(String namespace) {
    return raw.scan(ScanArgs.Builder.matches(namespace + ":s:*").limit(1000)).getKeys().size();
  }

  @Test
  void webFluxApp_withOnlyRedisUrl_keepsWebSessionsInRedisAcrossTwoNodes() throws Exception {
    String namespace = TestRedis.uniqueNamespace("webflux");
    String[] properties =
        {"spring.data.redis.url=" + redis.url(), "lazysession.namespace=" + namespace};
    try (ConfigurableApplicationContext node1 = start(properties);
        ConfigurableApplicationContext node2 = start(properties)) {
      assertThat(node1.getBean(ReactiveSessionRepository.class))
          .isSameAs(node1.getBean(LazyReactiveRedisSessionRepository.class));
      assertThat(node1.getBeansOfType(WebSessionManager.class)).hasSize(1);
      CookieManager cookies = new CookieManager();
      HttpClient browser = HttpClient.newBuilder().cookieHandler(cookies).build();

      assertThat(get(browser, port(node1), "/visits")).isEqualTo("1");
      assertThat(get(browser, port(node2), "/visits")).isEqualTo("2");
      assertThat(get(browser, port(node1), "/basket/add/book")).isEqualTo("book");
      assertThat(get(browser, port(node2), "/basket/add/pen")).isEqualTo("book,pen");
      assertThat(get(browser, port(node1), "/basket")).isEqualTo("book,pen");
      assertThat(sessionKeys(namespace)).isEqualTo(1);
      String before = sessionCookie(cookies);

      assertThat(get(browser, port(node2), "/sign-in/alice")).isEqualTo("alice");
      assertThat(sessionCookie(cookies)).isNotEqualTo(before);
      assertThat(get(browser, port(node1), "/visits")).isEqualTo("3");
      assertThat(node1.getBean(LazyReactiveRedisSessionRepository.class)
          .findByPrincipalName("alice").block()).containsOnlyKeys(sessionCookie(cookies));
      assertThat(sessionKeys(namespace)).isEqualTo(1);

      assertThat(get(browser, port(node1), "/sign-out")).isEqualTo("bye");
      assertThat(sessionKeys(namespace)).isZero();
      assertThat(get(browser, port(node2), "/visits")).isEqualTo("1");
    }
  }

  /**
   * A WebFlux app's session timeout, as Spring Boot reads it for Spring Session Data Redis's
   * reactive repository: {@code spring.session.timeout}, else {@code server.reactive.session.timeout}
   * (not the servlet one).
   */
  @Test
  void webFluxApp_serverReactiveSessionTimeout_isTheTimeoutOfItsSessions() throws Exception {
    String namespace = TestRedis.uniqueNamespace("webflux");
    try (ConfigurableApplicationContext node = start("spring.data.redis.url=" + redis.url(),
        "lazysession.namespace=" + namespace, "server.reactive.session.timeout=2h")) {
      CookieManager cookies = new CookieManager();
      HttpClient browser = HttpClient.newBuilder().cookieHandler(cookies).build();
      assertThat(get(browser, port(node), "/visits")).isEqualTo("1");

      LazySession stored = node.getBean(LazyRedisSessionRepository.class)
          .findById(sessionCookie(cookies));
      assertThat(stored.getMaxInactiveInterval()).isEqualTo(java.time.Duration.ofHours(2));
    }
  }

  @Test
  void startup_durabilityInAWebFluxApp_failsNamingTheProperty() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> start(
            "spring.data.redis.url=" + redis.url(), "lazysession.durability.replicas=1"))
        .hasStackTraceContaining("lazysession.durability.replicas");
  }

  private static String sessionCookie(CookieManager cookies) {
    return cookies.getCookieStore().getCookies().stream()
        .filter(cookie -> cookie.getName().equals("SESSION")).map(HttpCookie::getValue)
        .findFirst().orElseThrow();
  }
}
