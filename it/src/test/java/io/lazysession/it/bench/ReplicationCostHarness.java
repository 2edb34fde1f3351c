package io.lazysession.it.bench;

import com.sun.management.OperatingSystemMXBean;
import io.lazysession.it.bench.LoadRunner.Batch;
import io.lazysession.it.bench.RedisMeter.Counters;
import io.lazysession.it.bench.RedisMeter.StoredBytes;
import io.lazysession.it.bench.shop.Cart;
import io.lazysession.it.bench.shop.SessionSize;
import io.lazysession.it.bench.shop.ShopSessions;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The replication-cost benchmark: for every store, session size, workload and thread count, runs a
 * warm-up batch then a measured batch of requests against one Redis, with nothing else talking to
 * that Redis, and reads what each request cost from Redis's own counters and from the client JVM.
 * Also measures one PING, the floor of any request. Not thread-safe; one run at a time.
 *
 * <p>Per store and size: {@code bench.sessions} sessions are created (seeds never used to train the
 * dictionary), their keys measured, then the workloads run over them, each thread on its own share of
 * the sessions. The creation workload creates new sessions, bounded in bytes, and deletes them after.
 */
final class ReplicationCostHarness {
  /** Seeds of the measured sessions start here; the dictionary is trained on seeds below 1000. */
  static final long MEASURED_SEED = 1_000_000;
  static final String PING_STORE = "redis-ping";
  static final String PING_WORKLOAD = "PING";
  private static final int TEMPLATES = 16;
  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private final BenchConfig config;
  private final RedisURI uri;
  private final Consumer<String> log;

  ReplicationCostHarness(BenchConfig config, RedisURI uri, Consumer<String> log) {
    this.config = config;
    this.uri = uri;
    this.log = log;
  }

  /** Runs the whole matrix; cells of stores that cannot run are reported as such. */
  List<CellResult> run() {
    List<CellResult> results = new ArrayList<>();
    try (RedisMeter meter = new RedisMeter(uri)) {
      results.addAll(ping(meter, "start"));
      ZstdDictionary dictionary = Stores.trainDictionary();
      log.accept("trained a " + dictionary.size() + "-byte zstd dictionary on "
          + Stores.TRAINING_SESSIONS + " sessions");
      List<StoreSpec> stores = Stores.all(dictionary);
      if (!config.globalWarmup().isZero()) {
        for (StoreSpec spec : stores) {
          if (config.runs(spec) && spec.available()) {
            warmUp(spec, meter);
          }
        }
        log.accept("warmed up every store");
      }
      for (StoreSpec spec : stores) {
        if (!config.runs(spec)) {
          continue;
        }
        if (!spec.available()) {
          results.add(CellResult.unavailable(spec, Objects.requireNonNull(spec.unavailable())));
          log.accept(spec.name() + ": " + spec.unavailable());
          continue;
        }
        for (SessionSize size : config.sizes()) {
          results.addAll(runStore(spec, size, meter));
        }
      }
      // Again at the end, the JVM warm: the floor is the faster of the two.
      results.addAll(ping(meter, "end"));
    }
    return results;
  }

