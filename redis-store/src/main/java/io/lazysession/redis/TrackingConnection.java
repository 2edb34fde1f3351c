package io.lazysession.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.push.PushListener;
import io.lettuce.core.api.push.PushMessage;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RESP3 connection over which Redis pushes an invalidation for every write to a session hash of
 * the namespace ({@code CLIENT TRACKING ON BCAST PREFIX <namespace>:s:}), and a background thread
 * that renews the lease of {@link NearCacheTracking} by a {@code ROLE} on it (a {@code PING} where
 * an ACL refuses ROLE), every quarter of the staleness bound. After the connection dropped (Lettuce
 * reconnects it, to the new primary after a Sentinel failover), tracking is turned on again before
 * the lease may be renewed. The connection is opened anew, to the primary the client finds then,
 * when one of the repository's command connections dropped (it reconnects there) and when its
 * server answers ROLE with anything but {@code master} (a primary demoted without dropping its
 * clients): invalidations from a server that is not the primary cover nothing. One per repository;
 * thread-safe.
 */
final class TrackingConnection implements AutoCloseable {
  /** The client name of the connection (CLIENT SETNAME), to find it in CLIENT LIST. */
  static final String CLIENT_NAME = "lazysession-tracking";
  static final String MODE_PROPERTY = "lazysession.near-cache.mode";

  private static final Logger log = LoggerFactory.getLogger(TrackingConnection.class);

