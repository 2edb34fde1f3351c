package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lazysession.redis.scopeapp.ScopeApplication;
import io.lazysession.testing.RedisServerExtension;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.session.Session;
import org.springframework.session.SessionRepository;

/**
 * {@code @SessionScope} beans with a destroy method ({@code @PreDestroy}, {@code DisposableBean})
 * on two nodes with no lazysession setting but the Redis URL, side by side with Spring Session Data
 * Redis on the same Redis: a step on one node, the next on the other.
 *
 * <p>Spring runs a session-scoped bean's destroy method from the {@code HttpSessionBindingListener}
 * it stores next to the bean, when that attribute leaves the session. Spring Session calls binding
 * listeners on {@code removeAttribute} and {@code setAttribute}, never on {@code invalidate()} nor on
 * expiry (a Servlet container's own sessions unbind every attribute on both): with either store, a
 * sign-out does not run the destroy method, removing the bean through Spring's scope does, on the
 * node that removes it.
 *
 * <p>Spring sets each session-scoped bean that a request used again when the request completes,
 * after the response went out, and both stores save that: each step waits until Redis holds the
 * step before the next request goes to the other node (a browser that is faster than that save can
 * see the state before it, with either store).
 */
class SessionScopedBeanIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  enum Store { LAZYSESSION, SPRING_SESSION_DATA_REDIS }

  private static final String CART = "scopedTarget.cart";
  private static final Map<Store, List<ConfigurableApplicationContext>> NODES =
      new EnumMap<>(Store.class);

  static List<ConfigurableApplicationContext> nodes(Store store) {
    return NODES.computeIfAbsent(store, s -> {
      String namespace = TestRedis.uniqueNamespace("scope");
      return List.of(start(s, namespace), start(s, namespace));
    });
  }

  static ConfigurableApplicationContext start(Store store, String namespace) {
    SpringApplicationBuilder app = store == Store.LAZYSESSION
        ? new SpringApplicationBuilder(ScopeApplication.class)
            .properties("lazysession.namespace=" + namespace)
        : new SpringApplicationBuilder(ScopeApplication.class,
            ScopeApplication.SpringSessionDataRedis.class)
            .properties("lazysession.enabled=false", "spring.session.redis.namespace=" + namespace);
    return app.web(WebApplicationType.SERVLET).properties("server.port=0",
        "spring.main.banner-mode=off", "spring.data.redis.url=" + redis.url()).run();
  }

  @AfterAll
  static void stop() {
    NODES.values().forEach(nodes -> nodes.forEach(ConfigurableApplicationContext::close));
    NODES.clear();
  }

  @BeforeEach
  void clear() {
    ScopeApplication.DESTROYED.clear();
  }

  static String get(HttpClient browser, ConfigurableApplicationContext node, String path)
      throws Exception {
    String base = "http://127.0.0.1:" + node.getEnvironment().getProperty("local.server.port");
    HttpResponse<String> response = browser.send(HttpRequest.newBuilder(URI.create(base + path))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
    return response.body();
  }

  /** Waits until Redis holds {@code items} in the session's cart (null: no cart, or no session). */
  static void awaitStored(ConfigurableApplicationContext node, String id, @Nullable List<String> items) {
    @SuppressWarnings("unchecked")
    SessionRepository<Session> sessions = node.getBean(SessionRepository.class);
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      Session session = sessions.findById(id);
      ScopeApplication.Cart cart = session == null ? null : session.getAttribute(CART);
      assertThat(cart == null ? null : cart.items()).isEqualTo(items);
    });
  }

  @ParameterizedTest
  @EnumSource(Store.class)
  void sessionScopedBeans_eachStepOnTheOtherNode_keepTheirState(Store store) throws Exception {
    List<ConfigurableApplicationContext> nodes = nodes(store);
    HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

    assertThat(get(browser, nodes.get(0), "/add?item=book")).isEqualTo("[book] book");
    String id = get(browser, nodes.get(0), "/id");
    awaitStored(nodes.get(0), id, List.of("book"));
    assertThat(get(browser, nodes.get(1), "/add?item=pen")).isEqualTo("[book, pen] pen");
    awaitStored(nodes.get(1), id, List.of("book", "pen"));
    assertThat(get(browser, nodes.get(0), "/show")).isEqualTo("[book, pen] pen");
    assertThat(ScopeApplication.DESTROYED).isEmpty();
  }

  /**
   * SessionScope.remove on the other node: the callbacks, read from Redis there, run both destroy
   * methods, each on the copy of its bean stored with the callback when the bean was created (the
   * callback is an attribute of its own, not stored again when the bean changes).
   */
  @ParameterizedTest
  @EnumSource(Store.class)
  void sessionScopedBeans_removedOnTheOtherNode_destroyMethodsRunOnTheCopyStoredWithThem(Store store)
      throws Exception {
    List<ConfigurableApplicationContext> nodes = nodes(store);
    HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
    get(browser, nodes.get(0), "/add?item=book");
    String id = get(browser, nodes.get(0), "/id");
    awaitStored(nodes.get(0), id, List.of("book"));
    get(browser, nodes.get(1), "/add?item=pen");
    awaitStored(nodes.get(1), id, List.of("book", "pen"));

    assertThat(get(browser, nodes.get(0), "/forget")).isEqualTo("forgotten");

    assertThat(ScopeApplication.DESTROYED).containsExactlyInAnyOrder("cart [book]", "wizard book");
    awaitStored(nodes.get(0), id, null);
    assertThat(get(browser, nodes.get(1), "/show")).isEqualTo("[] start");
  }

  /** A sign-out invalidates the session: no destroy method runs, with either store. */
  @ParameterizedTest
  @EnumSource(Store.class)
  void sessionScopedBeans_sessionInvalidated_destroyMethodsDoNotRun(Store store) throws Exception {
    List<ConfigurableApplicationContext> nodes = nodes(store);
    HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
    get(browser, nodes.get(0), "/add?item=book");
    String id = get(browser, nodes.get(0), "/id");
    awaitStored(nodes.get(0), id, List.of("book"));

    assertThat(get(browser, nodes.get(1), "/invalidate")).isEqualTo("invalidated");

    awaitStored(nodes.get(1), id, null);
    assertThat(ScopeApplication.DESTROYED).isEmpty();
    assertThat(get(browser, nodes.get(0), "/show")).isEqualTo("[] start");
  }
}
