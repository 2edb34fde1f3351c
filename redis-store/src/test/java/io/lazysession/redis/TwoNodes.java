package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.session.events.SessionDestroyedEvent;

/**
 * Two application nodes on one Redis, for the store's integration tests: a client per node (each
 * node has its own connections, as two JVMs would), a raw connection to look at or plant what they
 * store, one hand-moved clock, an event recorder per node and a fresh namespace per test.
 *
 * <pre>{@code
 * @RegisterExtension static final RedisServerExtension redis = RedisServerExtension.standalone();
 * @RegisterExtension static final TwoNodes nodes = TwoNodes.on(redis, b -> b.touchInterval(...));
 * }</pre>
 *
 * <p>The clients connect before the first test; the nodes are built on first use, so a test's own {@code @BeforeEach} may still {@link #configure} them; every node this
 * fixture built is closed after the test. Not thread-safe: used by one test at a time.
 */
final class TwoNodes
    implements AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  private final RedisServerExtension redis;
  private final UnaryOperator<LazyRedisSessionRepositoryBuilder> classConfig;
  private final List<LazyRedisSessionRepository> opened = new ArrayList<>();
  private @Nullable RedisClient clientA;
  private @Nullable RedisClient clientB;
  private @Nullable RedisCommands<byte[], byte[]> raw;
  private UnaryOperator<LazyRedisSessionRepositoryBuilder> testConfig = UnaryOperator.identity();
  private MutableClock clock = MutableClock.startingNow();
  private RecordingEventPublisher eventsA = new RecordingEventPublisher();
  private RecordingEventPublisher eventsB = new RecordingEventPublisher();
  private String namespace = "";
  private @Nullable LazyRedisSessionRepository a;
  private @Nullable LazyRedisSessionRepository b;

  private TwoNodes(RedisServerExtension redis,
      UnaryOperator<LazyRedisSessionRepositoryBuilder> classConfig) {
    this.redis = redis;
    this.classConfig = classConfig;
  }

  /**
   * Nodes on {@code redis}; each builder starts from {@link #builder} (no background sweep) and then
   * goes through {@code config}.
   */
  static TwoNodes on(RedisServerExtension redis,
      UnaryOperator<LazyRedisSessionRepositoryBuilder> config) {
    return new TwoNodes(redis, config);
  }

  static TwoNodes on(RedisServerExtension redis) {
    return on(redis, UnaryOperator.identity());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (clientA != null) {
      clientA.shutdown();
    }
    if (clientB != null) {
      clientB.shutdown();
    }
    clientA = null;
    clientB = null;
    raw = null;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (clientA == null) {
      // Here rather than in beforeAll: the server extension has surely started by now, whatever
      // order JUnit runs the class's extensions in.
      clientA = RedisClient.create(redis.uri());
      clientB = RedisClient.create(redis.uri());
      raw = TestRedis.rawCommands(clientA);
    }
    String test = context.getTestMethod().map(method -> method.getName()).orElse("test");
    namespace = TestRedis.uniqueNamespace(test);
    clock = MutableClock.startingNow();
    eventsA = new RecordingEventPublisher();
    eventsB = new RecordingEventPublisher();
    testConfig = UnaryOperator.identity();
    a = null;
    b = null;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    opened.forEach(LazyRedisSessionRepository::close);
    opened.clear();
  }

  /** More configuration for the nodes of this test; call before the first {@link #a()}. */
  void configure(UnaryOperator<LazyRedisSessionRepositoryBuilder> config) {
    UnaryOperator<LazyRedisSessionRepositoryBuilder> before = testConfig;
    testConfig = builder -> config.apply(before.apply(builder));
  }

  /** Node A, built on first use. */
  LazyRedisSessionRepository a() {
    if (a == null) {
      a = open(configured(builder(clientA(), eventsA)));
    }
    return a;
  }

  /** Node B, built on first use. */
  LazyRedisSessionRepository b() {
    if (b == null) {
      b = open(configured(builder(clientB(), eventsB)));
    }
    return b;
  }

  /** Closes node A and builds it again with {@code change} on top of its configuration. */
  LazyRedisSessionRepository restartA(UnaryOperator<LazyRedisSessionRepositoryBuilder> change) {
    if (a != null) {
      a.close();
    }
    a = open(change.apply(configured(builder(clientA(), eventsA))));
    return a;
  }

  /** Closes node B and builds it again with {@code change} on top of its configuration. */
  LazyRedisSessionRepository restartB(UnaryOperator<LazyRedisSessionRepositoryBuilder> change) {
    if (b != null) {
      b.close();
    }
    b = open(change.apply(configured(builder(clientB(), eventsB))));
    return b;
  }

  /**
   * One more node on {@code client}, configured as A and B are plus {@code change}; closed after the
   * test (closing it earlier is fine).
   */
  LazyRedisSessionRepository another(RedisClient client, RecordingEventPublisher events,
      UnaryOperator<LazyRedisSessionRepositoryBuilder> change) {
    return open(change.apply(configured(builder(client, events))));
  }

  /**
   * A builder on {@code client} with this test's namespace, clock, the test serializer, no
   * background sweep and {@code events}; neither class nor test configuration applied.
   */
  LazyRedisSessionRepositoryBuilder builder(RedisClient client, RecordingEventPublisher events) {
    return LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer())
        .namespace(namespace)
        .clock(clock)
        .cleanupInterval(Duration.ZERO)
        .eventPublisher(events);
  }

  /** Builds a repository that is closed after the test. */
  LazyRedisSessionRepository open(LazyRedisSessionRepositoryBuilder builder) {
    LazyRedisSessionRepository repository = builder.build();
    opened.add(repository);
    return repository;
  }

  RedisClient clientA() {
    return require(clientA);
  }

  RedisClient clientB() {
    return require(clientB);
  }

  RedisCommands<byte[], byte[]> raw() {
    return require(raw);
  }

  MutableClock clock() {
    return clock;
  }

  RecordingEventPublisher eventsA() {
    return eventsA;
  }

  RecordingEventPublisher eventsB() {
    return eventsB;
  }

  /** The destroyed-session events of both nodes, A's first. */
  List<SessionDestroyedEvent> destroyed() {
    return Stream.concat(eventsA.ofType(SessionDestroyedEvent.class).stream(),
        eventsB.ofType(SessionDestroyedEvent.class).stream()).toList();
  }

  String namespace() {
    return namespace;
  }

  /** The key of session {@code id}'s hash. */
  byte[] sessionKey(String id) {
    // With encryption keys, node a knows the keyed name (nodes share it through Redis).
    return a != null ? a.shared().store().keys().session(id)
        : (namespace + ":s:{" + id + "}").getBytes(UTF_8);
  }

  private LazyRedisSessionRepositoryBuilder configured(LazyRedisSessionRepositoryBuilder builder) {
    return testConfig.apply(classConfig.apply(builder));
  }

  private static <T> T require(@Nullable T value) {
    if (value == null) {
      throw new IllegalStateException("TwoNodes is used outside a test; register it as a static "
          + "field with @RegisterExtension");
    }
    return value;
  }
}
