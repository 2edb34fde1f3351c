package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.config.ClientsFromProperties;
import io.lazysession.testing.RedisNode;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary killed under load from two application nodes (two clients, two repositories) with
 * durability on (each save waits for the one replica). The Sentinels promote the replica (down-after
 * 1 s); Lettuce finds the new primary through them. Proves: no save that was acknowledged is missing on
 * the new primary; requests in between fail with the store's own exceptions (rejected while
 * disconnected, not queued); every worker is served again by the same repositories. Every loop is
 * bounded in requests and time.
 */
class SentinelFailoverIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.sentinel();

  private static final Logger log = LoggerFactory.getLogger(SentinelFailoverIT.class);
  private static final int WORKERS_PER_NODE = 2;
  private static final int REQUESTS_BEFORE_KILL = 20;
  private static final int REQUESTS_AFTER_FAILOVER = 20;
  private static final int MAX_REQUESTS = 5_000;
  private static final Duration MAX_RUN = Duration.ofSeconds(60);

  /** What one worker saw: its session, the attributes whose save was acknowledged, its failures. */
  static final class Worker {
    final LazyRedisSessionRepository node;
    final String sessionId;
    final List<String> acknowledged = new ArrayList<>();
    final List<String> appliedNotReplicated = new ArrayList<>();
    final AtomicInteger servedAfterKill = new AtomicInteger();
    int unavailable;
    int lostSession;

    Worker(LazyRedisSessionRepository node, String sessionId) {
      this.node = node;
      this.sessionId = sessionId;
    }
  }

  @Test
  void primaryKilled_underLoadWithDurability_losesNoAcknowledgedSaveAndResumes() throws Exception {
    redis.assumeFaultInjection();
    RedisNode oldPrimary = redis.primary();
    Map<String, String> properties = Map.of(
        "spring.data.redis.sentinel.master", RedisServerExtension.SENTINEL_MASTER,
        "spring.data.redis.sentinel.nodes", redis.sentinels().stream()
            .map(node -> node.host() + ":" + node.port()).collect(Collectors.joining(",")),
        "spring.data.redis.timeout", "1s");
    RedisClient clientA = (RedisClient) ClientsFromProperties.create(properties);
    RedisClient clientB = (RedisClient) ClientsFromProperties.create(properties);
    String namespace = TestRedis.uniqueNamespace("failover");
    List<Worker> workers = new ArrayList<>();
    ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    try (LazyRedisSessionRepository nodeA = node(clientA, namespace);
        LazyRedisSessionRepository nodeB = node(clientB, namespace)) {
      for (LazyRedisSessionRepository node : List.of(nodeA, nodeB)) {
        for (int i = 0; i < WORKERS_PER_NODE; i++) {
          LazySession session = node.createSession();
          session.setAttribute("owner", "worker-" + workers.size());
          node.save(session);
          workers.add(new Worker(node, session.getId()));
        }
      }
      CountDownLatch warmedUp = new CountDownLatch(workers.size());
      AtomicBoolean killed = new AtomicBoolean();
      long deadline = System.nanoTime() + MAX_RUN.toNanos();
      List<Thread> threads = new ArrayList<>();
      for (Worker worker : workers) {
        Thread thread = new Thread(() -> {
          try {
            run(worker, warmedUp, killed, deadline);
          } catch (Throwable e) {
            unexpected.add(e);
          }
        }, "failover-worker-" + threads.size());
        threads.add(thread);
        thread.start();
      }

      assertThat(warmedUp.await(30, TimeUnit.SECONDS)).as("workers warmed up").isTrue();
      oldPrimary.kill();
      killed.set(true);
      for (Thread thread : threads) {
        thread.join(MAX_RUN.toMillis() + 10_000);
        assertThat(thread.isAlive()).as(thread.getName() + " finished").isFalse();
      }
    } finally {
      clientA.shutdown();
      clientB.shutdown();
    }

    int failures = workers.stream().mapToInt(worker -> worker.unavailable).sum();
    log.info("failover run: {} acknowledged saves, {} applied but not replicated (no replica left "
        + "after the promotion), {} requests failed as unavailable",
        workers.stream().mapToInt(worker -> worker.acknowledged.size()).sum(),
        workers.stream().mapToInt(worker -> worker.appliedNotReplicated.size()).sum(), failures);
    assertThat(unexpected).as("failures other than the store's own exceptions").isEmpty();
    assertThat(failures).as("requests that failed fast while there was no primary").isPositive();
    assertThat(workers).allSatisfy(worker -> {
      assertThat(worker.lostSession).as("session lost").isZero();
      assertThat(worker.servedAfterKill.get()).as("served again after the failover")
          .isGreaterThanOrEqualTo(REQUESTS_AFTER_FAILOVER);
    });

    RedisURI newPrimary = currentPrimary();
    assertThat(newPrimary.getPort()).as("the replica was promoted").isNotEqualTo(oldPrimary.port());
    RedisClient direct = RedisClient.create(newPrimary);
    try (StatefulRedisConnection<byte[], byte[]> connection = direct.connect(ByteArrayCodec.INSTANCE)) {
      SessionKeys keys = new SessionKeys(namespace);
      for (Worker worker : workers) {
        Set<String> stored = new HashSet<>(TestRedis.storedAttributes(connection.sync(),
            keys.session(worker.sessionId)).keySet());
        assertThat(stored).as("session %s on the new primary", worker.sessionId)
            .containsAll(worker.acknowledged).containsAll(worker.appliedNotReplicated);
      }
    } finally {
      direct.shutdown();
    }
  }

  private static LazyRedisSessionRepository node(RedisClient client, String namespace) {
    return LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer())
        .namespace(namespace)
        .cleanupInterval(Duration.ZERO)
        .durability(1, Duration.ofMillis(500))
        .build();
  }

  /**
   * One request after another on the worker's own session, each setting an attribute of its own;
   * stops once it has been served {@link #REQUESTS_AFTER_FAILOVER} times after the kill.
   */
  private static void run(Worker worker, CountDownLatch warmedUp, AtomicBoolean killed,
      long deadline) throws InterruptedException {
    for (int i = 0; i < MAX_REQUESTS && System.nanoTime() < deadline; i++) {
      boolean afterKill = killed.get();
      String attribute = "r" + i;
      try {
        LazySession session = worker.node.findById(worker.sessionId);
        if (session == null) {
          worker.lostSession++;
          return;
        }
        session.setAttribute(attribute, i);
        worker.node.save(session);
        worker.acknowledged.add(attribute);
        served(worker, afterKill);
      } catch (SessionNotReplicatedException e) {
        worker.appliedNotReplicated.add(attribute); // on the primary, but no replica has it
        served(worker, afterKill);
      } catch (SessionStoreUnavailableException e) {
        assertThat(e).hasCauseInstanceOf(RedisException.class);
        worker.unavailable++;
      }
      if (!afterKill && worker.acknowledged.size() == REQUESTS_BEFORE_KILL) {
        warmedUp.countDown();
      }
      if (worker.servedAfterKill.get() >= REQUESTS_AFTER_FAILOVER) {
        return;
      }
      Thread.sleep(5);
    }
  }

  private static void served(Worker worker, boolean afterKill) {
    if (afterKill) {
      worker.servedAfterKill.incrementAndGet();
    }
  }

  /** The primary the Sentinels name now. */
  private static RedisURI currentPrimary() {
    RedisNode sentinel = redis.sentinels().get(0);
    RedisClient client = RedisClient.create();
    try (StatefulRedisSentinelConnection<String, String> connection =
        client.connectSentinel(sentinel.uri())) {
      SocketAddress address =
          connection.sync().getMasterAddrByName(RedisServerExtension.SENTINEL_MASTER);
      java.net.InetSocketAddress inet = (java.net.InetSocketAddress) address;
      return RedisURI.create(inet.getHostString(), inet.getPort());
    } finally {
      client.shutdown();
    }
  }
}
