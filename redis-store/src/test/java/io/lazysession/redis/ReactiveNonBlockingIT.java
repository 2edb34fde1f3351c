package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.testing.RedisServerExtension;
import java.net.CookieManager;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.UuidSessionIdGenerator;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Every operation of the reactive repository, subscribed on a non-blocking thread (Reactor's
 * parallel scheduler, as WebFlux's request handling is), with BlockHound watching those threads and
 * Lettuce's event loops (Netty marks them non-blocking): a blocking call anywhere on the way (a
 * synchronous Redis command, a lock wait, a sleep) fails the operation with
 * {@link BlockingOperationError}. Runs in a JVM of its own (see the failsafe executions in the pom).
 */
class ReactiveNonBlockingIT {
  static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  @BeforeAll
  static void installBlockHound() {
    BlockHound.install();
  }

  /**
   * Runs {@code operation} on a non-blocking thread and waits for it on the test thread; the bound
   * only keeps a hang from stalling the build (generous: this machine may be loaded).
   */
  static <T> T onNonBlockingThread(Mono<T> operation) {
    return operation.subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(60));
  }

  @Test
  void blockHound_blockingCallOnANonBlockingThread_isReported() {
    Mono<Object> sleeping = Mono.fromCallable(() -> {
      Thread.sleep(1);
      return "slept";
    });

    assertThatThrownBy(() -> onNonBlockingThread(sleeping))
        .hasCauseInstanceOf(BlockingOperationError.class);
  }

  @Test
  void everyOperation_onNonBlockingThreads_neverBlocks() {
    LazyReactiveRedisSessionRepository b = LazyReactiveRedisSessionRepository.of(nodes.b());
    // The first calls load Reactor's and Lettuce's classes; done here, on the test thread, so
    // that class loading (which reads jars) is not what the check sees.
    LazySession warmUp = b.createSession().block();
    warmUp.setAttribute("warm", "up");
    b.save(warmUp).block();
    b.findById(warmUp.getId()).block();

    LazySession session = onNonBlockingThread(b.createSession());
    session.setAttribute(PRINCIPAL, "alice");
    session.setAttribute("items", new ArrayList<>(List.of("book")));
    onNonBlockingThread(b.save(session));
    LazySession read = onNonBlockingThread(b.findById(session.getId()));
    List<String> items = read.getAttribute("items");
    items.add("pen");
    onNonBlockingThread(b.save(read));
    LazySession cached = onNonBlockingThread(b.findById(session.getId()));
    onNonBlockingThread(b.save(cached));
    String newId = cached.changeSessionId();
    onNonBlockingThread(b.save(cached));
    Map<String, LazySession> found = onNonBlockingThread(b.findByPrincipalName("alice"));
    onNonBlockingThread(b.deleteById(newId));
    LazySession gone = onNonBlockingThread(b.findById(newId).defaultIfEmpty(warmUp));

    assertThat(found).containsOnlyKeys(newId);
    assertThat((Object) found.get(newId).getAttribute("items")).isEqualTo(List.of("book", "pen"));
    assertThat(gone).isSameAs(warmUp);
    assertThat(nodes.a().findById(session.getId())).isNull();
  }

  /**
   * Ids by the thousand on a non-blocking thread, as WebFlux makes them: the platform's default
   * {@code SecureRandom} reads {@code /dev/urandom} again whenever its small buffer runs out, so a
   * generator drawing from it ({@code UUID.randomUUID()}) is reported here. With the default ids
   * and with Spring's UUID generator configured.
   */
  @ParameterizedTest(name = "springUuids={0}")
  @ValueSource(booleans = {false, true})
  void createSessionAndChangeSessionId_thousandsOfIds_neverBlock(boolean springUuids) {
    if (springUuids) {
      nodes.configure(builder -> builder.sessionIdGenerator(UuidSessionIdGenerator.getInstance()));
    }
    LazyReactiveRedisSessionRepository b = LazyReactiveRedisSessionRepository.of(nodes.b());
    b.createSession().block().changeSessionId(); // class loading, on the test thread

    List<String> ids = onNonBlockingThread(b.createSession()
        .flatMapIterable(session -> List.of(session.getId(), session.changeSessionId()))
        .repeat(1_999).collectList());

    assertThat(ids).hasSize(4_000).doesNotHaveDuplicates();
    assertThat(ids.get(0)).hasSize(springUuids ? 36 : 22);
  }

  @Test
  void webFluxApp_requestsOnEventLoops_neverBlock() throws Exception {
    String namespace = TestRedis.uniqueNamespace("webflux-nonblocking");
    String[] properties =
        {"spring.data.redis.url=" + redis.url(), "lazysession.namespace=" + namespace};
    try (ConfigurableApplicationContext node1 = WebFluxAutoConfigurationIT.start(properties);
        ConfigurableApplicationContext node2 = WebFluxAutoConfigurationIT.start(properties)) {
      HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
      int port1 = WebFluxAutoConfigurationIT.port(node1);
      int port2 = WebFluxAutoConfigurationIT.port(node2);
      // Warm-up: the first request of each node loads classes on its event loop.
      WebFluxAutoConfigurationIT.get(HttpClient.newHttpClient(), port1, "/basket");
      WebFluxAutoConfigurationIT.get(HttpClient.newHttpClient(), port2, "/basket");

      assertThat(WebFluxAutoConfigurationIT.get(browser, port1, "/visits")).isEqualTo("1");
      assertThat(WebFluxAutoConfigurationIT.get(browser, port2, "/basket/add/book"))
          .isEqualTo("book");
      assertThat(WebFluxAutoConfigurationIT.get(browser, port1, "/sign-in/alice"))
          .isEqualTo("alice");
      assertThat(WebFluxAutoConfigurationIT.get(browser, port2, "/visits")).isEqualTo("2");
      assertThat(WebFluxAutoConfigurationIT.get(browser, port1, "/sign-out")).isEqualTo("bye");
    }
  }
}