  private static final long REOPEN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final RedisClient client;
  private volatile StatefulRedisConnection<String, String> connection;
  private final NearCacheTracking tracking;
  private final String prefix;
  private final ScheduledExecutorService renewer;
  /** Test hook: while true, the lease is not renewed. */
  private volatile boolean paused;
  private volatile boolean failing;
  /** Whether the lease is renewed by ROLE (else PING: an ACL refuses ROLE). */
  private boolean roleAllowed = true;
  private boolean onReplica;
  private long reopenedAt;
  private boolean closed; // guarded by this
  private final PushListener pushListener = this::pushed;
  private final RedisConnectionStateListener stateListener = new RedisConnectionStateListener() {
    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> dropped) {
      tracking.disconnected();
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> connected,
        java.net.SocketAddress address) {
      if (!renewer.isShutdown()) {
        renewer.execute(TrackingConnection.this::renewSafely);
      }
    }
  };

  private TrackingConnection(RedisClient client, StatefulRedisConnection<String, String> connection,
      NearCacheTracking tracking, String prefix) {
    this.client = client;
    this.connection = connection;
    this.reopenedAt = tracking.nanoTime() - REOPEN_INTERVAL_NANOS;
    this.tracking = tracking;
    this.prefix = prefix;
    this.renewer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "lazysession-tracking");
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * Opens the connection, turns tracking on and takes the first lease, then renews it in the
   * background.
   *
   * @throws IllegalArgumentException naming {@value #MODE_PROPERTY} when Redis does not allow it
   *     (no RESP3, no CLIENT TRACKING, an ACL refusing it)
   * @throws IllegalStateException when Redis cannot be reached
   */
  static TrackingConnection open(RedisClient client, String namespace,
      NearCacheTracking tracking) {
    StatefulRedisConnection<String, String> connection;
    try {
      connection = client.connect(StringCodec.UTF8);
    } catch (RedisException e) {
      throw new IllegalStateException("lazysession cannot connect to Redis: " + e.getMessage(), e);
    }
    TrackingConnection opened =
        new TrackingConnection(client, connection, tracking, namespace + ":s:");
    try {
      opened.start();
      return opened;
    } catch (RuntimeException e) {
      opened.close();
      throw e;
    }
  }

  private void start() {
    if (!speaksResp3()) {
      throw refused("the connection speaks RESP2, and invalidations are pushed only over RESP3: "
          + "leave the RedisClient's ClientOptions.protocolVersion unset or RESP3, on Redis 6.2+");
    }
    connection.addListener(pushListener);
    connection.addListener(stateListener);
    try {
      connection.sync().role();
    } catch (RedisCommandExecutionException e) {
      roleAllowed = false;
      log.warn("lazysession near-cache tracking: Redis refused ROLE ({}): the lease is renewed by "
          + "PING, so a primary demoted without dropping its clients is not noticed; allow ROLE to "
          + "this user", e.getMessage());
    }
    try {
      renew();
    } catch (RedisCommandExecutionException e) {
      throw refused("Redis refused " + e.getMessage() + " (an ACL must allow CLIENT TRACKING, "
          + "CLIENT SETNAME and PING (better ROLE) on this connection)");
    }
    long period = Math.max(TimeUnit.MILLISECONDS.toNanos(1), tracking.maxStalenessNanos() / 4);
    renewer.scheduleWithFixedDelay(this::renewSafely, period, period, TimeUnit.NANOSECONDS);
  }

  /** What Lettuce negotiated (HELLO); CLIENT INFO where the connection does not say. */
  private boolean speaksResp3() {
    if (connection instanceof StatefulRedisConnectionImpl<?, ?> negotiated) {
      return negotiated.getConnectionState().getNegotiatedProtocolVersion()
          == ProtocolVersion.RESP3;
    }
    try {
      return (" " + connection.sync().clientInfo()).contains(" resp=3");
    } catch (RedisCommandExecutionException e) {
      return false; // before Redis 6.2
    }
  }

  private IllegalArgumentException refused(String why) {
    return new IllegalArgumentException("near-cache tracking (" + MODE_PROPERTY + "=track, "
        + "Builder.nearCacheTracking) cannot work here: " + why + ". Or set " + MODE_PROPERTY
        + "=validate.");
  }

  /**
   * Opens the connection anew when asked to, turns tracking on when it is not (yet, or again), then
   * sends the ROLE (or PING) that renews the lease.
   */
  private void renew() {
    if (tracking.takeReopenRequest()) {
      boolean reopened = false;
      try {
        reopened = reopen();
      } finally {
        if (!reopened) {
          tracking.reopenRequested(); // not now: asked again at the next round
        }
      }
      if (!reopened) {
        return;
      }
    }
    long generation = tracking.generation();
    RedisCommands<String, String> commands = connection.sync();
    if (!tracking.isTracking()) {
      // Named again after each reconnect (Lettuce does not restore it), to be found in CLIENT LIST.
      commands.clientSetname(CLIENT_NAME);
      // OFF first: enabling BCAST with a prefix the connection already tracks is an error.
      commands.clientTracking(TrackingArgs.Builder.enabled(false));
      commands.clientTracking(TrackingArgs.Builder.enabled().bcast().prefixes(prefix));
      if (!tracking.trackingOn(generation)) {
        return; // dropped meanwhile: the next round tries again
      }
    }
    if (paused) {
      return;
    }
    long sentAt = tracking.nanoTime();
    if (roleAllowed) {
      Object role = commands.role().get(0);
      if (!"master".equals(String.valueOf(role))) {
        if (!onReplica) {
          log.warn("lazysession near-cache tracking: the tracking connection's server is a {} now "
              + "(a primary demoted without dropping its clients): reads are validated by Redis "
              + "until it is on the primary again", role);
        }
        onReplica = true;
        tracking.reopenRequested();
        return;
      }
      onReplica = false;
    } else {
      commands.ping();
    }
    tracking.answered(generation, sentAt);
  }

  /**
   * Replaces the connection with a new one to the primary the client finds now (through the
   * Sentinels); false when it is too soon after the last time or Redis cannot be reached (the old
   * connection is kept: Lettuce keeps reconnecting it).
   */
  private boolean reopen() {
    long now = tracking.nanoTime();
    if (now - reopenedAt < REOPEN_INTERVAL_NANOS) {
      return false;
    }
    reopenedAt = now;
    StatefulRedisConnection<String, String> opened = client.connect(StringCodec.UTF8);
    StatefulRedisConnection<String, String> old;
    synchronized (this) {
      if (closed) {
        opened.closeAsync();
        return false;
      }
      old = connection;
      old.removeListener(pushListener);
      old.removeListener(stateListener);
      opened.addListener(pushListener);
      opened.addListener(stateListener);
      connection = opened;
    }
    tracking.disconnected();
    old.closeAsync();
    return true;
  }

  private void renewSafely() {
    try {
      renew();
      failing = false;
    } catch (RuntimeException e) {
      // The lease runs out by itself: reads fall back to validated calls until a PING is answered.
      if (!failing && !renewer.isShutdown()) {
        log.warn("lazysession near-cache tracking: cannot renew the lease ({}); reads are "
            + "validated by Redis until it can", e.toString());
      }
      failing = true;
    }
  }

  /** One RESP3 push: {@code invalidate} with the keys written, or null when Redis flushed them. */
  private void pushed(PushMessage message) {
    if (!"invalidate".equals(message.getType())) {
      return;
    }
    try {
      invalidate(message);
    } catch (RuntimeException e) {
      tracking.invalidatedAll(); // an invalidation that cannot be read must not be lost
      log.warn("lazysession near-cache tracking: unreadable invalidation ({})", e.toString());
    }
  }

  /**
   * Counts the hashes a push names, but for this node's own saves: a hash named together with marks
   * ({@code <hash>:w:<writer>.<n>}, which save.lua writes and deletes) that are all of saves of this
   * node still registered ({@link NearCacheTracking#ownSave}). Redis sends every key written in one
   * pass of its event loop in one push, so another save of the same hash in that pass shows its own
   * mark; a write that marks nothing (a delete, a node without tracking) is hidden by this node's save
   * in that pass, which {@link NearCache#afterSave} bounds by trusting a save's copy for the maximum
   * staleness only.
   */
  private void invalidate(PushMessage message) {
    List<Object> content = message.getContent(TrackingConnection::text);
    Object keys = content.size() > 1 ? content.get(1) : null;
    if (!(keys instanceof List<?> written)) {
      tracking.invalidatedAll();
      return;
    }
    java.util.Set<String> hashes = new java.util.LinkedHashSet<>();
    java.util.Map<String, Boolean> marks = new java.util.HashMap<>(); // token -> all own saves
    for (Object key : written) {
      String name = String.valueOf(key);
      int mark = name.lastIndexOf(MARK);
      if (mark > 0 && name.charAt(mark - 1) == '}' && !name.endsWith("}")) { // a hash ends in }
        boolean own = tracking.ownSave(name.substring(mark + MARK.length()));
        marks.merge(idOf(name.substring(0, mark)), own, Boolean::logicalAnd);
      } else {
        hashes.add(idOf(name));
      }
    }
    for (String token : hashes) {
      if (!Boolean.TRUE.equals(marks.get(token))) {
        tracking.invalidated(token);
      }
    }
  }

  /** What separates a hash's name from the writer in a save's mark. */
  static final String MARK = ":w:";

  /** The id in {@code <prefix>{<id>}}; another key under the prefix counts as itself (harmless). */
  private String idOf(String key) {
    int start = prefix.length();
    if (key.length() > start + 1 && key.startsWith("{", start) && key.endsWith("}")) {
      return key.substring(start + 1, key.length() - 1);
    }
    return key;
  }

  private static Object text(ByteBuffer bytes) {
    return StandardCharsets.UTF_8.decode(bytes).toString();
  }

  /** Test hook: stops (true) or resumes (false) renewing the lease; tracking itself goes on. */
  void pauseRenewals(boolean pause) {
    this.paused = pause;
  }

  NearCacheTracking tracking() {
    return tracking;
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    renewer.shutdownNow();
    connection.close();
  }
}