  private List<CellResult> ping(RedisMeter meter, String when) {
    List<CellResult> results = new ArrayList<>();
    LongAdder sent = new LongAdder();
    RedisClient client = RedisClient.create(uri);
    client.addListener(new CommandListener() {
      @Override
      public void commandStarted(CommandStartedEvent event) {
        sent.increment();
      }
    });
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      for (int threads : config.threads()) {
        CellResult result = measure(meter, sent::sum, PING_STORE, when, PING_WORKLOAD, threads,
            Double.NaN, Double.NaN, config.maxRequests(), (worker, i) -> "PONG".equals(redis.ping()),
            created -> { });
        results.add(result);
        log.accept(line(result));
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    return results;
  }

  /** Runs every workload of one store on the reference session, unmeasured, for the JIT. */
  private void warmUp(StoreSpec spec, RedisMeter meter) {
    String pattern = spec.namespace() + ":*";
    meter.delete(pattern);
    List<Map<String, Object>> templates = new ArrayList<>();
    for (int i = 0; i < TEMPLATES; i++) {
      templates.add(ShopSessions.create(SessionSize.REFERENCE, MEASURED_SEED + 700_000 + i));
    }
    try (SessionStore store = spec.open(uri)) {
      List<String> ids = new ArrayList<>();
      for (Map<String, Object> template : templates) {
        ids.add(store.node(0).create(template));
      }
      for (Workload workload : Workload.values()) {
        LoadRunner.Batch batch = LoadRunner.run(1, config.globalWarmup(), config.maxRequests(),
            request(store, workload, ids, templates));
        batch.created().forEach(store.node(0)::delete);
      }
    } finally {
      meter.delete(pattern);
    }
  }

  private List<CellResult> runStore(StoreSpec spec, SessionSize size, RedisMeter meter) {
    String pattern = spec.namespace() + ":*";
    meter.delete(pattern);
    List<CellResult> results = new ArrayList<>();
    List<Map<String, Object>> templates = new ArrayList<>();
    for (int i = 0; i < TEMPLATES; i++) {
      templates.add(ShopSessions.create(size, MEASURED_SEED + 500_000 + i));
    }
    try (SessionStore store = spec.open(uri)) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < config.sessions(); i++) {
        ids.add(store.node(0).create(ShopSessions.create(size, MEASURED_SEED + i)));
      }
      StoredBytes stored = meter.stored(pattern);
      double memoryPerSession = (double) stored.memoryUsage() / ids.size();
      double bytesPerSession = (double) stored.fieldBytes() / ids.size();
      checkReadable(store, ids.get(0), size);
      for (Workload workload : config.workloads()) {
        for (int threads : config.threads()) {
          int cap = config.maxRequests();
          if (workload == Workload.CREATE) {
            cap = (int) Math.max(threads, Math.min(cap,
                config.createBudgetBytes() / Math.max(1.0, memoryPerSession)));
          }
          LoadRunner.Request request = request(store, workload, ids, templates);
          CellResult result = measure(meter, store::commandsSent, spec.name(), size.label(),
              workload.label(), threads, memoryPerSession, bytesPerSession, cap, request,
              created -> created.forEach(store.node(0)::delete));
          results.add(result);
          log.accept(line(result));
        }
      }
    } finally {
      meter.delete(pattern);
    }
    return results;
  }

  /** A session written by node 0 reads back, equal, on node 1: the store works before it is timed. */
  private static void checkReadable(SessionStore store, String id, SessionSize size) {
    Object written = ShopSessions.create(size, MEASURED_SEED).get(ShopSessions.CART);
    Object read = store.node(1).attribute(id, ShopSessions.CART);
    if (!(read instanceof Cart) || !read.equals(written)) {
      throw new IllegalStateException(store.spec().name() + " does not read back the cart it wrote: "
          + read);
    }
  }

  private LoadRunner.Request request(SessionStore store, Workload workload, List<String> ids,
      List<Map<String, Object>> templates) {
    StoreNode<?> node0 = store.node(0);
    StoreNode<?> node1 = store.node(1);
    return switch (workload) {
      case READ -> (worker, i) -> node0.readCart(worker.pick(ids, i));
      case WRITE -> (worker, i) -> node0.changeCart(worker.pick(ids, i));
      case MIX -> (worker, i) -> {
        StoreNode<?> node = worker.random.nextBoolean() ? node1 : node0;
        String id = worker.pick(ids, i);
        return worker.random.nextInt(10) == 0 ? node.changeCart(id) : node.readCart(id);
      };
      case CREATE -> (worker, i) -> {
        worker.created.add(node0.create(worker.pick(templates, i)));
        return true;
      };
    };
  }

  private interface SentCounter {
    long sent();
  }

  /**
   * Warms up, then measures one batch: Redis counters around it (minus what reading them costs),
   * commands the client sent, process CPU, and what the batch itself recorded. Sessions the batches
   * create are deleted after each (not measured), to bound Redis memory.
   */
  private CellResult measure(RedisMeter meter, SentCounter sent, String store, String size,
      String workload, int threads, double memoryPerSession, double bytesPerSession, int cap,
      LoadRunner.Request request, Consumer<List<String>> deleteCreated) {
    if (!config.warmup().isZero()) {
      Batch warmup = LoadRunner.run(threads, config.warmup(), cap, request);
      deleteCreated.accept(warmup.created());
    }
    Counters overhead = meter.emptyBatch();
    long sentBefore = sent.sent();
    long cpuBefore = OS.getProcessCpuTime();
    Counters before = meter.counters();
    Batch batch = LoadRunner.run(threads, config.measure(), cap, request);
    Counters after = meter.counters();
    long cpuAfter = OS.getProcessCpuTime();
    long sentAfter = sent.sent();
    deleteCreated.accept(batch.created());
    Counters delta = after.minus(before).minus(overhead);
    double n = Math.max(1, batch.requests());
    return new CellResult(store, size, workload, threads, batch.requests(), batch.errors(),
        memoryPerSession, bytesPerSession, delta.commands() / n, (sentAfter - sentBefore) / n,
        Math.max(0, delta.netInput()) / n, Math.max(0, delta.netOutput()) / n,
        batch.cpuNanos() / n / 1e3, (cpuAfter - cpuBefore) / n / 1e3, batch.allocatedBytes() / n,
        batch.percentileMicros(0.50), batch.percentileMicros(0.99),
        batch.requests() / (batch.wallNanos() / 1e9), batch.firstError());
  }

  static String line(CellResult r) {
    return String.format(java.util.Locale.ROOT,
        "%-22s %-9s %-20s %2dt %7d req %3d err | %6.2f cmds %5.2f rt | in %8.0f B out %8.0f B"
            + " | cpu %7.1f us | p50 %7.1f us p99 %8.1f us | %8.0f req/s",
        r.store(), r.size(), r.workload(), r.threads(), r.requests(), r.errors(),
        r.redisCommandsPerRequest(), r.roundTripsPerRequest(), r.bytesInPerRequest(),
        r.bytesOutPerRequest(), r.cpuMicrosPerRequest(), r.p50Micros(), r.p99Micros(),
        r.throughput());
  }
}
