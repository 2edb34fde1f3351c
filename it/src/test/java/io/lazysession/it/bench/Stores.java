package io.lazysession.it.bench;

import io.lazysession.it.bench.shop.SessionSize;
import io.lazysession.it.bench.shop.ShopSessions;
import io.lazysession.redis.LazyReactiveRedisSessionRepository;
import io.lazysession.redis.EncryptionKey;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.LazyRedisSessionRepositoryBuilder;
import io.lazysession.redis.SessionEncryption;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveRedisTemplate;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.PatternTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.data.redis.serializer.JdkSerializationRedisSerializer;
import org.springframework.data.redis.serializer.RedisSerializationContext;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.session.data.redis.ReactiveRedisSessionRepository;
import org.springframework.session.data.redis.RedisIndexedSessionRepository;
import org.springframework.session.data.redis.RedisSessionRepository;
import org.springframework.session.data.redis.config.ConfigureNotifyKeyspaceEventsAction;

/**
 * The stores of the benchmark, each configured as its users get it by default unless said otherwise.
 *
 * <p>Spring Session Data Redis is built exactly as {@code @EnableRedisHttpSession} (and Spring Boot's
 * default {@code spring.session.redis.repository-type=default}) builds it: a {@code RedisTemplate} with
 * string keys and the JDK serializer for values, on a {@code LettuceConnectionFactory}. The indexed
 * variant is what {@code @EnableRedisIndexedHttpSession} builds, with its message listener container
 * and keyspace notifications. lazysession is built through its builder. Background expiry sweeps are
 * turned off on both sides (Spring's cleanup cron, lazysession's cleanup interval): they are periodic
 * per node, not per request, and would disturb the counters.
 */
final class Stores {
  /** The package of the shop session classes, allowed to decode by lazysession. */
  static final ClassAllowList ALLOW_LIST =
      ClassAllowList.builder().allowPackage("io.lazysession.it.bench.shop").build();
  /** Dictionary size for the kryo+zstd+dictionary store. */
  static final int DICTIONARY_BYTES = 16 * 1024;
  /** Seeds of the sessions the dictionary is trained on; measured sessions never use these. */
  static final int TRAINING_SESSIONS = 200;
  /** Near cache heap of the stores with the near cache on: lazysession's default. */
  static final long NEAR_CACHE_BYTES = 64L << 20;

  private Stores() {}

