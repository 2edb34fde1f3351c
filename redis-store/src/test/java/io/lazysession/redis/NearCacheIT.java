package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.EventBus;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * The near cache seen from Redis: what a read-only request on a warm node costs on the wire
 * ({@code INFO stats total_net_output_bytes}, the bytes Redis sent), and that a change saved on
 * another node is never hidden by a cached copy.
 *
 * <p>Method for the byte count: Redis counts the reply to every INFO it answers, so the delta
 * between the INFO taken before and the INFO taken after the request includes the bytes of the
 * "before" reply. That reply is read in RESP2, where it is exactly {@code $<length>\r\n<body>\r\n},
 * and subtracted. Nothing else talks to this server meanwhile (the repositories do not sweep).
 */
class NearCacheIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private static final Logger log = LoggerFactory.getLogger(NearCacheIT.class);
  private static final Pattern OUTPUT_BYTES = Pattern.compile("total_net_output_bytes:(\\d+)");

  static TestRedis.TwoClients clients;
  static RedisClient statsClient;
  static StatefulRedisConnection<String, String> statsConnection;
  static CommandStats commandStats;
  static LazyRedisSessionRepository nodeA;
  static LazyRedisSessionRepository nodeB;

  @BeforeAll
  static void start() {
    clients = TestRedis.TwoClients.open(redis.uri());
    statsClient = RedisClient.create(redis.uri());
    statsClient.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build());
    statsConnection = statsClient.connect();
    commandStats = new CommandStats(statsConnection.sync());
    String namespace = TestRedis.uniqueNamespace("nearcache");
    nodeA = node(clients.a(), namespace);
    nodeB = node(clients.b(), namespace);
  }

  static LazyRedisSessionRepository node(RedisClient client, String namespace) {
    return LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer())
        .namespace(namespace)
        .cleanupInterval(Duration.ZERO)
        .build();
  }

  @AfterAll
  static void stop() {
    nodeA.close();
    nodeB.close();
    statsConnection.close();
    statsClient.shutdown();
    clients.close();
  }

  static String storedSession() {
    return TestRedis.storeShopSession(nodeA);
  }

  @Test
  void findById_warmNode_costsOneRoundTripAndUnder100BytesFromRedis() {
    String id = storedSession();
    nodeB.findById(id); // B loads the whole hash once: now warm
    long roundTripsBefore = nodeB.metrics().roundTrips();

    long sentByRedis = bytesSentByRedisDuring(() -> {
      LazySession session = nodeB.findById(id);
      assertThat(session.<Integer>getAttribute("visits")).isEqualTo(42);
      nodeB.save(session); // read-only: nothing to write
    });

    log.info("read-only request on a warm node: {} bytes sent by Redis", sentByRedis);
    assertThat(nodeB.metrics().roundTrips() - roundTripsBefore).isEqualTo(1);
    assertThat(sentByRedis).isPositive().isLessThan(100);
  }

  @Test
  void findById_warmNode_isOneScriptCallByRedisCount() {
    String id = storedSession();
    nodeB.findById(id);

    Map<String, Long> delta = commandStats.during(() -> nodeB.findById(id));

    assertThat(delta).isEqualTo(Map.of(commandStats.findCommand(), 1L, "hget", 1L));
  }

  @Test
  void findById_changeSavedOnOtherWarmNode_isSeenOnTheNextRequest() {
    String id = storedSession();
    nodeA.findById(id);
    nodeB.findById(id); // both warm

    LazySession onB = nodeB.findById(id);
    onB.setAttribute("currency", "CHF");
    onB.removeAttribute("avatar");
    nodeB.save(onB);
    LazySession onA = nodeA.findById(id);

    assertThat(onA.<String>getAttribute("currency")).isEqualTo("CHF");
    assertThat(onA.getAttributeNames()).doesNotContain("avatar");
    assertThat(onA.version()).isEqualTo(onB.version());
  }

  @Test
  void findById_sessionDeletedOnOtherNode_isGoneDespiteCachedCopy() {
    String id = storedSession();
    nodeB.findById(id);

    nodeA.deleteById(id);

    assertThat(nodeB.findById(id)).isNull();
  }

  /**
   * A write lost in a failover: the primary that takes over serves the version before it, and the
   * next write there, from another node, makes a version of its own. The node whose write was lost
   * still holds a near-cached copy of it, which must not be taken for that next write (both made on
   * one version: with versions counted up by one they would be equal). No connection dropped, so
   * nothing told the near cache to start again.
   */
  @Test
  void findById_ownWriteLostInAFailoverAndAnotherWriteOnTheSameVersion_isNotServedFromTheCache() {
    String id = storedSession();
    byte[] key = nodeA.shared().store().keys().session(id);
    LazySession beforeLoss = nodeA.findById(id);
    byte[] primaryAfterFailover = clients.raw().dump(key); // what the replica had
    long ttl = clients.raw().pttl(key);
    beforeLoss.setAttribute("currency", "lost in the failover");
    nodeA.save(beforeLoss); // A's near cache holds this copy
    assertThat(nodeA.findById(id).<String>getAttribute("currency"))
        .isEqualTo("lost in the failover");

    clients.raw().restore(key, primaryAfterFailover,
        io.lettuce.core.RestoreArgs.Builder.ttl(ttl).replace());
    LazySession onB = nodeB.findById(id);
    onB.setAttribute("currency", "written after the failover");
    nodeB.save(onB);

    assertThat(nodeA.findById(id).<String>getAttribute("currency"))
        .isEqualTo("written after the failover");
  }

  /**
   * An event bus that hands each event to its subscribers in subscription order before
   * {@code publish} returns: once a test's own subscriber (subscribed after the repository was
   * built) has an event, the repository has seen it too.
   */
  static final class InOrderEventBus implements EventBus {
    private final Sinks.Many<Event> sink = Sinks.many().multicast().directBestEffort();

    @Override
    public Flux<Event> get() {
      return sink.asFlux();
    }

    @Override
    public synchronized void publish(Event event) {
      sink.tryEmitNext(event);
    }
  }

  @Test
  void findById_otherConnectionOfTheSameClientClosed_keepsTheCachedCopy() {
    ClientResources resources = DefaultClientResources.builder()
        .eventBus(new InOrderEventBus()).build();
    RedisClient client = RedisClient.create(resources, redis.uri());
    try (LazyRedisSessionRepository node =
        node(client, TestRedis.uniqueNamespace("nearcache-other-connection"))) {
      String id = TestRedis.storeShopSession(node); // cached
      List<Event> deactivated = new CopyOnWriteArrayList<>();
      Disposable watch = resources.eventBus().get()
          .filter(ConnectionDeactivatedEvent.class::isInstance).subscribe(deactivated::add);
      client.connect().close();
      await().atMost(Duration.ofSeconds(30)).until(() -> !deactivated.isEmpty());
      watch.dispose();
      long hits = node.metrics().nearCacheHits();

      node.findById(id);

      assertThat(node.metrics().nearCacheHits()).isEqualTo(hits + 1);
    } finally {
      client.shutdown();
      resources.shutdown();
    }
  }

  @Test
  void findById_repositoryConnectionDropped_loadsTheWholeHashAgain() {
    RedisClient client = RedisClient.create(RedisURI.builder(redis.uri())
        .withClientName("lazysession-dropped").build());
    try (LazyRedisSessionRepository node =
        node(client, TestRedis.uniqueNamespace("nearcache-dropped"))) {
      String id = TestRedis.storeShopSession(node); // cached
      RedisCommands<String, String> admin = statsConnection.sync();
      for (String line : admin.clientList().split("\n")) {
        if (line.contains(" name=lazysession-dropped ")) {
          admin.clientKill(KillArgs.Builder.id(Long.parseLong(line.split(" ")[0].substring(3))));
        }
      }

      // After the drop, a findById that is no near-cache hit comes (the copy was forgotten).
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
        long hits = node.metrics().nearCacheHits();
        assertThat(node.findById(id)).isNotNull();
        return node.metrics().nearCacheHits() == hits;
      });
    } finally {
      client.shutdown();
    }
  }

  /** Bytes Redis wrote to its clients while {@code action} ran, minus the INFO reply measuring it. */
  private static long bytesSentByRedisDuring(Runnable action) {
    RedisCommands<String, String> stats = statsConnection.sync();
    String before = stats.info("stats");
    action.run();
    String after = stats.info("stats");
    int bodyLength = before.getBytes(StandardCharsets.UTF_8).length;
    long beforeReply = 1 + Integer.toString(bodyLength).length() + 2 + bodyLength + 2;
    return outputBytes(after) - outputBytes(before) - beforeReply;
  }

  private static long outputBytes(String info) {
    Matcher matcher = OUTPUT_BYTES.matcher(info);
    assertThat(matcher.find()).as("INFO stats has total_net_output_bytes").isTrue();
    return Long.parseLong(matcher.group(1));
  }
}
