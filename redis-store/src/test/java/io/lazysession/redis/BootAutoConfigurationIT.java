package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.redis.bootapp.ShopApplication;
import io.lazysession.redis.micrometer.LazySessionMetrics;
import io.lazysession.redis.micrometer.TimedSessionRepository;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.CookieManager;
import java.net.ServerSocket;
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
import org.springframework.session.MapSessionRepository;
import org.springframework.session.SessionRepository;
import org.springframework.session.web.http.SessionRepositoryFilter;

/**
 * A Spring Boot web application with redis-store on the class path and only
 * {@code spring.data.redis.url} set: its HTTP sessions live in Redis, shared by two app nodes.
 */
class BootAutoConfigurationIT {
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

  static ConfigurableApplicationContext start(WebApplicationType type, String... properties) {
    return new SpringApplicationBuilder(ShopApplication.class)
        .web(type)
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

  @Test
  void webApp_withOnlyRedisUrl_keepsSessionsInRedisAcrossTwoNodes() throws Exception {
    String namespace = TestRedis.uniqueNamespace("boot");
    String[] properties = {"spring.data.redis.url=" + redis.url(), "lazysession.namespace=" + namespace};
    try (ConfigurableApplicationContext node1 = start(WebApplicationType.SERVLET, properties);
        ConfigurableApplicationContext node2 = start(WebApplicationType.SERVLET, properties)) {
      assertThat(node1.getBean(SessionRepository.class))
          .isInstanceOfSatisfying(TimedSessionRepository.class, timed -> assertThat(timed.delegate())
              .isSameAs(node1.getBean(LazyRedisSessionRepository.class)));
      assertThat(node1.getBeansOfType(SessionRepositoryFilter.class)).hasSize(1);
      HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

      assertThat(get(browser, port(node1), "/visits")).isEqualTo("1");
      assertThat(get(browser, port(node2), "/visits")).isEqualTo("2");
      assertThat(get(browser, port(node1), "/basket/add/book")).isEqualTo("book");
      assertThat(get(browser, port(node2), "/basket/add/pen")).isEqualTo("book,pen");
      assertThat(get(browser, port(node1), "/basket")).isEqualTo("book,pen");
      assertThat(get(browser, port(node2), "/visits")).isEqualTo("3");

      assertThat(raw.scan(io.lettuce.core.ScanArgs.Builder.matches(namespace + ":s:*").limit(1000))
          .getKeys()).hasSize(1);
      assertThat(node1.getBean(LazyRedisSessionRepository.class).metrics().saves())
          .isPositive();
      assertThat(node1.getBeansOfType(LazySessionMetrics.class)).hasSize(1);
    }
  }

  /** The {@code SESSION} cookie a response sets, as the id it carries; null when none. */
  static String sessionCookie(HttpResponse<String> response) {
    return response.headers().allValues("Set-Cookie").stream()
        .filter(cookie -> cookie.startsWith("SESSION="))
        .map(cookie -> cookie.substring(8, cookie.indexOf(';')))
        .map(value -> new String(java.util.Base64.getDecoder().decode(value)))
        .findFirst().orElse(null);
  }

  static HttpResponse<String> get(String path, int port, String sessionId) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + path))
        .header("Cookie", "SESSION=" + java.util.Base64.getEncoder()
            .encodeToString(sessionId.getBytes()))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void webApp_idRenewalIntervalPassed_responseMovesTheCookieToTheNewId() throws Exception {
    MutableClock clock = MutableClock.startingNow();
    try (ConfigurableApplicationContext node = new SpringApplicationBuilder(ShopApplication.class)
        .web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(),
            "lazysession.namespace=" + TestRedis.uniqueNamespace("boot-renewal"),
            "lazysession.id-renewal-interval=15m")
        .initializers(context -> context.getBeanFactory().registerSingleton("testClock",
            (io.lazysession.redis.config.LazySessionRepositoryCustomizer) builder ->
                builder.clock(clock)))
        .run()) {
      HttpResponse<String> login = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + port(node) + "/login/alice")).build(),
          HttpResponse.BodyHandlers.ofString());
      String oldId = sessionCookie(login);
      assertThat(get("/visits", port(node), oldId).headers().allValues("Set-Cookie"))
          .as("before the interval").isEmpty();
      clock.advance(java.time.Duration.ofMinutes(15));

      HttpResponse<String> renewed = get("/visits", port(node), oldId);
      String newId = sessionCookie(renewed);

      assertThat(newId).isNotNull().isNotEqualTo(oldId);
      assertThat(renewed.body()).isEqualTo("2");
      assertThat(get("/visits", port(node), newId).body()).isEqualTo("3");
      assertThat(node.getBean(LazyRedisSessionRepository.class).findByPrincipalName("alice"))
          .containsOnlyKeys(newId);
    }
  }

  @Test
  void startup_expiryEventsFalse_savesWithoutTheExpirySchedule() {
    String namespace = TestRedis.uniqueNamespace("boot-no-events");
    try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET,
        "spring.data.redis.url=" + redis.url(), "lazysession.namespace=" + namespace,
        "lazysession.expiry-events=false")) {
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);
      LazySession session = repository.createSession();
      session.setAttribute("visits", 1);
      repository.save(session);

      assertThat(repository.findById(session.getId())).isNotNull();
      assertThat(raw.exists((namespace + ":expirations").getBytes())).isZero();
    }
  }

  @Test
  void startup_ownSessionRepositoryBean_backsOff() {
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
        ShopApplication.class, OwnRepository.class).web(WebApplicationType.NONE)
        .properties("spring.data.redis.url=" + redis.url()).run()) {
      assertThat(context.getBean(SessionRepository.class)).isInstanceOf(MapSessionRepository.class);
      assertThat(context.getBeansOfType(LazyRedisSessionRepository.class)).isEmpty();
    }
  }

  @Test
  void startup_applicationInTheDefaultPackage_startsAndStoresSessions() throws Exception {
    // Loaded by name: a class of the default package cannot be imported.
    Class<?> application = Class.forName("DefaultPackageShopApplication");
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(application)
        .web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.data.redis.url=" + redis.url(),
            "lazysession.namespace=" + TestRedis.uniqueNamespace("default-package"))
        .run()) {
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);
      LazySession session = repository.createSession();
      session.setAttribute("visits", 1);
      repository.save(session);
      assertThat((Integer) repository.findById(session.getId()).getAttribute("visits"))
          .isEqualTo(1);
    }
  }

  @Test
  void startup_notAWebApplication_backsOff() {
    try (ConfigurableApplicationContext context = start(WebApplicationType.NONE,
        "spring.data.redis.url=" + redis.url())) {
      assertThat(context.getBeansOfType(LazyRedisSessionRepository.class)).isEmpty();
    }
  }

  @Test
  void startup_applicationsOwnRedisClientBean_isNotTheSessionStore() {
    // The app's client points at a closed port: were it used, the repository could not start.
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
        ShopApplication.class, OwnRedisClient.class).web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.data.redis.url=" + redis.url()).run()) {
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);
      LazySession session = repository.createSession();
      repository.save(session);
      assertThat(repository.findById(session.getId())).isNotNull();
      assertThat(context.getBean("lazySessionRedisClient"))
          .isNotSameAs(context.getBean("applicationRedisClient"));
    }
  }

  @Test
  void startup_sessionClientBeanNamedLazySessionRedisClient_isUsed() {
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
        ShopApplication.class, DedicatedRedisClient.class).web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.data.redis.url=redis://127.0.0.1:1").run()) {
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);
      LazySession session = repository.createSession();
      repository.save(session);
      assertThat(repository.findById(session.getId())).isNotNull();
    }
  }

  @Test
  void startup_properties_configureTheRepository() {
    try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET,
        "spring.data.redis.url=" + redis.url(), "spring.session.timeout=45m",
        "lazysession.namespace=configured", "lazysession.touch-interval=7s",
        "lazysession.codec=jdk", "lazysession.compression=none")) {
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);
      assertThat(repository.namespace()).isEqualTo("configured");
      assertThat(repository.defaultMaxInactiveInterval()).hasMinutes(45);
      assertThat(repository.touchInterval()).hasSeconds(7);
    }
  }

  @Test
  void startup_unknownCodec_failsNamingTheProperty() {
    assertThatThrownBy(() -> start(WebApplicationType.SERVLET, "spring.data.redis.url=" + redis.url(),
        "lazysession.codec=protobuf"))
        .rootCause().hasMessageContaining("lazysession.codec").hasMessageContaining("protobuf");
  }

  @Test
  void startup_compressionLevelOutOfRange_failsNamingTheProperty() {
    assertThatThrownBy(() -> start(WebApplicationType.SERVLET, "spring.data.redis.url=" + redis.url(),
        "lazysession.compression.level=99"))
        .rootCause().hasMessageContaining("level").hasMessageContaining("99");
  }

  @Test
  void startup_unknownDecodeFailurePolicy_failsNamingTheProperty() {
    assertThatThrownBy(() -> start(WebApplicationType.SERVLET, "spring.data.redis.url=" + redis.url(),
        "lazysession.on-decode-failure=ignore"))
        .rootCause().hasMessageContaining("lazysession.on-decode-failure");
  }

  @Test
  void startup_redisUnreachableAndRequired_failsSayingWhereRedisWasExpected() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    int port = closedPort;
    assertThatThrownBy(() -> start(WebApplicationType.SERVLET,
        "spring.data.redis.url=redis://127.0.0.1:" + port, "spring.data.redis.timeout=1s",
        "lazysession.require-redis-at-startup=true"))
        .hasStackTraceContaining("lazysession cannot connect to Redis")
        .hasStackTraceContaining("127.0.0.1:" + port + " (spring.data.redis.url)");
  }

  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  static class OwnRedisClient {
    @org.springframework.context.annotation.Bean(destroyMethod = "shutdown")
    RedisClient applicationRedisClient() {
      return RedisClient.create("redis://127.0.0.1:1");
    }
  }

  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  static class DedicatedRedisClient {
    @org.springframework.context.annotation.Bean(destroyMethod = "shutdown")
    RedisClient lazySessionRedisClient() {
      return RedisClient.create(redis.uri());
    }
  }

  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  static class OwnRepository {
    @org.springframework.context.annotation.Bean
    MapSessionRepository sessionRepository() {
      return new MapSessionRepository(new java.util.concurrent.ConcurrentHashMap<>());
    }
  }
}