  /** Every store, the peers first. */
  static List<StoreSpec> all(ZstdDictionary dictionary) {
    List<StoreSpec> stores = new ArrayList<>();
    stores.add(new StoreSpec("spring", "Spring Session Data Redis RedisSessionRepository "
        + "(the default of @EnableRedisHttpSession and Spring Boot), JDK serializer", true, null,
        (spec, uri) -> spring(spec, uri, false)));
    stores.add(new StoreSpec("spring-indexed", "Spring Session Data Redis "
        + "RedisIndexedSessionRepository (@EnableRedisIndexedHttpSession), JDK serializer, "
        + "keyspace notifications and listener container on", true, null,
        (spec, uri) -> spring(spec, uri, true)));
    stores.add(new StoreSpec("spring-reactive", "Spring Session Data Redis "
        + "ReactiveRedisSessionRepository (@EnableRedisWebSession, WebFlux), JDK serializer; "
        + "driven by the same requests, each waiting for its answer", true, null,
        Stores::springReactive));
    stores.add(new StoreSpec("lazy-kryo-zstd-reactive", "lazysession's reactive face "
        + "(LazyReactiveRedisSessionRepository, WebFlux), Kryo codec, zstd level 3 above 256 bytes, "
        + "near cache off; driven by the same requests, each waiting for its answer", false, null,
        (spec, uri) -> lazy(spec, uri, defaults(), false, 0, true)));
    stores.add(lazy(UNPACKED, "lazysession, Kryo codec, zstd level 3 above 256 bytes, near cache "
        + "off, packing off (lazysession.pack.max-bytes=0): every attribute in a field of its own, "
        + "a change writes only the attributes that changed", AttributeSerializer.builder()
        .codec(CodecKind.KRYO).compression(Compression.zstd(3, 256)).packMaxBytes(0), false));
    for (boolean near : new boolean[] {false, true}) {
      String suffix = near ? "+near" : "";
      String nearText = near ? ", near cache on (" + (NEAR_CACHE_BYTES >> 20) + " MB, the default)"
          : ", near cache off";
      stores.add(lazy("lazy-jdk" + suffix, "lazysession, JDK codec, no compression" + nearText,
          AttributeSerializer.builder().codec(CodecKind.JDK).compression(Compression.none()),
          near));
      stores.add(lazy("lazy-jdk-zstd" + suffix, "lazysession, JDK codec, zstd level 3 above 256 "
          + "bytes (the bound of the design: never more than JDK serialization + zstd)" + nearText,
          AttributeSerializer.builder().codec(CodecKind.JDK).compression(Compression.zstd(3, 256)),
          near));
      stores.add(lazy("lazy-kryo" + suffix, "lazysession, Kryo codec, no compression" + nearText,
          AttributeSerializer.builder().codec(CodecKind.KRYO).compression(Compression.none()),
          near));
      stores.add(lazy("lazy-kryo-zstd" + suffix, "lazysession, Kryo codec, zstd level 3 above 256 "
          + "bytes (the default codec and compression)" + nearText,
          AttributeSerializer.builder().codec(CodecKind.KRYO)
              .compression(Compression.zstd(3, 256)), near));
      stores.add(lazy("lazy-kryo-zstd-dict" + suffix, "lazysession, Kryo codec, zstd level 3 above "
          + "32 bytes with a " + (DICTIONARY_BYTES >> 10) + " KiB dictionary trained on the packs "
          + "and payloads of " + TRAINING_SESSIONS + " other sessions" + nearText,
          AttributeSerializer.builder().codec(CodecKind.KRYO)
              .compression(Compression.zstd(3, 32, dictionary)), near));
    }
    stores.add(new StoreSpec(TRACKED, "lazysession, Kryo codec, zstd level 3 above 256 bytes, near "
        + "cache on (" + (NEAR_CACHE_BYTES >> 20) + " MB) with tracked reads (CLIENT TRACKING, "
        + "max staleness " + TRACKING_BOUND.toMillis() + " ms): a hit whose copy no invalidation "
        + "reached costs no call", false, null,
        (spec, uri) -> lazy(spec, uri, defaults(), true, 0, false,
            builder -> builder.nearCacheTracking(TRACKING_BOUND))));
    stores.add(new StoreSpec(SHARED, "lazysession's defaults (Kryo codec, zstd level 3 above 256 "
        + "bytes, near cache on, " + (NEAR_CACHE_BYTES >> 20) + " MB) with the shared dictionary as "
        + "a deployment gets it: the namespace finalized at Redis format 2, then the two nodes train "
        + "it themselves from the saves of sessions of the training seeds (one save in 16 sampled, "
        + "400 samples, 16 KiB) and write with it once both loaded it (about a minute); the hash of "
        + "the namespace's dictionaries (16 KiB each, once per namespace) is not counted per "
        + "session", false, null,
        (spec, uri) -> {
          restoreShared(spec, uri);
          return lazy(spec, uri, defaults(), true, 0, false, builder -> { },
              nodes -> trainShared(spec, uri, nodes));
        }));
    stores.add(new StoreSpec(NO_EVENTS, "lazysession's defaults (Kryo codec, zstd level 3 above "
        + "256 bytes, near cache on, " + (NEAR_CACHE_BYTES >> 20) + " MB) with expiry events off "
        + "(lazysession.expiry-events=false: no expiry schedule, no sweep): the configuration that "
        + "matches Spring Session Data Redis's default repository, which publishes no expiry events",
        false, null,
        (spec, uri) -> lazy(spec, uri, defaults(), true, 0, false,
            builder -> builder.expiryEvents(false))));
    stores.add(new StoreSpec(ENCRYPTED, "lazysession's defaults (Kryo codec, zstd level 3 above "
        + "256 bytes, near cache on, " + (NEAR_CACHE_BYTES >> 20) + " MB) with encryption keys "
        + "(lazysession.encryption.keys: one AES-256-GCM key; every stored value sealed)", false,
        null, (spec, uri) -> lazy(spec, uri, defaults(), true, 0, false,
            builder -> builder.encryption(SessionEncryption.builder().keys(List.of(
                EncryptionKey.of("bench", BENCH_KEY))).build()))));
    return stores;
  }

