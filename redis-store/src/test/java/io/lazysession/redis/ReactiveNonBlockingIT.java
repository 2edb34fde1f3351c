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
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
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
 *
 * <p>The same watch records where the writer's pack work runs: {@link AttributePacking}'s {@code
 * expand} and {@code rebase} (a pack decompressed, and recompressed) are marked so that a call on a
 * non-blocking thread is reported, and the report is recorded ({@link #packWork}) instead of failing
 * the call: that work belongs on Reactor's parallel threads, never on Lettuce's event loops, which
 * serve every connection.
 */
class ReactiveNonBlockingIT {
  static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
  private static final String EXPAND = "(Lio/lazysession/serializer/AttributeSerializer;"
      + "Lio/lazysession/redis/ValueProtection;Ljava/lang/String;Ljava/util/Map;[B)"
      + "Lio/lazysession/redis/AttributePacking$Expanded;";
  private static final String REBASE = "(Lio/lazysession/serializer/AttributeSerializer;"
      + "Lio/lazysession/redis/ValueProtection;Ljava/lang/String;"
      + "Lio/lazysession/redis/AttributePacking$Placement;[B)"
      + "Lio/lazysession/redis/AttributePacking$Placement;";

  /** Each call of the marked pack work on a non-blocking thread: "method on thread". */
  static final Queue<String> packWork = new ConcurrentLinkedQueue<>();

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  @BeforeAll
  static void installBlockHound() {
    BlockHound.install(builder -> builder
        .markAsBlocking(AttributePacking.class, "expand", EXPAND)
        .markAsBlocking(AttributePacking.class, "rebase", REBASE)
        .blockingMethodCallback(method -> {
          if (method.getClassName().replace('/', '.').equals(AttributePacking.class.getName())) {
            packWork.add(method.getName() + " on " + Thread.currentThread().getName());
            return;
          }
          throw new BlockingOperationError(method);
        }));
  }

  /** The threads on which {@code method} of the marked pack work ran since the last clear. */
  static List<String> packWorkThreads(String method) {
    return packWork.stream().filter(call -> call.startsWith(method + " on "))
        .map(call -> call.substring(method.length() + 4)).toList();
  }

  /** Lettuce's event loops: "lettuce-nioEventLoop-4-1", "lettuce-epollEventLoop-5-2". */
  static boolean lettuceEventLoop(String thread) {
    return thread.startsWith("lettuce-") && thread.contains("EventLoop");
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
    everyOperationOnNonBlockingThreads();
  }

  /**
   * With keys, every value is sealed with a nonce from the operating system's generator, read on
   * non-blocking threads too: a read of the kernel's generator that never waits (NativePRNG's
   * non-blocking source), which BlockHound would report unless lazysession's integration allows it.
   */
  @Test
  void everyOperation_withEncryptionKeys_onNonBlockingThreads_neverBlocks() {
    nodes.configure(builder -> builder.encryption(SessionEncryption.builder()
        .keys(EncryptionKey.parseList("k1:" + java.util.Base64.getEncoder()
            .encodeToString(new byte[32]))).build()));
    everyOperationOnNonBlockingThreads();
  }

  private void everyOperationOnNonBlockingThreads() {
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

  /** A session node A saved with two small attributes, both in its pack; its id. */
  private static String packedSession() {
    LazySession created = nodes.a().createSession();
    created.setAttribute("theme", "dark");
    created.setAttribute("lang", "en");
    nodes.a().save(created);
    return created.getId();
  }

  /**
   * A reactive save whose pack another node rewrote after the load (a pack conflict): the save is
   * rebased onto the current pack, on a parallel thread, and both changes are kept.
   */
  @Test
  void save_packRewrittenSinceTheLoad_rebasesOffLettucesEventLoop() {
    LazyReactiveRedisSessionRepository b = LazyReactiveRedisSessionRepository.of(nodes.b());
    String id = packedSession();
    LazySession loaded = onNonBlockingThread(b.findById(id));
    LazySession other = nodes.a().findById(id);
    other.setAttribute("lang", "fr");
    nodes.a().save(other); // a new pack: the reactive save below sends the loaded one's digest
    loaded.setAttribute("theme", "light");
    packWork.clear();

    onNonBlockingThread(b.save(loaded));

    assertThat(packWorkThreads("rebase")).isNotEmpty()
        .noneMatch(ReactiveNonBlockingIT::lettuceEventLoop);
    LazySession stored = nodes.a().findById(id);
    assertThat((Object) stored.getAttribute("theme")).isEqualTo("light");
    assertThat((Object) stored.getAttribute("lang")).isEqualTo("fr");
  }

  /**
   * A reactive load of a session this node has no copy of: its pack is read (decompressed) on a
   * parallel thread, not on the event loop that delivered the answer.
   */
  @Test
  void findById_packInTheAnswer_expandsOffLettucesEventLoop() {
    LazyReactiveRedisSessionRepository b = LazyReactiveRedisSessionRepository.of(nodes.b());
    String id = packedSession();
    packWork.clear();

    LazySession loaded = onNonBlockingThread(b.findById(id));

    assertThat(packWorkThreads("expand")).isNotEmpty()
        .noneMatch(ReactiveNonBlockingIT::lettuceEventLoop);
    assertThat((Object) loaded.getAttribute("theme")).isEqualTo("dark");
  }

  /**
   * The other reactive reads that bring a pack: a principal lookup, a load of a session whose
   * near-cache copy another node made stale, and a load by an id that a renewal replaced (through
   * its alias, to the new id's hash). Each reads the pack on a parallel thread too.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"principal lookup", "stale copy", "renewed id"})
  void reads_packInTheAnswer_expandOffLettucesEventLoop(String read) {
    if (read.equals("renewed id")) {
      nodes.configure(builder -> builder.idRenewal(Duration.ofMinutes(10), Duration.ofSeconds(10)));
    }
    LazyReactiveRedisSessionRepository b = LazyReactiveRedisSessionRepository.of(nodes.b());
    LazySession created = nodes.a().createSession();
    created.setAttribute("theme", "dark");
    created.setAttribute(PRINCIPAL, "dora");
    nodes.a().save(created);
    String id = created.getId();
    Mono<LazySession> reading = switch (read) {
      case "principal lookup" -> b.findByPrincipalName("dora")
          .mapNotNull(found -> found.get(id));
      case "stale copy" -> {
        onNonBlockingThread(b.findById(id)); // node B's copy
        LazySession other = nodes.a().findById(id);
        other.setAttribute("lang", "fr");
        nodes.a().save(other);
        yield b.findById(id);
      }
      default -> {
        nodes.clock().advance(Duration.ofMinutes(11));
        assertThat(nodes.a().findById(id).getId()).as("renewed by node A").isNotEqualTo(id);
        yield b.findById(id);
      }
    };
    packWork.clear();

    LazySession loaded = onNonBlockingThread(reading);

    assertThat(packWorkThreads("expand")).isNotEmpty()
        .noneMatch(ReactiveNonBlockingIT::lettuceEventLoop);
    assertThat((Object) loaded.getAttribute("theme")).isEqualTo("dark");
  }

  /**
   * A reactive save of a new id: the old hash, taken by the claim, has its pack read on a parallel
   * thread before the session is written whole under the new id.
   */
  @Test
  void save_changedSessionId_unpacksTheOldHashOffLettucesEventLoop() {
    LazyReactiveRedisSessionRepository b = LazyReactiveRedisSessionRepository.of(nodes.b());
    String id = packedSession();
    LazySession loaded = onNonBlockingThread(b.findById(id));
    String newId = loaded.changeSessionId();
    packWork.clear();

    onNonBlockingThread(b.save(loaded));

    assertThat(packWorkThreads("expand")).isNotEmpty()
        .noneMatch(ReactiveNonBlockingIT::lettuceEventLoop);
    assertThat(nodes.a().findById(id)).isNull();
    LazySession stored = nodes.a().findById(newId);
    assertThat((Object) stored.getAttribute("theme")).isEqualTo("dark");
    assertThat((Object) stored.getAttribute("lang")).isEqualTo("en");
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
