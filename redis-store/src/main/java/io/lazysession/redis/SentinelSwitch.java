package io.lazysession.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.lang.reflect.Field;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * Follows a Sentinel failover at once: when the Sentinels promote a replica of the store's primary,
 * every connection of the repository to the old primary is dropped, and Lettuce reconnects it to the
 * primary the Sentinels name now (docs/operations.md, "Failover"). Thread-safe.
 *
 * <p>Why: a connection made through Sentinel stays with the server it reached. A primary that was
 * paused (a stalled VM, a long fork) comes back still believing it is the primary until the
 * Sentinels demote it, a few seconds later; meanwhile it acknowledges the writes that reach it, and
 * loses them when it resynchronizes with the new primary. The Sentinels announce a promotion on
 * their channel {@code +switch-master} ({@code <master> <old ip> <old port> <new ip> <new port>}):
 * one subscription per Sentinel (any of them may be down), and each Sentinel's first announcement
 * of an address is followed. Lettuce's reconnect asks the Sentinels in the order of the URI, and one
 * that has not switched yet names the old primary again (the other Sentinels learn a promotion
 * from its leader within a couple of seconds): following each Sentinel's announcement means that
 * once the Sentinel Lettuce asks first has announced it, the connections reconnect to the new
 * primary, even to an old primary still up (a {@code SENTINEL FAILOVER}) that a first reconnect
 * reached again. A subscription that reconnects asks its Sentinel for the primary's address,
 * so that a promotion announced while every subscription was down is caught too.
 *
 * <p>Lettuce offers no accessor for a client's URI, which holds the Sentinels and the master's name:
 * it is read from the client's field once, at start; where that fails (another Lettuce), failovers
 * are followed as before this class, when the old primary's connection drops, and a WARN says so.
 */
final class SentinelSwitch implements Disposable {
  private static final Logger log = LoggerFactory.getLogger(SentinelSwitch.class);
  private static final String CHANNEL = "+switch-master";

  private final String master;
  private final Runnable follow;
  private final List<StatefulRedisPubSubConnection<String, String>> subscriptions =
      new ArrayList<>();
  /** Per Sentinel ({@code host:port}): the primary's address ({@code ip port}) it last named. */
  private final Map<String, String> named = new ConcurrentHashMap<>();
  /** The address last followed, so that each promotion is logged at INFO once. */
  private final AtomicReference<@Nullable String> followed = new AtomicReference<>();
  private volatile boolean disposed;

  private SentinelSwitch(String master, Runnable follow) {
    this.master = master;
    this.follow = follow;
  }

  /**
   * Subscribes to the Sentinels of {@code client}'s URI; null (nothing to follow) when it names no
   * Sentinel. A Sentinel that cannot be reached now is skipped: the others announce the switch.
   *
   * @param follow drops the repository's connections to the primary (they reconnect through the
   *     Sentinels); run on a Lettuce thread, at most once per promotion
   */
  static @Nullable Disposable follow(RedisClient client, Runnable follow) {
    RedisURI uri = uriOf(client);
    if (uri == null || uri.getSentinels().isEmpty() || uri.getSentinelMasterId() == null) {
      return null;
    }
    SentinelSwitch sentinelSwitch = new SentinelSwitch(uri.getSentinelMasterId(), follow);
    for (RedisURI sentinel : uri.getSentinels()) {
      sentinelSwitch.subscribe(client, sentinel);
    }
    if (sentinelSwitch.subscriptions.isEmpty()) {
      log.warn("lazysession could not subscribe to any Sentinel's {}: a failover is followed when "
          + "the old primary's connection drops, not at once", CHANNEL);
    }
    return sentinelSwitch;
  }

  private void subscribe(RedisClient client, RedisURI sentinel) {
    StatefulRedisPubSubConnection<String, String> connection;
    try {
      connection = client.connectPubSub(StringCodec.UTF8, sentinel);
    } catch (RuntimeException e) {
      log.debug("lazysession could not subscribe to Sentinel {}: {}", sentinel, e.toString());
      return;
    }
    try {
      listen(client, sentinel, connection);
    } catch (RuntimeException e) {
      // Refused (an ACL) or timed out: the other Sentinels announce the switch.
      log.debug("lazysession could not subscribe to Sentinel {}: {}", sentinel, e.toString());
      connection.closeAsync();
    }
  }

