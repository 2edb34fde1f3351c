package io.lazysession.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Concurrent durable saves of different sessions, from one repository: what each save ended with.
 * Shared by the durability tests with and without a replica.
 */
final class DurableSaves {
  static final int SESSIONS = 12;
  static final Duration WAIT_TIMEOUT = Duration.ofMillis(500);
  /** Shorter than SESSIONS WAIT timeouts one after another: saves queued behind WAITs would fail. */
  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

  private DurableSaves() {}

  /** A client that fails fast, as the Spring configurations build it. */
  static RedisClient client(RedisURI uri) {
    RedisClient client = RedisClient.create(uri);
    client.setOptions(ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(COMMAND_TIMEOUT))
        .build());
    return client;
  }

  /**
   * Stores {@link #SESSIONS} sessions, then changes each from its own thread through a repository
   * with durability 1, all saves released at once.
   *
   * @return per session: its id, and null for a save that returned or the exception it threw
   */
  static List<Outcome> run(RedisClient client, String namespace) throws Exception {
    return run(client, namespace, SESSIONS, WAIT_TIMEOUT);
  }

  /** As {@link #run(RedisClient, String)}, with {@code sessions} sessions and WAIT's timeout. */
  static List<Outcome> run(RedisClient client, String namespace, int sessions, Duration waitTimeout)
      throws Exception {
    List<String> ids = new ArrayList<>();
    try (LazyRedisSessionRepository plain = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(namespace).cleanupInterval(Duration.ZERO)
        .build()) {
      for (int i = 0; i < sessions; i++) {
        LazySession session = plain.createSession();
        session.setAttribute("step", "cart");
        plain.save(session);
        ids.add(session.getId());
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(sessions);
    try (LazyRedisSessionRepository durable = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(namespace).cleanupInterval(Duration.ZERO)
        .nearCacheMaxBytes(0).durability(1, waitTimeout).build()) {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Outcome>> futures = new ArrayList<>();
      for (String id : ids) {
        futures.add(pool.submit(() -> {
          LazySession session = durable.findById(id);
          session.setAttribute("step", "payment");
          go.await();
          try {
            durable.save(session);
            return new Outcome(id, null);
          } catch (SessionStoreException e) {
            return new Outcome(id, e);
          }
        }));
      }
      go.countDown();
      List<Outcome> outcomes = new ArrayList<>();
      for (Future<Outcome> future : futures) {
        outcomes.add(future.get(60, TimeUnit.SECONDS));
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }

  /** The step each session holds in Redis now. */
  static List<String> storedSteps(RedisClient client, String namespace, List<Outcome> outcomes) {
    try (LazyRedisSessionRepository reader = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(namespace).cleanupInterval(Duration.ZERO)
        .build()) {
      return outcomes.stream().map(outcome -> reader.findById(outcome.id()))
          .map(session -> session.<String>getAttribute("step")).toList();
    }
  }

  record Outcome(String id, SessionStoreException failure) {}
}
