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
import org.jspecify.annotations.Nullable;

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
  /** Workload label of the per-store floor: one PING on the store's own Lettuce client. */
  static final String SAME_CLIENT_PING = "PING, same client";
  /** Attribute that holds the 1 MB, 10 MB and 20 MB values. */
  static final String DOCUMENT = "document";
  /** Sizes of the large-value cells, and of the value that must round-trip or be refused clearly. */
  static final List<Integer> LARGE_VALUE_BYTES = List.of(1 << 20, 10 << 20);
  static final int HUGE_VALUE_BYTES = 20 << 20;
  /**
   * Stores of the large-value cells: the peer, Kryo with and without zstd, the defaults with the
   * near cache.
   */
  static final List<String> LARGE_VALUE_STORES =
      List.of("spring", "lazy-kryo", "lazy-kryo-zstd", "lazy-kryo-zstd+near");
  /** hash-max-listpack-value settings the memory cells are repeated with (besides the default). */
  static final List<Integer> RAISED_LISTPACK_VALUES = List.of(1024, 4096);
  /**
   * Sessions the memory cells write per store: more than Redis's default zset-max-listpack-entries
   * (128), so that the index keys of a store (lazysession's expiry schedule, the indexed Spring
   * Session repository's sets) take the encoding they have in production, where a sorted set member
   * costs about three times what it costs in a small set's listpack.
   */
  static final int MEMORY_SESSIONS = 256;
  /**
   * Stores of the interleaved floor cells: the defaults with and without the near cache, with the
   * tracked near cache (a hit without a call), with encryption keys (what sealing costs), and Kryo
   * without compression (what zstd costs).
   */
  static final List<String> FLOOR_STORES = List.of("lazy-kryo", "lazy-kryo-zstd",
      "lazy-kryo-zstd+near", Stores.TRACKED, Stores.ENCRYPTED);
  static final String SAVE_WORKLOAD = "save (create session holding it)";
  static final String READ_WORKLOAD = "read it";
  private static final int TEMPLATES = 16;
  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private final BenchConfig config;
  private final RedisURI uri;
  private final @Nullable RedisURI replicatedUri;
  private final Consumer<String> log;

  /**
   * @param uri the Redis of the matrix (nothing else talks to it)
   * @param replicatedUri the primary of a primary + replica pair, for the durable-save cells; null to
   *     skip them
   */
  ReplicationCostHarness(BenchConfig config, RedisURI uri, @Nullable RedisURI replicatedUri,
      Consumer<String> log) {
    this.config = config;
    this.uri = uri;
    this.replicatedUri = replicatedUri;
    this.log = log;
  }

  /** MEMORY USAGE per reference session of one store under one hash-max-listpack-value. */
  record MemoryResult(String store, String setting, int listpackValue, boolean redisDefault,
      int sessions, double memoryPerSession, double fieldBytesPerSession, long hashes,
      long compactHashes) {}

  /** What happened to a session holding a 20 MB value: saved and read back equal, or refused. */
  record HugeValueResult(String store, int bytes, boolean roundTrips, String outcome,
      double saveMillis, double readMillis) {}

  /** One cell of an interleaved floor round: a store's PING, read or change (reference, 1 thread). */
  record FloorCell(String store, String workload, int round, CellResult cell) {}

  /** A floor store, open, and the ids of the reference sessions created on its node 0. */
  record FloorStore(SessionStore store, List<String> ids) {}

  /** Everything one run measured. */
  record Run(List<CellResult> cells, List<MemoryResult> memory, List<HugeValueResult> huge,
      List<FloorCell> floor, List<PairedRounds.Cell> paired) {}

  /** Runs the matrix, then the extra cells; cells of stores that cannot run are reported as such. */
  Run run() {
    List<CellResult> results = new ArrayList<>();
    List<MemoryResult> memory = new ArrayList<>();
    List<HugeValueResult> huge = new ArrayList<>();
    List<FloorCell> floor = new ArrayList<>();
    List<PairedRounds.Cell> paired = new ArrayList<>();
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
      if (config.floorRounds() > 0 || config.pairedRounds() > 0) {
        onFloorStores(stores, meter, open -> {
          floor.addAll(floorRounds(open, meter)); // bench.floorRounds=0 skips them
          paired.addAll(new PairedRounds(config, log).run(open)); // bench.pairedRounds=0 skips them
        });
      }
      if (config.extras()) {
        memory.addAll(memory(stores, meter));
        results.addAll(largeValues(stores, meter));
        huge.addAll(hugeValue(stores));
        if (replicatedUri != null) {
          results.addAll(durableSaves(replicatedUri));
        }
      }
      // Again at the end, the JVM warm: the floor is the faster of the two.
      results.addAll(ping(meter, "end"));
    }
    return new Run(results, memory, huge, floor, paired);
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
        CellResult result = measure(meter, sent::sum, null, PING_STORE, when, PING_WORKLOAD,
            threads, Double.NaN, Double.NaN, config.maxRequests(),
            (worker, i) -> "PONG".equals(redis.ping()), created -> { });
        results.add(result);
        log.accept(line(result));
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    return results;
  }

  /**
   * Runs every workload of one store on the reference session, unmeasured, until the JIT has compiled
   * it ({@link JitWarmup}).
   */
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
        LoadRunner.Request request = request(store, workload, ids, templates);
        JitWarmup.Outcome outcome = JitWarmup.run(config.globalWarmup(), config.warmupCap(),
            slice -> LoadRunner.run(1, slice, config.maxRequests(), request).created()
                .forEach(store.node(0)::delete));
        log.accept("warm-up " + spec.name() + " " + workload + ": " + outcome.describe());
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
      // The floor of this store's cells, next to them in time: one PING on the store's own client.
      CellResult floor = measure(meter, store::commandsSent, null, spec.name(), size.label(),
          SAME_CLIENT_PING, fewThreads(), Double.NaN, Double.NaN, config.maxRequests(),
          (worker, i) -> store.ping(), created -> { });
      results.add(floor);
      log.accept(line(floor));
      for (Workload workload : config.workloads()) {
        for (int threads : config.threads()) {
          int cap = config.maxRequests();
          if (workload == Workload.CREATE) {
            cap = (int) Math.max(threads, Math.min(cap,
                config.createBudgetBytes() / Math.max(1.0, memoryPerSession)));
          }
          LoadRunner.Request request = request(store, workload, ids, templates);
          CellResult result = measure(meter, store::commandsSent, store, spec.name(),
              size.label(), workload.label(), threads, memoryPerSession, bytesPerSession, cap,
              request,
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

  // ---- cells beyond the matrix -------------------------------------------------------------------

  /**
   * Opens each floor store of this run once ({@link #FLOOR_STORES} that run and are available, in
   * that order), creates {@code bench.sessions} reference sessions on its node 0, hands them to the
   * measurements, then closes the stores and deletes their keys.
   */
  private void onFloorStores(List<StoreSpec> stores, RedisMeter meter,
      Consumer<List<FloorStore>> measurements) {
    List<StoreSpec> chosen = stores.stream().filter(s -> FLOOR_STORES.contains(s.name())
        && config.runs(s) && s.available()).toList();
    List<SessionStore> open = new ArrayList<>();
    List<FloorStore> floorStores = new ArrayList<>();
    try {
      for (StoreSpec spec : chosen) {
        meter.delete(spec.namespace() + ":*");
        SessionStore store = spec.open(uri);
        open.add(store);
        List<String> created = new ArrayList<>();
        for (int i = 0; i < config.sessions(); i++) {
          created.add(store.node(0).create(ShopSessions.create(SessionSize.REFERENCE,
              MEASURED_SEED + i)));
        }
        floorStores.add(new FloorStore(store, List.copyOf(created)));
      }
      measurements.accept(floorStores);
    } finally {
      RuntimeException failure = null;
      for (SessionStore store : open) {
        try {
          store.close();
        } catch (RuntimeException e) {
          failure = e;
        }
        meter.delete(store.spec().namespace() + ":*");
      }
      if (failure != null) {
        throw failure;
      }
    }
  }

  /**
   * The CPU targets compare a request with one PING on the same client; on a shared machine the
   * load moves between cells, so these cells run in rounds, each round measuring, store after
   * store, a PING on the store's client, then its read and change requests (reference session, 1
   * thread). The report takes medians over the rounds.
   */
  private List<FloorCell> floorRounds(List<FloorStore> stores, RedisMeter meter) {
    List<FloorCell> results = new ArrayList<>();
    for (int round = 1; round <= config.floorRounds(); round++) {
      for (FloorStore floorStore : stores) {
        SessionStore store = floorStore.store();
        List<String> storeIds = floorStore.ids();
        String name = store.spec().name();
        String size = SessionSize.REFERENCE.label();
        CellResult ping = measure(meter, store::commandsSent, null, name, size, SAME_CLIENT_PING,
            1, Double.NaN, Double.NaN, config.maxRequests(), (worker, i) -> store.ping(),
            created -> { });
        CellResult read = measure(meter, store::commandsSent, store, name, size,
            Workload.READ.label(), 1, Double.NaN, Double.NaN, config.maxRequests(),
            (worker, i) -> store.node(0).readCart(worker.pick(storeIds, i)), created -> { });
        CellResult change = measure(meter, store::commandsSent, store, name, size,
            Workload.WRITE.label(), 1, Double.NaN, Double.NaN, config.maxRequests(),
            (worker, i) -> store.node(0).changeCart(worker.pick(storeIds, i)), created -> { });
        for (CellResult cell : List.of(ping, read, change)) {
          results.add(new FloorCell(name, cell.workload(), round, cell));
        }
        log.accept(String.format(java.util.Locale.ROOT, "floor round %d %-22s PING %6.1f us, "
                + "read %6.1f us (%.2fx), change %6.1f us (%.2fx) request-thread CPU", round,
            name, ping.cpuMicrosPerRequest(), read.cpuMicrosPerRequest(),
            read.cpuMicrosPerRequest() / ping.cpuMicrosPerRequest(),
            change.cpuMicrosPerRequest(),
            change.cpuMicrosPerRequest() / ping.cpuMicrosPerRequest()));
      }
    }
    return results;
  }

  /**
   * MEMORY USAGE per reference session of every store, on Redis's default hash-max-listpack-value and
   * again with it raised: a hash whose values all fit stays in the compact listpack encoding instead
   * of becoming a hashtable. The setting is changed with CONFIG SET on this benchmark's own Redis
   * only, applies to hashes written after it, and is restored at the end.
   */
  private List<MemoryResult> memory(List<StoreSpec> stores, RedisMeter meter) {
    List<MemoryResult> results = new ArrayList<>();
    String setting = meter.hashValueSetting();
    String original = Objects.requireNonNull(meter.config(setting), setting);
    List<Integer> values = new ArrayList<>();
    values.add(Integer.parseInt(original));
    values.addAll(RAISED_LISTPACK_VALUES);
    int sessions = MEMORY_SESSIONS;
    try {
      for (int value : values) {
        meter.config(setting, Integer.toString(value));
        for (StoreSpec benchSpec : stores) {
          if (!config.runs(benchSpec) || !benchSpec.available()) {
            continue;
          }
          StoreSpec spec = benchSpec.withDefaultNamespace();
          String pattern = spec.namespace() + ":*";
          meter.delete(pattern);
          try (SessionStore store = spec.open(uri)) {
            for (int i = 0; i < sessions; i++) {
              store.node(0).create(ShopSessions.create(SessionSize.REFERENCE, MEASURED_SEED + i));
            }
            StoredBytes stored = meter.stored(pattern);
            MemoryResult result = new MemoryResult(spec.name(), setting, value,
                value == values.get(0), sessions, (double) stored.memoryUsage() / sessions,
                (double) stored.fieldBytes() / sessions, stored.hashes(), stored.compactHashes());
            results.add(result);
            log.accept(String.format(java.util.Locale.ROOT,
                "%-26s %s=%-5d MEMORY USAGE %7.0f B/session, %d of %d hashes compact",
                spec.name(), setting, value, result.memoryPerSession(), stored.compactHashes(),
                stored.hashes()));
          } finally {
            meter.delete(pattern);
          }
        }
      }
    } finally {
      meter.config(setting, original);
    }
    return results;
  }

  /**
   * The cost of a 1 MB and a 10 MB attribute (on top of the reference session): saving a session
   * that holds it, and a request that reads it and saves. Failures are recorded with their message.
   */
  private List<CellResult> largeValues(List<StoreSpec> stores, RedisMeter meter) {
    List<CellResult> results = new ArrayList<>();
    for (StoreSpec spec : stores) {
      if (!LARGE_VALUE_STORES.contains(spec.name()) || !config.runs(spec) || !spec.available()) {
        continue;
      }
      for (int bytes : LARGE_VALUE_BYTES) {
        String pattern = spec.namespace() + ":*";
        meter.delete(pattern);
        List<Map<String, Object>> templates = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          Map<String, Object> attributes = new java.util.LinkedHashMap<>(
              ShopSessions.create(SessionSize.REFERENCE, MEASURED_SEED + 600_000 + i));
          attributes.put(DOCUMENT, ShopSessions.document(bytes, MEASURED_SEED + 600_000 + i));
          templates.add(attributes);
        }
        String size = largeLabel(bytes);
        try (SessionStore store = spec.open(uri)) {
          List<String> ids = new ArrayList<>();
          String setupFailure = null;
          try {
            for (Map<String, Object> template : templates) {
              ids.add(store.node(0).create(template));
            }
          } catch (RuntimeException e) {
            setupFailure = e.getClass().getSimpleName() + ": " + oneLine(String.valueOf(
                e.getMessage()));
          }
          double memoryPerSession = Double.NaN;
          double bytesPerSession = Double.NaN;
          if (!ids.isEmpty()) {
            StoredBytes stored = meter.stored(pattern);
            memoryPerSession = (double) stored.memoryUsage() / ids.size();
            bytesPerSession = (double) stored.fieldBytes() / ids.size();
          }
          int cap = config.largeRequests();
          CellResult save = measure(meter, store::commandsSent, store, spec.name(), size,
              SAVE_WORKLOAD, 1, memoryPerSession, bytesPerSession, cap, (worker, i) -> {
                worker.created.add(store.node(0).create(worker.pick(templates, i)));
                return true;
              }, created -> created.forEach(store.node(0)::delete));
          results.add(save);
          log.accept(line(save));
          CellResult read;
          if (ids.isEmpty()) {
            read = new CellResult(spec.name(), size, READ_WORKLOAD, 1, 0, 0, Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                "not run: no session holding the value could be saved (" + setupFailure + ")");
          } else {
            read = measure(meter, store::commandsSent, store, spec.name(), size, READ_WORKLOAD, 1,
                memoryPerSession, bytesPerSession, cap,
                (worker, i) -> store.node(0).readAttribute(worker.pick(ids, i), DOCUMENT),
                created -> { });
          }
          results.add(read);
          log.accept(line(read));
        } finally {
          meter.delete(pattern);
        }
      }
    }
    return results;
  }

  static String largeLabel(int bytes) {
    return (bytes >> 20) + " MB value";
  }

  /**
   * A session holding a 20 MB value, once per large-value store: saved on node 0 and read back on
   * node 1 (a fresh load), or refused; the outcome says which, with the message of a refusal.
   */
  private List<HugeValueResult> hugeValue(List<StoreSpec> stores) {
    List<HugeValueResult> results = new ArrayList<>();
    byte[] document = ShopSessions.document(HUGE_VALUE_BYTES, MEASURED_SEED + 650_000);
    Map<String, Object> attributes = new java.util.LinkedHashMap<>(
        ShopSessions.create(SessionSize.REFERENCE, MEASURED_SEED + 650_000));
    attributes.put(DOCUMENT, document);
    for (StoreSpec spec : stores) {
      if (!LARGE_VALUE_STORES.contains(spec.name()) || !config.runs(spec) || !spec.available()) {
        continue;
      }
      HugeValueResult result;
      try (SessionStore store = spec.open(uri)) {
        long started = System.nanoTime();
        String id;
        try {
          id = store.node(0).create(attributes);
        } catch (RuntimeException e) {
          result = new HugeValueResult(spec.name(), HUGE_VALUE_BYTES, false, "refused at save: "
              + describe(e), (System.nanoTime() - started) / 1e6, Double.NaN);
          results.add(result);
          log.accept(spec.name() + " 20 MB value: " + result.outcome());
          continue;
        }
        double saveMillis = (System.nanoTime() - started) / 1e6;
        started = System.nanoTime();
        try {
          Object read = store.node(1).attribute(id, DOCUMENT);
          double readMillis = (System.nanoTime() - started) / 1e6;
          boolean equal = read instanceof byte[] bytes && java.util.Arrays.equals(bytes, document);
          result = new HugeValueResult(spec.name(), HUGE_VALUE_BYTES, equal, equal
              ? "round-trips (saved, then read back equal on the other node)"
              : "saved, but read back " + (read == null ? "nothing" : "a different value"),
              saveMillis, readMillis);
        } catch (RuntimeException e) {
          result = new HugeValueResult(spec.name(), HUGE_VALUE_BYTES, false,
              "saved, but reading it back failed: " + describe(e), saveMillis, Double.NaN);
        } finally {
          store.node(0).delete(id);
        }
      }
      results.add(result);
      log.accept(spec.name() + " 20 MB value: " + result.outcome());
    }
    return results;
  }

  /** An exception and its causes, class and message each, on one line. */
  private static String describe(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null && text.length() < 600; t = t.getCause()) {
      if (text.length() > 0) {
        text.append(" ← caused by ");
      }
      text.append(t.getClass().getSimpleName()).append(": ")
          .append(oneLine(String.valueOf(t.getMessage())));
      if (t.getCause() == t) {
        break;
      }
    }
    return text.toString();
  }

  /**
   * Durable saves on a primary with one replica: the "change 1 attr" request of the reference
   * session at each thread count, with lazysession's defaults without durability, then with
   * durability 1 replica. Records throughput and the failures by kind.
   */
  private List<CellResult> durableSaves(RedisURI primary) {
    List<CellResult> results = new ArrayList<>();
    try (RedisMeter meter = new RedisMeter(primary)) {
      for (StoreSpec spec : Stores.replicated()) {
        String pattern = spec.namespace() + ":*";
        meter.delete(pattern);
        try (SessionStore store = spec.open(primary)) {
          List<String> ids = new ArrayList<>();
          for (int i = 0; i < config.sessions(); i++) {
            ids.add(store.node(0).create(ShopSessions.create(SessionSize.REFERENCE,
                MEASURED_SEED + i)));
          }
          StoredBytes stored = meter.stored(pattern);
          for (int threads : config.threads()) {
            CellResult result = measure(meter, store::commandsSent, store, spec.name(),
                SessionSize.REFERENCE.label(), Workload.WRITE.label(), threads,
                (double) stored.memoryUsage() / ids.size(),
                (double) stored.fieldBytes() / ids.size(), config.maxRequests(),
                (worker, i) -> store.node(0).changeCart(worker.pick(ids, i)), created -> { });
            results.add(result);
            log.accept(line(result) + (result.errors() > 0 ? " | " + result.note() : ""));
          }
        } finally {
          meter.delete(pattern);
        }
      }
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
  private CellResult measure(RedisMeter meter, SentCounter sent, @Nullable SessionStore hits,
      String store, String size, String workload, int threads, double memoryPerSession,
      double bytesPerSession, int cap, LoadRunner.Request request,
      Consumer<List<String>> deleteCreated) {
    if (!config.warmup().isZero()) {
      Batch warmup = LoadRunner.run(threads, config.warmup(), cap, request);
      deleteCreated.accept(warmup.created());
    }
    Counters overhead = meter.emptyBatch();
    long hitsBefore = hits == null ? 0 : hits.nearCacheHits();
    long sentBefore = sent.sent();
    long cpuBefore = OS.getProcessCpuTime();
    Counters before = meter.counters();
    Batch batch = LoadRunner.run(threads, config.measure(), cap, request);
    Counters after = meter.counters();
    long cpuAfter = OS.getProcessCpuTime();
    long sentAfter = sent.sent();
    long hitsAfter = hits == null ? 0 : hits.nearCacheHits();
    deleteCreated.accept(batch.created());
    Counters delta = after.minus(before).minus(overhead);
    double n = Math.max(1, batch.requests());
    return new CellResult(store, size, workload, threads, batch.requests(), batch.errors(),
        // Clamped as the byte counts are: the overhead subtracted (an empty batch) may hold a
        // background command (a tracked-reads lease PING) that the batch itself did not.
        memoryPerSession, bytesPerSession, Math.max(0, delta.commands()) / n,
        (sentAfter - sentBefore) / n,
        Math.max(0, delta.netInput()) / n, Math.max(0, delta.netOutput()) / n,
        batch.cpuNanos() / n / 1e3, (cpuAfter - cpuBefore) / n / 1e3, batch.allocatedBytes() / n,
        batch.percentileMicros(0.50), batch.percentileMicros(0.99),
        batch.requests() / (batch.wallNanos() / 1e9),
        hits == null || !hits.hasNearCache() ? Double.NaN : (hitsAfter - hitsBefore) / n,
        failures(batch));
  }

  /** The failures of a batch by kind, e.g. "3 × SessionNotReplicatedException (first: ...)". */
  private static @Nullable String failures(Batch batch) {
    if (batch.failures().isEmpty()) {
      return batch.firstError();
    }
    StringBuilder text = new StringBuilder();
    batch.failures().forEach((kind, failure) -> {
      if (text.length() > 0) {
        text.append("; ");
      }
      text.append(failure.count()).append(" × ").append(kind).append(" (first: ")
          .append(oneLine(failure.firstMessage())).append(')');
    });
    return text.toString();
  }

  private static String oneLine(String message) {
    String line = message.replaceAll("\\s+", " ").trim();
    return line.length() > 300 ? line.substring(0, 300) + "…" : line;
  }

  private int fewThreads() {
    return config.threads().stream().mapToInt(Integer::intValue).min().orElse(1);
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
