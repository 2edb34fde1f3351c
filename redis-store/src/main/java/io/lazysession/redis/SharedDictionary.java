package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lettuce.core.ScriptOutputType;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The zstd dictionary the nodes of one namespace share (docs/redis-layout.md, "Dictionaries"):
 * trained from what they compress, kept in the hash {@code <ns>:dictionaries} (one field per id, the
 * dictionary's bytes, sealed with encryption keys; the field {@code current}: the id written with),
 * loaded by every node, and never lost. Thread-safe.
 *
 * <p>Design: a value compressed with a dictionary is Redis format 2 (a node of 0.1.x lacks the
 * dictionary), so a node writes with it only while it writes format 2 ({@link #serializer()}, asked
 * once per save), and a save that writes any value naming one, carried over or not, marks its hash
 * {@code #f 2} ({@link #formatOf}). A dictionary chosen in Redis is written with only one {@link
 * DictionarySettings#poll} after this node first saw it, by when every live node polled and loaded
 * it; a node that meets an id it lacks loads it there and then ({@link #apply}, never on an event
 * loop: there it loads in the background and the value stays as its bytes meanwhile). Each node keeps
 * every dictionary it loaded and puts back, at each poll, any Redis lost (flush, eviction, failover),
 * and the field {@code current}. Two nodes that train at once both publish; {@code current} is set
 * by compare-and-set, so one of the two is chosen, the other kept. Nothing is ever deleted: at most
 * {@link #MAX_DICTIONARIES} are made per namespace, after which nodes stop training.
 */
final class SharedDictionary implements IntFunction<@Nullable ZstdDictionary> {
  static final Logger log = LoggerFactory.getLogger(SharedDictionary.class);
  /** The field of the current dictionary's id. */
  static final String CURRENT = "current";
  /** Dictionaries one namespace keeps at most: past that, nodes no longer train. */
  static final int MAX_DICTIONARIES = 16;
  /** Sets {@code current} to ARGV[2] only while it is ARGV[1] ('' for absent); answers it. */
  private static final String CHOOSE = "local c = redis.call('HGET', KEYS[1], 'current')\n"
      + "if (c == false and ARGV[1] == '') or c == ARGV[1] then\n"
      + "  redis.call('HSET', KEYS[1], 'current', ARGV[2]) return ARGV[2] end\n"
      + "return c";
  /** A dictionary no node had is asked of Redis again at most this often, in nanoseconds. */
  private static final long MISS_RETRY_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final SessionConnection connection;
  private final String namespace;
  private final byte[] key;
  private final ValueProtection protection;
  private final RedisFormat format;
  private final DictionarySettings settings;
  private final AttributeSerializer reading;
  /** Whether this node trains and keeps dictionaries in Redis (on, not pinned, compression on). */
  private final boolean shared;
  private final ConcurrentMap<Integer, ZstdDictionary> known = new ConcurrentHashMap<>();
  private final ConcurrentMap<Integer, Long> misses = new ConcurrentHashMap<>();
  private final Set<Integer> warnedMissing = ConcurrentHashMap.newKeySet();
  private final ConcurrentMap<Integer, CompletableFuture<@Nullable ZstdDictionary>> loading =
      new ConcurrentHashMap<>();
  private final DictionaryTraining training;
  private final java.util.concurrent.atomic.AtomicLong generation =
      new java.util.concurrent.atomic.AtomicLong();
  private volatile @Nullable AttributeSerializer writing;
  private volatile @Nullable ZstdDictionary pending;
  private volatile long pendingSince;
  private volatile @Nullable ScheduledExecutorService thread;
  /** Whether the first poll is done: dictionaries loaded after it are new to this node's reads. */
  private volatile boolean started;
  private volatile Runnable onNewDictionary = () -> { };

  SharedDictionary(SessionConnection connection, String namespace, ValueProtection protection,
      RedisFormat format, AttributeSerializer base, DictionarySettings settings) {
    this.connection = connection;
    this.namespace = namespace;
    this.key = (namespace + ":dictionaries").getBytes(UTF_8);
    this.protection = protection;
    this.format = format;
    this.settings = settings;
    Compression compression = base.compression();
    boolean usable = settings.enabled() && compression.enabled() && compression.dictionary() == null;
    this.shared = usable && settings.pinned() == null;
    this.reading = base.toBuilder().dictionarySource(this).build();
    this.training = new DictionaryTraining(base, settings, this);
    ZstdDictionary pinned = settings.pinned();
    if (usable && pinned != null) {
      known.put(pinned.id(), pinned);
      writing = writer(pinned);
    }
  }

  /** The serializer a save uses: with the dictionary only while this node writes format 2. */
  AttributeSerializer serializer() {
    AttributeSerializer withDictionary = writing;
    return withDictionary != null && format.writes() >= 2 ? withDictionary : reading;
  }

  /** The serializer that reads every dictionary and writes with none. */
  AttributeSerializer reading() {
    return reading;
  }

  /** The dictionary written with now; null while none is (or format 1 is written). */
  @Nullable ZstdDictionary current() {
    AttributeSerializer withDictionary = writing;
    return withDictionary == null ? null : withDictionary.compression().dictionary();
  }

  /** Every dictionary this node holds. */
  List<ZstdDictionary> known() {
    return List.copyOf(known.values());
  }

  /**
   * The format a save writes: the node's, or 2 when any value it writes names a dictionary (which
   * only a node of this version may hold); samples the save for training, one in {@link
   * DictionarySettings#sampleEvery}.
   */
  int formatOf(SaveRequest request) {
    if (shared) {
      training.sample(request, current());
    }
    int writes = format.writes();
    return writes < 2 && !known.isEmpty() && request.namesDictionary(known::containsKey) ? 2
        : writes;
  }

  /** The dictionary of {@code id}: held, else loaded from Redis unless on a non-blocking thread. */
  @Override
  public @Nullable ZstdDictionary apply(int id) {
    ZstdDictionary dictionary = known.get(id);
    if (dictionary != null) {
      return dictionary;
    }
    Long missed = misses.get(id);
    if (missed != null && System.nanoTime() - missed < MISS_RETRY_NANOS) {
      return null;
    }
    if (!mayBlock()) {
      ScheduledExecutorService scheduler = thread;
      if (scheduler != null && !scheduler.isShutdown()) {
        loading.computeIfAbsent(id, missing -> {
          CompletableFuture<@Nullable ZstdDictionary> load = new CompletableFuture<>();
          scheduler.execute(() -> {
            try {
              load.complete(loadQuietly(missing));
            } finally {
              loading.remove(missing);
              load.complete(null);
            }
          });
          return load;
        });
      }
      return null;
    }
    return loadQuietly(id);
  }

  /**
   * The loads a non-blocking caller started ({@link #apply}) and that are not done, as one future;
   * null when there are none. The reactive face reads a session again once they are done.
   */
  @Nullable CompletableFuture<Void> loads() {
    if (loading.isEmpty()) {
      return null;
    }
    return CompletableFuture.allOf(loading.values().toArray(CompletableFuture[]::new));
  }

  /** Whether this thread may wait for Redis: not an event loop, nor a non-blocking scheduler's. */
  private static boolean mayBlock() {
    return !(Thread.currentThread() instanceof io.netty.util.concurrent.FastThreadLocalThread)
        && !reactor.core.scheduler.Schedulers.isInNonBlockingThread();
  }

  private @Nullable ZstdDictionary loadQuietly(int id) {
    try {
      ZstdDictionary loaded = load(id);
      if (loaded == null) {
        misses.put(id, System.nanoTime());
      }
      if (loaded == null && warnedMissing.size() < 64 && warnedMissing.add(id)) {
        log.warn("lazysession (namespace {}): zstd dictionary {} could not be loaded from Redis "
            + "({}): values compressed with it are kept in Redis as they are and hidden on this "
            + "node until it can (said once)",
            namespace, Integer.toUnsignedString(id), new String(key, UTF_8));
      }
      return loaded;
    } catch (RuntimeException e) {
      misses.put(id, System.nanoTime());
      log.debug("lazysession (namespace {}) could not load dictionary {}: {}", namespace,
          Integer.toUnsignedString(id), e.toString());
      return null;
    }
  }

  /** HGET of one dictionary, opened and held; null when Redis lacks it or it does not open. */
  private @Nullable ZstdDictionary load(int id) {
    byte[] stored = connection.commands().hget(key, field(id));
    if (stored == null) {
      return null;
    }
    byte[] plain = protection.open("", fieldName(id), stored);
    if (plain == null || ValueProtection.isSealed(plain)) {
      log.warn("lazysession (namespace {}): dictionary {} in Redis cannot be opened with this "
          + "node's keys (lazysession.encryption.keys); values compressed with it stay hidden here",
          namespace, Integer.toUnsignedString(id));
      return null;
    }
    ZstdDictionary dictionary;
    try {
      dictionary = ZstdDictionary.of(plain);
    } catch (IllegalArgumentException e) {
      log.warn("lazysession (namespace {}): field {} of {} is not a zstd dictionary; ignored",
          namespace, Integer.toUnsignedString(id), new String(key, UTF_8));
      return null;
    }
    if (dictionary.id() != id) {
      return null;
    }
    return hold(dictionary);
  }

  /** Grows with each dictionary this node takes in: a read that missed one may try again. */
  long generation() {
    return generation.get();
  }

  private ZstdDictionary hold(ZstdDictionary dictionary) {
    ZstdDictionary held = known.putIfAbsent(dictionary.id(), dictionary);
    if (held == null) {
      generation.incrementAndGet();
      if (started) {
        // A near-cached session whose pack named it was cached hidden: read such sessions again.
        onNewDictionary.run();
      }
      misses.remove(dictionary.id());
      log.info("lazysession (namespace {}) loaded zstd dictionary {} ({} bytes)", namespace,
          Integer.toUnsignedString(dictionary.id()), dictionary.size());
      return dictionary;
    }
    return held;
  }

  /**
   * Reads Redis now, then polls on a daemon thread of its own. A node that does not write with a
   * shared dictionary (turned off, pinned) still loads and keeps those other nodes write with.
   */
  void start() {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread poller = new Thread(runnable, "lazysession-dictionary-" + namespace);
      poller.setDaemon(true);
      return poller;
    });
    thread = scheduler;
    poll();
    long period = settings.poll().toMillis();
    scheduler.scheduleWithFixedDelay(this::poll, period, period, TimeUnit.MILLISECONDS);
  }

  /** Nothing may escape: a scheduled task that throws is never run again. */
  void poll() {
    try {
      pollOnce();
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable e) {
      log.debug("lazysession (namespace {}) could not read its dictionaries: {}", namespace,
          e.toString());
    }
  }

  private void pollOnce() {
    boolean first = !started;
    Map<byte[], byte[]> fields = connection.commands().hgetall(key);
    Set<Integer> inRedis = new HashSet<>();
    byte[] chosen = null;
    for (Map.Entry<byte[], byte[]> entry : fields.entrySet()) {
      String name = new String(entry.getKey(), UTF_8);
      if (name.equals(CURRENT)) {
        chosen = entry.getValue();
      } else {
        Integer id = id(name);
        if (id != null) {
          inRedis.add(id);
        }
      }
    }
    for (int id : inRedis) {
      if (!known.containsKey(id)) {
        loadQuietly(id);
      }
    }
    ZstdDictionary pinned = settings.pinned();
    for (ZstdDictionary dictionary : known.values()) {
      if (!inRedis.contains(dictionary.id()) && !dictionary.equals(pinned) && publish(dictionary)) {
        log.warn("lazysession (namespace {}): Redis had lost zstd dictionary {} ({}); this node "
            + "put it back", namespace, Integer.toUnsignedString(dictionary.id()),
            new String(key, UTF_8));
      }
    }
    started = true;
    if (!shared) {
      return;
    }
    Integer chosenId = chosen == null ? null : id(new String(chosen, UTF_8));
    ZstdDictionary mine = current() != null ? current() : pending;
    if (chosenId == null && mine != null) {
      chosenId = choose(null, mine.id());
      log.warn("lazysession (namespace {}): Redis had lost the current dictionary ({}, field {});"
          + " this node put {} back", namespace, new String(key, UTF_8), CURRENT,
          chosenId == null ? "nothing" : Integer.toUnsignedString(chosenId));
    }
    if (chosenId != null) {
      follow(chosenId, first);
    }
    ZstdDictionary trained = training.due(chosenId == null, inRedis.size() + 1 <= MAX_DICTIONARIES);
    if (trained != null) {
      hold(trained);
      publish(trained);
      ZstdDictionary before = current();
      Integer now = choose(before == null ? null : before.id(), trained.id());
      log.info("lazysession (namespace {}) trained zstd dictionary {} ({} bytes){}", namespace,
          Integer.toUnsignedString(trained.id()), trained.size(),
          now != null && now == trained.id() ? ", now the namespace's current one"
              : ", kept; another node's is current");
      if (now != null) {
        follow(now, false);
      }
    }
  }

  /**
   * {@code id} is current in Redis: written with one poll after this node first saw it, or at once
   * when it is the one this node finds as it starts ({@code first}): that one was chosen before this
   * node ran, and a node that lacks it still loads it on first sight.
   */
  private void follow(int id, boolean first) {
    ZstdDictionary now = current();
    if (now != null && now.id() == id) {
      pending = null;
      return;
    }
    ZstdDictionary chosen = known.get(id) != null ? known.get(id) : loadQuietly(id);
    if (chosen == null) {
      return;
    }
    ZstdDictionary waiting = pending;
    if (!first && (waiting == null || waiting.id() != id)) {
      pending = chosen;
      pendingSince = System.nanoTime();
      return;
    }
    if (first || System.nanoTime() - pendingSince >= settings.poll().toNanos()) {
      writing = writer(chosen);
      pending = null;
      training.started(chosen);
      log.info("lazysession (namespace {}) compresses with zstd dictionary {} once the namespace "
          + "writes Redis format 2 (now: format {})", namespace, Integer.toUnsignedString(id),
          format.writes());
    }
  }

  private AttributeSerializer writer(ZstdDictionary dictionary) {
    Compression compression = reading.compression();
    return reading.toBuilder().compression(Compression.zstd(compression.level(),
        compression.minBytes(), dictionary)).build();
  }

  /** HSETNX of the dictionary, sealed for the namespace and its id; whether it was missing. */
  private boolean publish(ZstdDictionary dictionary) {
    byte[] sealed = protection.seal("", fieldName(dictionary.id()), dictionary.bytes());
    return Boolean.TRUE.equals(connection.commands().hsetnx(key, field(dictionary.id()), sealed));
  }

  /** Sets {@code current} to {@code id} if it is still {@code expected}; answers the current id. */
  private @Nullable Integer choose(@Nullable Integer expected, int id) {
    byte[][] keys = {key};
    byte[] answer = connection.commands().eval(CHOOSE, ScriptOutputType.VALUE, keys,
        (expected == null ? "" : Integer.toUnsignedString(expected)).getBytes(UTF_8),
        Integer.toUnsignedString(id).getBytes(UTF_8));
    return answer == null ? null : id(new String(answer, UTF_8));
  }

  /** What runs when this node takes in a dictionary after its first poll (drops the near cache). */
  void onNewDictionary(Runnable action) {
    this.onNewDictionary = action;
  }

  /** Stops polling. */
  void close() {
    ScheduledExecutorService scheduler = thread;
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
  }

  /** The hash key of the namespace's dictionaries. */
  byte[] key() {
    return key.clone();
  }

  private static byte[] field(int id) {
    return Integer.toUnsignedString(id).getBytes(UTF_8);
  }

  /** What a sealed dictionary is bound to, besides the namespace: its id (session id ""). */
  private static String fieldName(int id) {
    return "dictionary:" + Integer.toUnsignedString(id);
  }

  private static @Nullable Integer id(String text) {
    try {
      long value = Long.parseLong(text);
      return value > 0 && value <= 0xFFFFFFFFL ? (int) value : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