  private static byte[] benchKey() {
    byte[] key = new byte[EncryptionKey.SECRET_BYTES];
    for (int i = 0; i < key.length; i++) {
      key[i] = (byte) (31 * i + 7);
    }
    return key;
  }

  /** lazysession's default serializer: Kryo, zstd level 3 above 256 bytes. */
  private static AttributeSerializer defaults() {
    return AttributeSerializer.builder().codec(CodecKind.KRYO)
        .compression(Compression.zstd(3, 256)).allowList(ALLOW_LIST).build();
  }

  /** lazysession's defaults with the shared dictionary trained and written with. */
  static final String SHARED = "lazy-kryo-zstd-shared+near";
  /** How long {@link #SHARED} may take to train and start writing with its dictionary. */
  private static final Duration SHARED_TRAINING = Duration.ofMinutes(4);

  /**
   * Finalizes the namespace at Redis format 2, then saves (and deletes) sessions of the training
   * seeds on both nodes until both write with the dictionary they trained, as a deployment's
   * traffic would make them: nothing here is measured.
   */
  private static void trainShared(StoreSpec spec, RedisURI uri,
      List<LazyRedisSessionRepository> nodes) {
    LazyRedisSessionRepository first = nodes.get(0);
    long deadline = System.nanoTime() + SHARED_TRAINING.toNanos();
    while (first.formatStatus().nodes().size() < nodes.size()) {
      pause(deadline);
    }
    first.finalizeFormat();
    nodes.forEach(LazyRedisSessionRepository::formatStatus); // each reads the format now
    long seed = 0;
    while (nodes.stream().anyMatch(node -> node.serializer().compression().dictionary() == null)) {
      for (int i = 0; i < 200; i++, seed++) {
        SessionSize size = seed % 10 == 0 ? SessionSize.LARGE
            : seed % 2 == 0 ? SessionSize.REFERENCE : SessionSize.SMALL;
        // Not by seed % 2, which decides the size: each node sees sessions of every size.
        LazyRedisSessionRepository node = nodes.get((int) (seed / 10 % nodes.size()));
        var session = node.createSession();
        ShopSessions.create(size, seed % TRAINING_SEEDS).forEach(session::setAttribute);
        node.save(session);
        node.deleteById(session.getId());
      }
      pause(deadline);
    }
    if (sharedDictionaries == null) {
      sharedDictionaries = redis(uri, r -> r.hgetall(dictionaries(spec)));
    }
  }

  /**
   * The dictionaries {@link #SHARED} trained when it was first opened, as Redis held them: the
   * harness deletes a store's keys between cells, and a node that finds them when it starts writes
   * with the current one at once, so the store trains once per run, not per cell.
   */
  private static volatile @Nullable Map<byte[], byte[]> sharedDictionaries;

  private static void restoreShared(StoreSpec spec, RedisURI uri) {
    Map<byte[], byte[]> trained = sharedDictionaries;
    if (trained != null) {
      redis(uri, r -> r.hset(dictionaries(spec), trained));
    }
  }

