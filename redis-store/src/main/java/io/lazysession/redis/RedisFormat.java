package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis format of one namespace (docs/redis-layout.md, "Format"; docs/versioning.md): the
 * newest format this version reads, what the nodes serving the namespace announce, and the one step
 * that moves the namespace to a newer format once every live node reads it. Thread-safe.
 *
 * <p>Design: a node writes the format the namespace is finalized at, never a newer one, so that a
 * node of the previous release, which reads it, can serve every session until an operator
 * finalizes; finalizing is refused while a live node announces that it reads only an older format.
 * Each node announces itself in the hash {@code <ns>:format} (field {@code node:<id>}: {@code
 * reads=N writes=N version=V host=H seen=T}, the server's time) when it starts and every {@link
 * #HEARTBEAT}, and removes its field when it closes; the hash's field {@code finalized} holds the
 * finalized format (absent: 1). A hash that needs a newer format than its reader's carries it in its
 * field {@code #f}: that reader treats the session as missing, says so once at WARN ({@link
 * #unreadable}), and its scripts never write over, move or reseal the hash.
 */
final class RedisFormat {
  static final Logger log = LoggerFactory.getLogger(RedisFormat.class);
  /** The newest Redis format this version reads (and every earlier one); written once finalized. */
  static final int READS = 2;
  /** The field of a session hash naming the lowest format a reader needs; absent: format 1. */
  static final String FIELD = "#f";
  private static final byte[] FIELD_BYTES = FIELD.getBytes(UTF_8);
  /** How often a node announces itself again. */
  static final Duration HEARTBEAT = Duration.ofSeconds(30);
  /** A node silent for this long is not live: three heartbeats missed, and some slack for clocks. */
  static final Duration LIVE = Duration.ofSeconds(100);
  /** A node silent for this long is forgotten (its field removed by the next announcement). */
  static final Duration FORGET = Duration.ofDays(1);
  private static final String NODE_PREFIX = "node:";
  private static final String FINALIZED = "finalized";

  private final SessionConnection connection;
  private final String namespace;
  private final byte[] key;
  private final String id;
  private final byte[] field;
  private final String version;
  private final Set<String> warned = ConcurrentHashMap.newKeySet();
  private volatile int finalized = 1;
  /**
   * Whether Redis lost the field {@code finalized} this node had read (a flush, a failover to a
   * replica that had not received it): the next heartbeat puts it back if every live node reads it.
   */
  private volatile boolean lost;
  /**
   * The newest format this node can write, announced as the format it reads, so that finalizing
   * never moves the namespace past it: {@link #READS}, less when Redis refuses what a later format
   * needs (an ACL: {@link #writesAtMost}).
   */
  private volatile int writable = READS;
  /** Whether the last announcement failed: said once at WARN, and once more when one succeeds. */
  private volatile boolean failing;
  private volatile @Nullable ScheduledExecutorService thread;

  RedisFormat(SessionConnection connection, String namespace) {
    this.connection = connection;
    this.namespace = namespace;
    this.key = (namespace + ":format").getBytes(UTF_8);
    byte[] random = new byte[9];
    ThreadLocalRandom.current().nextBytes(random);
    this.id = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    this.field = (NODE_PREFIX + id).getBytes(UTF_8);
    String implementation = RedisFormat.class.getPackage().getImplementationVersion();
    this.version = implementation == null ? "development" : implementation;
  }

  /** The version of lazysession this node runs, as it announces it. */
  String version() {
    return version;
  }

  /** The format this node writes: the finalized one, or the newest it reads if that is older. */
  int writes() {
    return Math.min(writable, finalized);
  }

  /**
   * Announces this node now (when Redis answers; else at the next heartbeat) and every {@link
   * #HEARTBEAT} after, on a daemon thread of its own.
   */
  void start() {
    heartbeat();
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread announcer = new Thread(runnable, "lazysession-format-" + namespace);
      announcer.setDaemon(true);
      return announcer;
    });
    long period = HEARTBEAT.toMillis();
    scheduler.scheduleWithFixedDelay(this::heartbeat, period, period, TimeUnit.MILLISECONDS);
    thread = scheduler;
  }

  /** Announces this node now, on its thread: Redis is back after a start without it. */
  void announceSoon() {
    ScheduledExecutorService scheduler = thread;
    if (scheduler != null && !scheduler.isShutdown()) {
      scheduler.execute(this::heartbeat);
    }
  }

  /**
   * Keeps this node at {@code format} at most: it announces that it reads no later one (finalizing
   * is refused while it is live) and writes no later one. Called before {@link #start}.
   */
  void writesAtMost(int format, String why) {
    if (format < writable) {
      writable = format;
      log.warn("lazysession (namespace {}) writes Redis format {} at most: {}. Finalizing the "
          + "namespace at a later format is refused while this node runs", namespace, format, why);
    }
  }

  /** Nothing may escape: a scheduled task that throws is never run again. */
  private void heartbeat() {
    try {
      announce(null, false);
      if (lost) {
        restore();
      }
      if (failing) {
        failing = false;
        log.info("lazysession (namespace {}) announces its Redis format again", namespace);
      }
    } catch (VirtualMachineError e) {
      throw e;
    } catch (RedisException e) {
      if (!(e instanceof io.lettuce.core.RedisCommandExecutionException)) {
        // Redis unreachable: the store's outage log says so once; the next heartbeat tries again.
        log.debug("lazysession (namespace {}) could not announce its Redis format: {}", namespace,
            e.toString());
        return;
      }
      refused(e);
    } catch (Throwable e) {
      refused(e);
    }
  }

  /**
   * Puts back the field {@code finalized} that Redis lost, as finalizing would (format.lua raises it
   * only while every live node reads that format); else this node follows Redis and writes format 1.
   */
  private void restore() {
    int known = finalized;
    lost = false;
    RedisFormatStatus after = announce(known, true);
    if (after.finalized() >= known) {
      log.warn("lazysession (namespace {}): Redis had lost the finalized format ({}:format, field "
          + "finalized); this node put it back at {}", namespace, namespace, known);
    } else {
      log.warn("lazysession (namespace {}): Redis lost the finalized format ({}) and it cannot be put"
          + " back while live nodes read only older formats; this node writes format {}", namespace,
          known, after.writes());
    }
  }

  /** Redis answered the announcement with an error (an ACL), or it failed here. */
  private void refused(Throwable e) {
    if (!failing) {
      failing = true;
      // Unannounced, this node is not counted when the namespace is finalized.
      log.warn("lazysession (namespace {}) cannot announce the Redis format it reads in {}:format "
          + "({}); it retries every {} s. A node that cannot announce itself is not counted "
          + "when the namespace is finalized: grant the store's user EVAL and TIME on that key "
          + "(docs/redis-layout.md, \"Format\")", namespace, namespace, e.toString(),
          HEARTBEAT.toSeconds());
    }
  }


  /**
   * Whether the hash at {@code key} names a Redis format this version does not read: one HGET,
   * asked only of a hash that read as missing, before anything is removed because of it.
   */
  boolean later(byte[] key) {
    return !readable(connection.commands().hget(key, FIELD_BYTES));
  }

  /** As {@link #later(byte[])}, on the reactive API. */
  reactor.core.publisher.Mono<Boolean> laterReactive(byte[] key) {
    return connection.reactive().hget(key, FIELD_BYTES).map(format -> !readable(format))
        .defaultIfEmpty(false);
  }

  /** Whether this version reads a hash whose {@code #f} is {@code format} (null: absent). */
  static boolean readable(byte @Nullable [] format) {
    return format == null || (format.length == 1 && format[0] >= '1' && format[0] <= '0' + READS);
  }

  /**
   * {@code pairs} (field/value pairs a script writes into a new session hash), followed by the mark
   * {@code #f} of the format this node writes when that is after format 1.
   */
  byte[][] marked(byte[][] pairs) {
    int writes = writes();
    if (writes <= 1) {
      return pairs;
    }
    byte[][] marked = java.util.Arrays.copyOf(pairs, pairs.length + 2);
    marked[pairs.length] = FIELD_BYTES;
    marked[pairs.length + 1] = Integer.toString(writes).getBytes(UTF_8);
    return marked;
  }

  /** A Lua condition true when the value {@code f} of {@code #f} names a format this version reads. */
  static String readableInLua(String f) {
    StringBuilder condition = new StringBuilder("(not ").append(f);
    for (int format = 1; format <= READS; format++) {
      condition.append(" or ").append(f).append(" == '").append(format).append('\'');
    }
    return condition.append(')').toString();
  }

  /** Stops announcing and removes this node's announcement (best effort). */
  void close() {
    ScheduledExecutorService scheduler = thread;
    if (scheduler == null) {
      return;
    }
    scheduler.shutdownNow();
    try {
      // A heartbeat in flight would announce this node again after the HDEL.
      scheduler.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      connection.commands().hdel(key, field);
    } catch (RuntimeException e) {
      // Redis is gone: the announcement stops counting as live after LIVE, and is forgotten later.
    }
  }

  /** The namespace's format as the nodes announce it, this one announced anew. */
  RedisFormatStatus status() {
    return announce(null, false);
  }

  /**
   * Moves the namespace to the newest format every live node reads, if that is newer than the
   * finalized one, and logs it.
   *
   * @throws IllegalStateException when a live node reads an older format than this node and the
   *     namespace cannot move, naming those nodes
   */
  RedisFormatStatus finalizeFormat() {
    RedisFormatStatus status = announce(null, false);
    int target = Math.min(writable, status.readByAllLiveNodes());
    RedisFormatStatus after = target > status.finalized() ? announce(target, false) : status;
    if (after.finalized() > status.finalized()) {
      // Raised by format.lua only if no live node reads less, checked in the same call.
      log.warn("lazysession (namespace {}): the Redis format is finalized at {} (was {}); every "
          + "node writes it from its next heartbeat (within {} s). A node of a version that reads "
          + "only an older format treats sessions written in it as missing: rolling back now signs "
          + "those users out (docs/versioning.md, \"Finalizing\")", namespace, after.finalized(),
          status.finalized(), HEARTBEAT.toSeconds());
      return after;
    }
    List<String> behind = new ArrayList<>();
    for (RedisFormatStatus.Node node : after.nodes()) {
      if (node.live() && node.reads() < writable) {
        behind.add(node.host() + " (lazysession " + node.version() + ", node " + node.id()
            + ", reads format " + node.reads() + ")");
      }
    }
    if (!behind.isEmpty()) {
      throw new IllegalStateException("lazysession (namespace " + namespace + ") cannot finalize "
          + "its Redis format at " + writable + ": live nodes read only older formats: "
          + String.join(", ", behind) + ". Upgrade them first; a node silent for "
          + LIVE.toSeconds() + " s no longer counts (docs/versioning.md, \"Finalizing\")");
    }
    log.info("lazysession (namespace {}): the Redis format is finalized at {}, the newest this "
        + "node reads; nothing to finalize", namespace, status.finalized());
    return status;
  }

  /**
   * A session hash names a format this node does not read ({@code #f}): said once per format at
   * WARN. The session reads as missing; the hash is left as it is.
   */
  void unreadable(String id, String format) {
    String named = format.matches("[0-9]{1,4}") ? format : "(unreadable)";
    if (warned.size() < 64 && warned.add(named)) {
      log.warn("lazysession {} (namespace {}) reads Redis formats up to {}, and found session {} "
          + "in format {}: a later lazysession wrote it after the namespace was finalized at that "
          + "format. This node treats such sessions as missing (their users sign in again here) "
          + "and never changes or deletes them; upgrade this node (docs/versioning.md, "
          + "\"Finalizing\"). Said once per format", version, namespace, READS, id, named);
    }
  }

  /**
   * Announces this node; with {@code finalizeAt}, raises the namespace to it unless a live node
   * reads less ({@code restore}: only while the field {@code finalized} is absent).
   */
  private RedisFormatStatus announce(@Nullable Integer finalizeAt, boolean restore) {
    String announcement = "reads=" + writable + " writes=" + writes() + " version=" + version
        + " host=" + Host.NAME;
    byte[][] arguments = finalizeAt == null
        ? new byte[][] {field, announcement.getBytes(UTF_8), millis(FORGET)}
        : new byte[][] {field, announcement.getBytes(UTF_8), millis(FORGET),
            Integer.toString(finalizeAt).getBytes(UTF_8), millis(LIVE),
            (restore ? "absent" : "any").getBytes(UTF_8)};
    byte[][] keys = {key};
    List<Object> answer;
    try {
      answer = connection.evalsha(RedisScript.FORMAT.sha(), ScriptOutputType.MULTI, keys,
          arguments);
    } catch (RedisNoScriptException e) {
      answer = connection.commands().eval(RedisScript.FORMAT.source(), ScriptOutputType.MULTI,
          keys, arguments);
    }
    return read(answer, restore);
  }

  private RedisFormatStatus read(List<Object> answer, boolean restoring) {
    List<byte @Nullable []> elements = ScriptReplies.elements(answer);
    if (elements.isEmpty() || elements.get(0) == null) {
      throw new RedisException("format.lua answered without the server's time");
    }
    long now = Long.parseLong(new String(elements.get(0), UTF_8));
    int finalizedNow = 1;
    boolean present = false;
    List<RedisFormatStatus.Node> nodes = new ArrayList<>();
    for (int i = 1; i + 1 < elements.size(); i += 2) {
      byte[] name = elements.get(i);
      byte[] value = elements.get(i + 1);
      if (name == null || value == null) {
        continue;
      }
      String fieldName = new String(name, UTF_8);
      if (fieldName.equals(FINALIZED)) {
        present = true;
        finalizedNow = Math.max(1, format(new String(value, UTF_8)));
      } else if (fieldName.startsWith(NODE_PREFIX)) {
        nodes.add(node(fieldName.substring(NODE_PREFIX.length()), new String(value, UTF_8), now));
      } // any other field: written by a later version, ignored
    }
    int before = finalized;
    if (present) {
      lost = false; // set again meanwhile (by a node, or lowered by an operator): followed
    } else if (before > 1 && !restoring) {
      // Lost, not lowered (an operator lowers it with HSET, docs/versioning.md): kept until the
      // next heartbeat puts it back.
      lost = true;
      finalizedNow = before;
    }
    finalized = finalizedNow;
    if (finalizedNow != before || finalizedNow > READS) {
      changed(before, finalizedNow);
    }
    return new RedisFormatStatus(writable, writes(), finalizedNow, nodes);
  }

  private void changed(int before, int now) {
    if (now > READS) {
      if (warned.add("finalized " + now)) {
        log.warn("lazysession {} (namespace {}) reads Redis formats up to {}, but the namespace is "
            + "finalized at format {}: sessions later nodes write in it read as missing here (their "
            + "users sign in again on this node); this node keeps writing format {}. Upgrade this "
            + "node (docs/versioning.md, \"Finalizing\")", version, namespace, READS, now, writes());
      }
    } else {
      log.info("lazysession (namespace {}): the namespace is finalized at Redis format {} (was {});"
          + " this node writes format {}", namespace, now, before, writes());
    }
  }

  private RedisFormatStatus.Node node(String nodeId, String announcement, long now) {
    int reads = 1;
    int writes = 1;
    String nodeVersion = "?";
    String host = "?";
    long seen = 0;
    for (String part : announcement.split(" ")) {
      int equals = part.indexOf('=');
      if (equals < 0) {
        continue;
      }
      String value = part.substring(equals + 1);
      switch (part.substring(0, equals)) {
        case "reads" -> reads = format(value);
        case "writes" -> writes = format(value);
        case "version" -> nodeVersion = value;
        case "host" -> host = value;
        case "seen" -> seen = number(value, 0L);
        default -> { } // announced by a later version: ignored
      }
    }
    return new RedisFormatStatus.Node(nodeId, nodeVersion, host, reads, writes,
        Instant.ofEpochMilli(seen), Math.abs(now - seen) <= LIVE.toMillis(), nodeId.equals(id));
  }

  /** A format number as announced; 1 when it does not parse (formats are small numbers). */
  private static int format(String text) {
    return (int) Math.max(0, Math.min(9_999, number(text, 1L)));
  }

  private static long number(String text, long otherwise) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }

  private static byte[] millis(Duration duration) {
    return Long.toString(duration.toMillis()).getBytes(UTF_8);
  }

  /** This machine's name, looked up once, when a node first announces itself (no spaces). */
  private static final class Host {
    static final String NAME = lookUp();

    private static String lookUp() {
      String name;
      try {
        name = InetAddress.getLocalHost().getHostName();
      } catch (java.io.IOException | RuntimeException e) {
        name = System.getenv().getOrDefault("HOSTNAME", "unknown");
      }
      return name.isBlank() ? "unknown" : name.replaceAll("\\s", "_");
    }
  }
}
