package io.lazysession.it.soak;

import io.lazysession.it.bench.shop.ShopSessions;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.LazyRedisSessionRepositoryBuilder;
import io.lazysession.redis.LazySession;
import io.lazysession.redis.config.ClientsFromProperties;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.testing.RedisNode;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Runs the fault soak: for each {@link SoakMode}, two application nodes (a repository with a Lettuce
 * client of its own each, through the Sentinels) and {@link SoakConfig#threadsPerMode()} client
 * threads; a baseline window, then one window per fault. At the end of each window the requests are
 * held off and every session of every thread is read from Redis (by a repository without near cache)
 * and compared with its ledger. The last window is verified after the threads stopped.
 */
final class FaultSoak {
  /** What one window measured, per mode. */
  record Window(@Nullable Fault fault, Map<SoakMode, WindowStats> stats, boolean failover,
      boolean steady) {
    String label() {
      return fault == null ? "none (baseline)" : fault.label();
    }
  }

  /** The whole run. */
  record Outcome(SoakConfig config, List<Window> windows, List<Fault> skipped, String redisVersion,
      Duration faultTime) {
    long lost(SoakMode mode) {
      return windows.stream().mapToLong(window -> window.stats().get(mode).lostWrites).sum();
    }
  }

  private static final ClassAllowList ALLOW_LIST = ClassAllowList.builder()
      .allowPackage(ShopSessions.class.getPackageName()).build();
  private static final int VERIFY_ATTEMPTS = 20;

  private final SoakConfig config;
  private final RedisServerExtension redis;
  private final Consumer<String> log;
  private final ReentrantReadWriteLock requests = new ReentrantReadWriteLock();
  private final List<RedisClient> clients = new ArrayList<>();
  private final List<LazyRedisSessionRepository> repositories = new ArrayList<>();
  private final Map<SoakMode, LazyRedisSessionRepository> verifiers = new EnumMap<>(SoakMode.class);
  private final List<SoakWorker> workers = new ArrayList<>();
  private volatile Map<SoakMode, WindowStats> current = newStats();
  private volatile boolean running = true;

  private FaultSoak(SoakConfig config, RedisServerExtension redis, Consumer<String> log) {
    this.config = config;
    this.redis = redis;
    this.log = log;
  }

  static Outcome run(SoakConfig config, RedisServerExtension redis, Consumer<String> log)
      throws InterruptedException {
    return new FaultSoak(config, redis, log).run();
  }

  private Outcome run() throws InterruptedException {
    List<Window> windows = new ArrayList<>();
    List<Fault> skipped = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    try (FaultInjector injector = new FaultInjector(redis, log)) {
      String version = injector.redisVersion();
      SoakWorker.Context context = new SoakWorker.Context() {
        @Override
        public WindowStats stats(SoakMode mode) {
          return current.get(mode);
        }

        @Override
        public Lock requestLock() {
          return requests.readLock();
        }

        @Override
        public boolean running() {
          return running;
        }
      };
      for (SoakMode mode : SoakMode.values()) {
        List<LazyRedisSessionRepository> nodes = List.of(node(mode, false), node(mode, false));
        verifiers.put(mode, node(mode, true));
        for (int i = 0; i < config.threadsPerMode(); i++) {
          SoakWorker worker = new SoakWorker(mode, i, nodes, context, config.think().toMillis());
          workers.add(worker);
          Thread thread = new Thread(worker, "soak-" + mode.name().toLowerCase() + "-" + i);
          threads.add(thread);
          thread.start();
        }
      }
      Thread.sleep(config.baseline().toMillis());
      Map<SoakMode, WindowStats> stats = current;
      windows.add(new Window(null, stats, false, true));
      long firstFault = System.nanoTime();
      for (Fault fault : config.faults()) {
        if (System.nanoTime() - firstFault > config.faultBudget().toNanos()) {
          skipped.add(fault);
          continue;
        }
        stats = nextWindow(stats);
        RedisNode before = injector.primary();
        long end = injector.inject(fault);
        stats.values().forEach(window -> window.faultEnded(end));
        boolean steady = injector.awaitSteady(config.settleTimeout());
        Thread.sleep(config.observe().toMillis());
        windows.add(new Window(fault, stats, injector.primary() != before, steady));
        log.accept("window " + fault + ": steady " + steady + ", " + summary(stats));
      }
      Duration faultTime = Duration.ofNanos(System.nanoTime() - firstFault);
      running = false;
      for (Thread thread : threads) {
        thread.join(30_000);
        if (thread.isAlive()) {
          throw new IllegalStateException(thread.getName() + " did not stop within 30 s");
        }
      }
      verify(stats);
      log.accept("last window verified: " + summary(stats));
      return new Outcome(config, windows, skipped, version, faultTime);
    } finally {
      running = false;
      repositories.forEach(LazyRedisSessionRepository::close);
      clients.forEach(client -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    }
  }

  /** Verifies the window that ends and starts the next one, with requests held off meanwhile. */
  private Map<SoakMode, WindowStats> nextWindow(Map<SoakMode, WindowStats> ending)
      throws InterruptedException {
    Map<SoakMode, WindowStats> next = newStats();
    requests.writeLock().lock();
    try {
      verify(ending);
      current = next;
    } finally {
      requests.writeLock().unlock();
    }
    return next;
  }

  private void verify(Map<SoakMode, WindowStats> stats) throws InterruptedException {
    for (SoakWorker worker : workers) {
      WindowStats window = stats.get(worker.mode());
      LazyRedisSessionRepository verifier = verifiers.get(worker.mode());
      for (SoakSession session : worker.sessionsToVerify()) {
        if (session.gone()) {
          continue;
        }
        Long stored = storedVersion(verifier, session.id);
        if (stored == null) {
          window.unverified++;
          continue;
        }
        if (stored < 0) {
          window.lostWrites += session.acknowledged();
          window.sessionsLost++;
          window.staleAfterLoss += session.staleReads();
          session.markGone();
          continue;
        }
        if (stored < session.acknowledged()) {
          window.lostWrites += session.acknowledged() - stored;
          window.staleAfterLoss += session.staleReads();
        } else {
          window.staleReads += session.staleReads();
          window.staleBeyondBound += session.staleBeyondBound();
        }
        session.verified(stored);
      }
      worker.verified();
    }
  }

  /** The stored version; -1 when the session is not in Redis; null when Redis did not answer. */
  private static @Nullable Long storedVersion(LazyRedisSessionRepository verifier, String id)
      throws InterruptedException {
    for (int attempt = 0; attempt < VERIFY_ATTEMPTS; attempt++) {
      try {
        LazySession session = verifier.findById(id);
        if (session == null) {
          return -1L;
        }
        Long version = session.getAttribute(SoakWorker.VERSION);
        return version == null ? 0L : version;
      } catch (RuntimeException e) {
        Thread.sleep(250);
      }
    }
    return null;
  }

  private LazyRedisSessionRepository node(SoakMode mode, boolean verifier) {
    RedisClient client = (RedisClient) ClientsFromProperties.create(Map.of(
        "spring.data.redis.sentinel.master", RedisServerExtension.SENTINEL_MASTER,
        "spring.data.redis.sentinel.nodes", redis.sentinels().stream()
            .map(node -> node.host() + ":" + node.port()).collect(Collectors.joining(",")),
        "spring.data.redis.timeout", "1s"));
    clients.add(client);
    LazyRedisSessionRepositoryBuilder builder = LazyRedisSessionRepository.builder(client)
        .serializer(AttributeSerializer.builder().allowList(ALLOW_LIST).build())
        .namespace("soak-" + ProcessHandle.current().pid() + "-" + mode.name().toLowerCase());
    LazyRedisSessionRepository repository = verifier ? builder.nearCacheMaxBytes(0).build()
        : mode.configure(builder).build();
    repositories.add(repository);
    return repository;
  }

  private static Map<SoakMode, WindowStats> newStats() {
    Map<SoakMode, WindowStats> stats = new EnumMap<>(SoakMode.class);
    for (SoakMode mode : SoakMode.values()) {
      stats.put(mode, new WindowStats());
    }
    return stats;
  }

  private static String summary(Map<SoakMode, WindowStats> stats) {
    return stats.entrySet().stream().map(entry -> entry.getKey().name() + " "
        + entry.getValue().requests.sum() + " requests, " + entry.getValue().failed.sum()
        + " failed " + entry.getValue().failures() + ", lost " + entry.getValue().lostWrites)
        .collect(Collectors.joining("; "));
  }
}