  private static byte[] dictionaries(StoreSpec spec) {
    return (spec.namespace() + ":dictionaries").getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static <T> T redis(RedisURI uri,
      java.util.function.Function<RedisCommands<byte[], byte[]>, T> command) {
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(io.lettuce.core.codec.ByteArrayCodec.INSTANCE)) {
      return command.apply(connection.sync());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** Seeds of the sessions {@link #SHARED} trains on (below the harness's measured seeds). */
  private static final int TRAINING_SEEDS = 1000;

  private static void pause(long deadline) {
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException("the shared dictionary was not trained and written with "
          + "within " + SHARED_TRAINING.toMinutes() + " minutes");
    }
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Name of the store with tracked near-cache reads. */
  static final String TRACKED = "lazy-kryo-zstd+track";
  /** The thread that renews the tracked near cache's lease (redis-store's TrackingConnection). */
  private static final String TRACKING_THREAD = "lazysession-tracking";
  /** lazysession's defaults with packing off: what the pack costs and saves. */
  static final String UNPACKED = "lazy-kryo-zstd-unpacked";
  /**
   * lazysession's defaults (as {@code lazy-kryo-zstd+near}) with expiry events off: what matches
   * Spring Session Data Redis's default repository, which keeps no expiry index.
   */
  static final String NO_EVENTS = "lazy-kryo-zstd-noevents";
  /** lazysession's defaults with encryption keys on: what protecting every stored value costs. */
  static final String ENCRYPTED = "lazy-kryo-zstd+near+enc";
  /** The 32-byte key of {@link #ENCRYPTED} (a fixed benchmark key, not a secret). */
  private static final byte[] BENCH_KEY = benchKey();
  /** Staleness bound of {@link #TRACKED}: lazysession's default. */
  static final Duration TRACKING_BOUND = Duration.ofMillis(500);

  /** Whether the store keeps a near cache (validated or tracked). */
  static boolean hasNearCache(String store) {
    return store.contains("+near") || store.equals(TRACKED) || store.equals(NO_EVENTS);
  }

  /**
   * Trains the dictionary of the kryo+zstd+dictionary store on what that store compresses (the
   * serializer's {@code dictionarySamples}: each session's pack of small attributes and its larger
   * payloads) for sessions made from seeds 0 to {@link #TRAINING_SESSIONS} - 1 (all sizes), which
   * the measured sessions never use: the dictionary knows the shape of the data, not the data
   * measured.
   */
  static ZstdDictionary trainDictionary() {
    return TrainedDictionary.INSTANCE;
  }

  /** Trained once per JVM, on first use. */
  private static final class TrainedDictionary {
    static final ZstdDictionary INSTANCE = train();
  }

  private static ZstdDictionary train() {
    AttributeSerializer kryo = AttributeSerializer.builder().codec(CodecKind.KRYO)
        .compression(Compression.none()).allowList(ALLOW_LIST).build();
    List<byte[]> samples = new ArrayList<>();
    for (int seed = 0; seed < TRAINING_SESSIONS; seed++) {
      SessionSize size = seed % 10 == 0 ? SessionSize.LARGE
          : seed % 2 == 0 ? SessionSize.REFERENCE : SessionSize.SMALL;
      // What the store compresses: the pack of the small attributes and each larger payload.
      samples.addAll(kryo.dictionarySamples(ShopSessions.create(size, seed)));
    }
    return ZstdDictionary.train(samples, DICTIONARY_BYTES);
  }

  /**
   * The stores of the durable-save cell, run on a primary with one replica: lazysession's defaults
   * without durability (the comparison), and with {@code durability(1, 1 s)}, where each save waits
   * (WAIT) until the replica has the change.
   */
  static List<StoreSpec> replicated() {
    AttributeSerializer.Builder defaults = AttributeSerializer.builder().codec(CodecKind.KRYO)
        .compression(Compression.zstd(3, 256));
    return List.of(
        lazy(DEFAULT_ON_REPLICA, "lazysession defaults (Kryo, zstd, near cache off) on a primary "
            + "with one replica, durability off", defaults, false, 0),
        lazy(DURABLE, "lazysession defaults (Kryo, zstd, near cache off) on a primary with one "
            + "replica, durability(1 replica, " + DURABILITY_TIMEOUT.toMillis() + " ms): each save "
            + "waits until the replica has it", defaults, false, 1));
  }

  /** Name of the durable-save comparison store (durability off, same topology). */
  static final String DEFAULT_ON_REPLICA = "lazy-kryo-zstd-replicated";
  /** Name of the durable-save store. */
  static final String DURABLE = "lazy-kryo-zstd+durable1";
  /** WAIT timeout of the durable-save store. */
  static final Duration DURABILITY_TIMEOUT = Duration.ofSeconds(1);

  private static StoreSpec lazy(String name, String description,
      AttributeSerializer.Builder serializer, boolean nearCache) {
    return lazy(name, description, serializer, nearCache, 0);
  }

  private static StoreSpec lazy(String name, String description,
      AttributeSerializer.Builder serializer, boolean nearCache, int durabilityReplicas) {
    AttributeSerializer built = serializer.allowList(ALLOW_LIST).build();
    return new StoreSpec(name, description, false, null,
        (spec, uri) -> lazy(spec, uri, built, nearCache, durabilityReplicas));
  }

  private static SessionStore lazy(StoreSpec spec, RedisURI uri, AttributeSerializer serializer,
      boolean nearCache, int durabilityReplicas) {
    return lazy(spec, uri, serializer, nearCache, durabilityReplicas, false);
  }

  private static SessionStore lazy(StoreSpec spec, RedisURI uri, AttributeSerializer serializer,
      boolean nearCache, int durabilityReplicas, boolean reactive) {
    return lazy(spec, uri, serializer, nearCache, durabilityReplicas, reactive, builder -> { });
  }

  /**
   * @param options what the store sets on each node's builder besides these (tracked reads, expiry
   *     events off, encryption)
   */
  private static SessionStore lazy(StoreSpec spec, RedisURI uri, AttributeSerializer serializer,
      boolean nearCache, int durabilityReplicas, boolean reactive,
      Consumer<LazyRedisSessionRepositoryBuilder> options) {
    return lazy(spec, uri, serializer, nearCache, durabilityReplicas, reactive, options, nodes -> { });
  }

  /** @param ready what runs once both nodes are built, before anything is measured */
  private static SessionStore lazy(StoreSpec spec, RedisURI uri, AttributeSerializer serializer,
      boolean nearCache, int durabilityReplicas, boolean reactive,
      Consumer<LazyRedisSessionRepositoryBuilder> options,
      Consumer<List<LazyRedisSessionRepository>> ready) {
    LongAdder sent = new LongAdder();
    List<StoreNode<?>> nodes = new ArrayList<>();
    List<AutoCloseable> resources = new ArrayList<>();
    List<LazyRedisSessionRepository> repositories = new ArrayList<>();
    try {
      RedisCommands<String, String> ping = null;
      for (int i = 0; i < 2; i++) {
        RedisClient client = RedisClient.create(uri);
        resources.add(() -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
        client.addListener(counting(sent));
        LazyRedisSessionRepositoryBuilder builder = LazyRedisSessionRepository.builder(client)
            .serializer(serializer)
            .namespace(spec.namespace())
            .cleanupInterval(Duration.ZERO)
            .nearCacheMaxBytes(nearCache ? NEAR_CACHE_BYTES : 0);
        options.accept(builder);
        if (durabilityReplicas > 0) {
          builder.durability(durabilityReplicas, DURABILITY_TIMEOUT);
        }
        LazyRedisSessionRepository repository = builder.build();
        resources.add(repository::close);
        repositories.add(repository);
        nodes.add(reactive ? StoreNode.of(new BlockingReactiveRepository<>(
            LazyReactiveRedisSessionRepository.of(repository))) : StoreNode.of(repository));
        if (i == 0) {
          ping = pingCommands(client, resources);
        }
      }
      ready.accept(repositories);
      RedisCommands<String, String> pinger = java.util.Objects.requireNonNull(ping);
      return new OpenStore(spec, nodes, spec.namespace() + ":*", sent, resources,
          () -> "PONG".equals(pinger.ping()), nearCache,
          () -> repositories.stream().mapToLong(r -> r.metrics().nearCacheHits()
              + r.metrics().nearCacheTrustedHits()).sum());
    } catch (RuntimeException e) {
      closeAll(resources);
      throw e;
    }
  }

  /** A connection of its own on a store's client, for the PING floor of that client. */
  private static RedisCommands<String, String> pingCommands(RedisClient client,
      List<AutoCloseable> resources) {
    StatefulRedisConnection<String, String> connection = client.connect();
    resources.add(connection::close);
    return connection.sync();
  }

  private static SessionStore spring(StoreSpec spec, RedisURI uri, boolean indexed) {
    LongAdder sent = new LongAdder();
    List<StoreNode<?>> nodes = new ArrayList<>();
    List<AutoCloseable> resources = new ArrayList<>();
    RedisCommands<String, String> ping = null;
    try {
      if (indexed) {
        // @EnableRedisIndexedHttpSession turns keyspace notifications on at start-up (below); the
        // previous setting is restored when the store closes, so that other stores do not pay for them.
        String previous = config(uri, null);
        resources.add(() -> config(uri, previous));
      }
      for (int i = 0; i < 2; i++) {
        LettuceConnectionFactory factory = connectionFactory(uri, sent, resources);
        if (i == 0) {
          ping = pingCommands((RedisClient) factory.getRequiredNativeClient(), resources);
        }
        if (indexed && i == 0) {
          try (RedisConnection connection = factory.getConnection()) {
            new ConfigureNotifyKeyspaceEventsAction().configure(connection);
          }
        }
        RedisTemplate<String, Object> template = new RedisTemplate<>();
        template.setKeySerializer(RedisSerializer.string());
        template.setHashKeySerializer(RedisSerializer.string());
        template.setConnectionFactory(factory);
        template.setBeanClassLoader(Stores.class.getClassLoader());
        template.afterPropertiesSet();
        if (indexed) {
          RedisIndexedSessionRepository repository = new RedisIndexedSessionRepository(template);
          repository.setRedisKeyNamespace(spec.namespace());
          repository.setCleanupCron(Scheduled.CRON_DISABLED);
          repository.afterPropertiesSet();
          resources.add(repository::destroy);
          RedisMessageListenerContainer container = new RedisMessageListenerContainer();
          container.setConnectionFactory(factory);
          container.addMessageListener(repository,
              Arrays.asList(new ChannelTopic(repository.getSessionDeletedChannel()),
                  new ChannelTopic(repository.getSessionExpiredChannel())));
          container.addMessageListener(repository, Collections.singletonList(
              new PatternTopic(repository.getSessionCreatedChannelPrefix() + "*")));
          container.afterPropertiesSet();
          container.start();
          resources.add(container::destroy);
          nodes.add(StoreNode.of(repository));
        } else {
          RedisSessionRepository repository = new RedisSessionRepository(template);
          repository.setRedisKeyNamespace(spec.namespace());
          nodes.add(StoreNode.of(repository));
        }
      }
    } catch (RuntimeException e) {
      closeAll(resources);
      throw e;
    }
    RedisCommands<String, String> pinger = java.util.Objects.requireNonNull(ping);
    return new OpenStore(spec, nodes, spec.namespace() + ":*", sent, resources,
        () -> "PONG".equals(pinger.ping()), false, () -> 0);
  }

  /**
   * Spring Session Data Redis's reactive repository, built as {@code @EnableRedisWebSession} builds
   * it: a {@code ReactiveRedisTemplate} with string keys and the JDK serializer for values.
   */
  private static SessionStore springReactive(StoreSpec spec, RedisURI uri) {
    LongAdder sent = new LongAdder();
    List<StoreNode<?>> nodes = new ArrayList<>();
    List<AutoCloseable> resources = new ArrayList<>();
    RedisCommands<String, String> ping = null;
    try {
      for (int i = 0; i < 2; i++) {
        LettuceConnectionFactory factory = connectionFactory(uri, sent, resources);
        if (i == 0) {
          ping = pingCommands((RedisClient) factory.getRequiredNativeClient(), resources);
        }
        RedisSerializationContext<String, Object> context = RedisSerializationContext
            .<String, Object>newSerializationContext(
                new JdkSerializationRedisSerializer(Stores.class.getClassLoader()))
            .key(RedisSerializer.string()).hashKey(RedisSerializer.string()).build();
        ReactiveRedisSessionRepository repository =
            new ReactiveRedisSessionRepository(new ReactiveRedisTemplate<>(factory, context));
        repository.setRedisKeyNamespace(spec.namespace());
        nodes.add(StoreNode.of(new BlockingReactiveRepository<>(repository)));
      }
    } catch (RuntimeException e) {
      closeAll(resources);
      throw e;
    }
    RedisCommands<String, String> pinger = java.util.Objects.requireNonNull(ping);
    return new OpenStore(spec, nodes, spec.namespace() + ":*", sent, resources,
        () -> "PONG".equals(pinger.ping()), false, () -> 0);
  }

  /** Reads notify-keyspace-events (value null) or sets it; returns the value read or set. */
  private static String config(RedisURI uri, @Nullable String value) {
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      if (value == null) {
        Map<String, String> current = connection.sync().configGet("notify-keyspace-events");
        return current.getOrDefault("notify-keyspace-events", "");
      }
      connection.sync().configSet("notify-keyspace-events", value);
      return value;
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /**
   * A started Spring Data Redis connection factory on {@code uri} whose commands count into {@code
   * sent}, destroyed with {@code resources}. Connections are made lazily, on first use: the listener
   * sees every command.
   */
  private static LettuceConnectionFactory connectionFactory(RedisURI uri, LongAdder sent,
      List<AutoCloseable> resources) {
    LettuceConnectionFactory factory = new LettuceConnectionFactory(
        new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
    factory.afterPropertiesSet();
    factory.start();
    factory.getRequiredNativeClient().addListener(counting(sent));
    resources.add(factory::destroy);
    return factory;
  }

  private static CommandListener counting(LongAdder sent) {
    return new CommandListener() {
      @Override
      public void commandStarted(CommandStartedEvent event) {
        // The tracked near cache's lease PINGs go out from its own thread: not a request's round trip.
        if (!Thread.currentThread().getName().equals(TRACKING_THREAD)) {
          sent.increment();
        }
      }
    };
  }

  static void closeAll(List<AutoCloseable> resources) {
    RuntimeException failure = null;
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("closing a store failed", e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private record OpenStore(StoreSpec spec, List<StoreNode<?>> nodes, String keyPattern,
      LongAdder sent, List<AutoCloseable> resources, BooleanSupplier pinger, boolean hasNearCache,
      LongSupplier hits) implements SessionStore {
    @Override
    public boolean ping() {
      return pinger.getAsBoolean();
    }

    @Override
    public long nearCacheHits() {
      return hits.getAsLong();
    }

    @Override
    public StoreNode<?> node(int index) {
      return nodes.get(index);
    }

    @Override
    public long commandsSent() {
      return sent.sum();
    }

    @Override
    public void close() {
      closeAll(resources);
    }
  }
}