  private void listen(RedisClient client, RedisURI sentinel,
      StatefulRedisPubSubConnection<String, String> connection) {
    connection.addListener(new RedisPubSubAdapter<>() {
      @Override
      public void message(String channel, String message) {
        switched(key(sentinel), message);
      }
    });
    connection.addListener(new RedisConnectionStateListener() {
      @Override
      public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
        // Lettuce subscribes again by itself; a promotion announced while it was away is asked for.
        askPrimary(client, sentinel);
      }
    });
    connection.sync().subscribe(CHANNEL);
    synchronized (subscriptions) {
      subscriptions.add(connection);
    }
    askPrimary(client, sentinel);
  }

  /** A {@code +switch-master} message of {@code sentinel}: followed when it names this master. */
  void switched(String sentinel, String message) {
    String[] parts = message.split(" ");
    if (parts.length != 5 || !parts[0].equals(master)) {
      return;
    }
    moved(sentinel, parts[3] + " " + parts[4]);
  }

  private void moved(String sentinel, String address) {
    String before = named.put(sentinel, address);
    if (disposed || address.equals(before)) {
      return;
    }
    if (!address.equals(followed.getAndSet(address))) {
      log.info("lazysession: Sentinel promoted {} to primary of {} (was {}); reconnecting the "
          + "store's connections to it", address, master, before);
    }
    follow.run();
  }

  private static String key(RedisURI sentinel) {
    return sentinel.getHost() + ":" + sentinel.getPort();
  }

  /**
   * Asks {@code sentinel} for the primary's address; its first answer is only remembered (the store
   * connected to that primary a moment ago), a later one that differs is followed.
   */
  private void askPrimary(RedisClient client, RedisURI sentinel) {
    client.connectSentinelAsync(StringCodec.UTF8, sentinel).thenCompose(connection ->
        connection.async().getMasterAddrByName(master).whenComplete((address, error) ->
            connection.closeAsync()))
        .whenComplete((address, error) -> {
          if (address instanceof java.net.InetSocketAddress inet) {
            String answer = inet.getHostString() + " " + inet.getPort();
            if (named.putIfAbsent(key(sentinel), answer) != null) {
              moved(key(sentinel), answer);
            }
          }
        });
  }

  @Override
  public void dispose() {
    disposed = true;
    synchronized (subscriptions) {
      subscriptions.forEach(StatefulConnection::closeAsync);
      subscriptions.clear();
    }
  }

  @Override
  public boolean isDisposed() {
    return disposed;
  }

  /**
   * Drops {@code connection}'s channel, so that Lettuce reconnects it (to the primary the Sentinels
   * name now); its commands in flight are retried there, as after any dropped connection.
   */
  static void reconnect(StatefulConnection<?, ?> connection) {
    if (!(connection instanceof RedisChannelHandler<?, ?> handler)) {
      return;
    }
    RedisChannelWriter writer = handler.getChannelWriter();
    for (int hops = 0; hops < 8 && writer != null && !(writer instanceof DefaultEndpoint); hops++) {
      writer = delegateOf(writer);
    }
    if (writer instanceof DefaultEndpoint endpoint) {
      endpoint.disconnect();
    }
  }

  /**
   * The writer {@code writer} wraps (a command listener's, a command timeout's), by its public
   * {@code getDelegate()}: Lettuce 7 declares it in an interface, {@code Delegating}, which Lettuce
   * 6 (Spring Boot 4.0) lacks. Null when it wraps none.
   */
  private static @Nullable RedisChannelWriter delegateOf(RedisChannelWriter writer) {
    try {
      return writer.getClass().getMethod("getDelegate").invoke(writer)
          instanceof RedisChannelWriter inner ? inner : null;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /** The URI {@code client} connects with, or null when this Lettuce keeps it elsewhere. */
  private static @Nullable RedisURI uriOf(RedisClient client) {
    try {
      Field field = RedisClient.class.getDeclaredField("redisURI");
      field.setAccessible(true);
      return (RedisURI) Objects.requireNonNull(field.get(client));
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("lazysession cannot read the Sentinels of this Lettuce client ({}): a failover is "
          + "followed when the old primary's connection drops, not at once", e.toString());
      return null;
    }
  }
}
