package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import io.lazysession.redis.bootapp.ShopApplication;
import io.lazysession.redis.config.LazySessionConfigurationException;
import io.lazysession.redis.webfluxapp.WebFluxShopApplication;
import io.lazysession.testing.RedisServerExtension;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Spring Boot applications (servlet and WebFlux, default settings) while Redis is stopped, at startup
 * or while serving: they start (health DOWN), answer 503 with {@code Retry-After} to requests that
 * need a session, log one line when the outage starts and one when it ends, and serve sessions again
 * soon after Redis is back. Redis is stopped for real (connections drop, new ones are refused) and
 * started again on the same port, empty.
 *
 * <p>Timing: the acceptance bound for sessions working again after Redis answers is
 * {@link #RECOVERY_ACCEPTANCE} (2 s; the store retries at least every 500 ms). These tests run on
 * shared two-core machines next to other builds, so they measure and print the recovery time, and
 * fail only beyond {@link #RECOVERY_FAIL_BOUND}, which no correct build reaches even there (an
 * uncapped Lettuce backoff, after the outages here, waits 4 to 8 s).
 */
class RedisOutageIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final Duration RECOVERY_ACCEPTANCE = Duration.ofSeconds(2);
  static final Duration RECOVERY_FAIL_BOUND = Duration.ofSeconds(6);
  /** How long the outages last: long enough for Lettuce's default backoff to reach seconds. */
  static final Duration OUTAGE = Duration.ofSeconds(5);
  static final String RETRY_AFTER = "Retry-After";

  final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  boolean stopped;

  @BeforeAll
  static void restartable() {
    redis.assumeFaultInjection();
    assumeThat(redis.primary().canRestart()).as("the backend can stop and start Redis on its port")
        .isTrue();
  }

  @AfterEach
  void startRedisAgain() {
    if (stopped) {
      redis.primary().startAgain();
      stopped = false;
    }
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(appender);
  }

  void stopRedis() {
    redis.primary().stop();
    stopped = true;
  }

  void startRedis() {
    redis.primary().startAgain();
    stopped = false;
  }

  /** Starts an app; logs are captured from the moment Spring Boot configured logging. */
  ConfigurableApplicationContext start(Class<?> application, WebApplicationType type,
      String... properties) {
    appender.start();
    return new SpringApplicationBuilder(application)
        .web(type)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(), "spring.data.redis.timeout=500ms",
            "spring.data.redis.connect-timeout=500ms",
            "lazysession.namespace=" + TestRedis.uniqueNamespace("outage"),
            // Sweeps fail during the outages: they must not log a line each.
            "lazysession.cleanup-interval=1s",
            // Spring Boot's own Redis health contribution (spring-boot-data-redis, on this class
            // path) logs a stack trace at each probe while Redis is down; not lazysession's doing.
            "management.health.redis.enabled=false")
        .properties(properties)
        .listeners(event -> {
          if (event instanceof ApplicationPreparedEvent) {
            Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
            root.addAppender(appender);
          }
        })
        .run();
  }

  static int port(ConfigurableApplicationContext context) {
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }

  static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpClient browser() {
    return HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
  }

  static void assertUnavailable(HttpResponse<String> response) {
    assertThat(response.statusCode()).as("status of %s", response.uri()).isEqualTo(503);
    assertThat(response.headers().firstValue(RETRY_AFTER)).hasValue("1");
    assertThat(response.body()).contains("the session store (Redis) cannot be reached");
  }

  /** Requests the page for {@link #OUTAGE}: every answer is a 503. */
  static int unavailableThroughout(HttpClient http, int port, String path) throws Exception {
    int answered = 0;
    long end = System.nanoTime() + OUTAGE.toNanos();
    while (System.nanoTime() < end) {
      assertUnavailable(get(http, port, path));
      answered++;
      Thread.sleep(100);
    }
    return answered;
  }

  /**
   * Polls the page until it answers 200 (a bounded loop), returning how long that took after Redis
   * answered again; fails beyond {@link #RECOVERY_FAIL_BOUND}.
   */
  static HttpResponse<String> awaitServing(HttpClient http, int port, String path, String what)
      throws Exception {
    long started = System.nanoTime();
    long deadline = started + RECOVERY_FAIL_BOUND.toNanos();
    while (true) {
      HttpResponse<String> response = get(http, port, path);
      long elapsed = System.nanoTime() - started;
      if (response.statusCode() == 200) {
        Duration took = Duration.ofNanos(elapsed);
        System.out.printf("RedisOutageIT %s: sessions served again %d ms after Redis answered "
            + "(acceptance %d ms, fails beyond %d ms)%n", what, took.toMillis(),
            RECOVERY_ACCEPTANCE.toMillis(), RECOVERY_FAIL_BOUND.toMillis());
        return response;
      }
      assertUnavailable(response);
      assertThat(elapsed).as("%s: still 503 %s after Redis answered", what, RECOVERY_FAIL_BOUND)
          .isLessThan(RECOVERY_FAIL_BOUND.toNanos());
      Thread.sleep(50);
    }
  }

  List<ILoggingEvent> outageLines(Level level) {
    return appender.list.stream().filter(event -> event.getLevel() == level
        && event.getLoggerName().equals(OutageLog.class.getName())).toList();
  }

  /** One WARN and one INFO from the store, no other warning of lazysession, no stack trace of it. */
  void assertLoggedOnce(String warning) {
    assertThat(outageLines(Level.WARN)).singleElement()
        .satisfies(event -> assertThat(event.getFormattedMessage()).contains(warning));
    assertThat(outageLines(Level.INFO)).singleElement().satisfies(event -> assertThat(
        event.getFormattedMessage()).contains("Redis is available again after"));
    assertThat(appender.list).as("other lazysession warnings")
        .filteredOn(event -> event.getLoggerName().startsWith("io.lazysession")
            && event.getLevel().isGreaterOrEqual(Level.WARN))
        .hasSize(1);
    assertThat(appender.list).as("stack traces of the outage, from any logger")
        .noneMatch(event -> mentionsStoreFailure(event.getThrowableProxy()));
  }

  static boolean mentionsStoreFailure(IThrowableProxy proxy) {
    for (IThrowableProxy cause = proxy; cause != null; cause = cause.getCause()) {
      if (cause.getClassName().startsWith("io.lazysession")
          || cause.getClassName().startsWith("io.lettuce")) {
        return true;
      }
    }
    return false;
  }

  @Test
  void servletApp_startedWithRedisStopped_answers503ThenServesSoonAfterRedisStarts()
      throws Exception {
    stopRedis();
    try (ConfigurableApplicationContext app = start(ShopApplication.class,
        WebApplicationType.SERVLET)) {
      int port = port(app);
      HttpClient browser = browser();
      assertThat(get(browser, port, "/actuator/health").body()).contains("DOWN");
      HttpResponse<String> first = get(browser, port, "/visits");
      assertUnavailable(first);
      assertThat(first.headers().allValues("Set-Cookie")).isEmpty();
      unavailableThroughout(browser, port, "/visits");

      startRedis();
      HttpResponse<String> served = awaitServing(browser, port, "/visits", "servlet, cold start");

      assertThat(served.body()).isEqualTo("1");
      assertThat(get(browser, port, "/visits").body()).as("the same session").isEqualTo("2");
      assertThat(get(browser, port, "/actuator/health").body()).contains("UP");
      assertLoggedOnce("starting without Redis");
    }
  }

  @Test
  void servletApp_redisStoppedWhileServing_keepsTheSessionAndResumesSoonAfterRedisStarts()
      throws Exception {
    try (ConfigurableApplicationContext app = start(ShopApplication.class,
        WebApplicationType.SERVLET)) {
      int port = port(app);
      HttpClient browser = browser();
      assertThat(get(browser, port, "/visits").body()).isEqualTo("1");

      stopRedis();
      assertUnavailable(get(browser, port, "/visits")); // a session to find: findById fails
      assertUnavailable(get(browser(), port, "/visits")); // a new session: its save fails
      unavailableThroughout(browser, port, "/visits");
      assertThat(get(browser, port, "/actuator/health").statusCode()).isEqualTo(503);

      startRedis(); // empty: the session written before the outage is gone
      HttpResponse<String> served = awaitServing(browser, port, "/visits", "servlet, restart");

      assertThat(served.body()).isEqualTo("1");
      assertThat(get(browser, port, "/visits").body()).isEqualTo("2");
      assertLoggedOnce("Redis is unavailable");
    }
  }

  @Test
  void webFluxApp_startedWithRedisStopped_answers503ThenServesSoonAfterRedisStarts()
      throws Exception {
    stopRedis();
    try (ConfigurableApplicationContext app = start(WebFluxShopApplication.class,
        WebApplicationType.REACTIVE)) {
      int port = port(app);
      HttpClient browser = browser();
      assertThat(get(browser, port, "/actuator/health").body()).contains("DOWN");
      assertUnavailable(get(browser, port, "/visits"));
      unavailableThroughout(browser, port, "/visits");

      startRedis();
      HttpResponse<String> served = awaitServing(browser, port, "/visits", "WebFlux, cold start");

      assertThat(served.body()).isEqualTo("1");
      assertThat(get(browser, port, "/visits").body()).isEqualTo("2");
      assertLoggedOnce("starting without Redis");
    }
  }

  @Test
  void webFluxApp_redisStoppedWhileServing_answers503ToFindAndToSave() throws Exception {
    try (ConfigurableApplicationContext app = start(WebFluxShopApplication.class,
        WebApplicationType.REACTIVE)) {
      int port = port(app);
      HttpClient browser = browser();
      assertThat(get(browser, port, "/visits").body()).isEqualTo("1");

      stopRedis();
      assertUnavailable(get(browser, port, "/visits")); // findById fails
      assertUnavailable(get(browser(), port, "/visits")); // a new session's save fails
      startRedis();
      awaitServing(browser, port, "/visits", "WebFlux, restart");

      assertLoggedOnce("Redis is unavailable");
    }
  }

  /**
   * A sign-in fails inside the handler (its id change saves at once), not when the response is
   * committed: the answer is still the outage page, not an error page.
   */
  @Test
  void webFluxApp_redisStoppedWhenASignInSavesItsNewId_answers503() throws Exception {
    try (ConfigurableApplicationContext app = start(WebFluxShopApplication.class,
        WebApplicationType.REACTIVE)) {
      int port = port(app);
      assertThat(get(browser(), port, "/visits").body()).isEqualTo("1");

      stopRedis();
      assertUnavailable(get(browser(), port, "/sign-in-first-visit/alice"));
    }
  }

  @Test
  void startup_requireRedisAtStartup_redisStopped_failsNamingThePropertyAndWhereRedisWasExpected() {
    stopRedis();

    assertThatThrownBy(() -> start(ShopApplication.class, WebApplicationType.SERVLET,
        "lazysession.require-redis-at-startup=true").close())
        .satisfies(failure -> {
          Throwable cause = failure;
          while (!(cause instanceof LazySessionConfigurationException)) {
            cause = cause.getCause();
          }
          LazySessionConfigurationException analyzed = (LazySessionConfigurationException) cause;
          assertThat(analyzed.setting()).isEqualTo("lazysession.require-redis-at-startup");
          assertThat(analyzed.reason()).contains("lazysession cannot connect to Redis")
              .contains(redis.primary().host() + ":" + redis.primary().port())
              .contains("lazysession.require-redis-at-startup=true makes that a startup failure");
          assertThat(analyzed.action()).contains("Check that Redis is running")
              .contains("remove lazysession.require-redis-at-startup=true")
              .contains("answer 503 until it is reachable");
        });
  }
}
