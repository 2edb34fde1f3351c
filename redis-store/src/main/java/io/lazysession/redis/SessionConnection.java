package io.lazysession.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.reactive.RedisClusterReactiveCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import io.lettuce.core.internal.TimeoutProvider;
import io.lettuce.core.protocol.RedisCommand;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * The Lettuce connections (binary keys and values) to the Redis that holds the sessions, shared by all
 * threads (Lettuce connections are thread-safe and multiplex commands).
 *
 * <p>Design note: everything above this class speaks {@link RedisClusterCommands}, which a standalone,
 * Sentinel-managed and Cluster connection all provide, and every script call names exactly one key, so
 * the store is the same code on every topology; only the factories below differ.
 *
 * <p>A write that must be followed by WAIT goes through {@link #onPrimaryOf}: WAIT counts the replicas
 * that have the last write <em>of the connection it is sent on</em>, so the write and the WAIT must
 * share one physical connection to the primary that owns the key, used by nothing else meanwhile.
 * Each such save borrows a dedicated connection ({@link WaitConnections}), so a WAIT never delays a
 * read nor another session's save.
 */
interface SessionConnection extends AutoCloseable {
  Logger log = LoggerFactory.getLogger(SessionConnection.class);

  RedisClusterCommands<byte[], byte[]> commands();

  /**
   * {@code EVALSHA} on the connection of {@link #commands()}, answered as {@link #commands()}
   * answers it (the same exceptions, the same timeout).
   */
  default <T> T evalsha(String sha, ScriptOutputType type, byte[][] keys, byte[]... arguments) {
    return commands().evalsha(sha, type, keys, arguments);
  }

  /** {@code FCALL} on the connection of {@link #commands()}, as {@link #evalsha}. */
  default <T> T fcall(String function, ScriptOutputType type, byte[][] keys,
      byte[]... arguments) {
    return commands().fcall(function, type, keys, arguments);
  }

  /**
   * The reactive API of the same connection as {@link #commands()}: its answers arrive on Lettuce's
   * event-loop threads.
   */
  RedisClusterReactiveCommands<byte[], byte[]> reactive();

  /**
   * Runs {@code work} with commands that all travel over one physical connection to the primary that
   * owns {@code key}, which no other thread uses until {@code work} returns; only available when
   * connected with {@code durable}.
   */
  <T> T onPrimaryOf(byte[] key, Function<RedisClusterCommands<byte[], byte[]>, T> work);

  /** Re-reads the Cluster topology (after a MOVED answer); does nothing on other topologies. */
  void refreshTopology();

  /** Closes the connections; the client stays open (it belongs to whoever created it). */
  @Override
  void close();

  /**
   * Connects with the client's own URI (standalone or Sentinel).
   *
   * @param durable also open the connections that writes followed by WAIT use
   * @param onReset called after one of this repository's own connections dropped (a failover, a
   *     restart, a network cut), from a Lettuce thread; other connections of the client do not count
   * @throws IllegalStateException naming the cause when Redis cannot be reached
   */
  static SessionConnection connect(RedisClient client, boolean durable, Runnable onReset) {
    warnUnlessFailFast(client, client.getOptions());
    // Only this repository's own connections count: other connections of the same client (or of
    // other clients sharing its resources) open and close without affecting the near cache.
    RedisConnectionStateListener listener = new RedisConnectionStateListener() {
      @Override
      public void onRedisDisconnected(RedisChannelHandler<?, ?> dropped) {
        onReset.run();
      }
    };
    Supplier<StatefulRedisConnection<byte[], byte[]>> connect = () -> {
      StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
      connection.addListener(listener);
      return connection;
    };
    StatefulRedisConnection<byte[], byte[]> connection = open(connect);
    WaitConnections<StatefulRedisConnection<byte[], byte[]>> waits = durable
        ? new WaitConnections<>(connect, closing -> closing.removeListener(listener),
            MAX_IDLE_WAIT_CONNECTIONS, MAX_WAIT_CONNECTIONS)
        : null;
    // With Sentinel: a promotion drops the connections to the old primary at once (SentinelSwitch).
    Disposable sentinel = SentinelSwitch.follow(client, () -> {
      SentinelSwitch.reconnect(connection);
      if (waits != null) {
        waits.forEachOpen(SentinelSwitch::reconnect);
      }
    });
    return Lettuce.open(connection, connection.sync(), waits == null ? null
        : (key, work) -> waits.with(dedicated -> work.apply(dedicated.sync())),
        () -> {}, sentinel == null ? () -> {} : sentinel, waits);
  }

  /**
   * Connects to a Redis Cluster. Commands are routed by the slot of their key (every script call
   * names one key); the client's topology refresh options decide how fast a failover is seen.
   */
  static SessionConnection connect(RedisClusterClient client, boolean durable, Runnable onReset) {
    warnUnlessFailFast(client, client.getOptions());
    Supplier<StatefulRedisClusterConnection<byte[], byte[]>> connect =
        () -> client.connect(ByteArrayCodec.INSTANCE);
    StatefulRedisClusterConnection<byte[], byte[]> connection = open(connect);
    Disposable resets = subscribe(client, client::getPartitions, onReset);
    // The Cluster's resets come from its event bus, which cannot tell a connection closed on
    // purpose from a dropped one: a WAIT connection closed beyond the idle ones kept resets the near
    // cache (always safe, only a cost).
    WaitConnections<StatefulRedisClusterConnection<byte[], byte[]>> waits = durable
        ? new WaitConnections<>(connect, closing -> { }, MAX_IDLE_WAIT_CONNECTIONS,
            MAX_WAIT_CONNECTIONS) : null;
    return Lettuce.open(connection, connection.sync(), waits == null ? null
        : (key, work) -> waits.with(dedicated -> {
          int slot = SlotHash.getSlot(key);
          RedisClusterNode primary = dedicated.getPartitions().getMasterBySlot(slot);
          if (primary == null) {
            throw new RedisException("no primary is known for slot " + slot);
          }
          // The node connection this cluster connection routes the slot's writes over.
          return work.apply(dedicated.getConnection(primary.getUri().getHost(),
              primary.getUri().getPort()).sync());
        }), client::refreshPartitions, resets, waits);
  }

  /** How many idle WAIT connections a repository keeps; more are opened while more saves wait. */
  int MAX_IDLE_WAIT_CONNECTIONS = 16;

  /**
   * How many WAIT connections a repository opens at most: as many durable saves can wait for
   * replicas at once; one more fails at once without being sent ({@link WaitConnections}).
   */
  int MAX_WAIT_CONNECTIONS = 32;

  /** Opens the command connection, saying what to check when Redis cannot be reached. */
  private static <C extends StatefulConnection<?, ?>> C open(Supplier<C> connect) {
    try {
      return connect.get();
    } catch (RedisException e) {
      throw cannotConnect(e);
    }
  }

  /** Runs work on a dedicated connection to the primary of a key. */
  interface OnPrimary {
    @Nullable Object run(byte[] key, Function<RedisClusterCommands<byte[], byte[]>, ?> work);
  }

  /** The connections of one repository, whatever the topology. */
  final class Lettuce implements SessionConnection {
    private final StatefulConnection<byte[], byte[]> connection;
    private final RedisClusterCommands<byte[], byte[]> commands;
    private final RedisClusterAsyncCommands<byte[], byte[]> async;
    private final TimeoutProvider timeouts;
    private final @Nullable OnPrimary onPrimary;
    private final Runnable refresh;
    private final Disposable resets;
    private final @Nullable WaitConnections<?> waits;

    @SuppressWarnings("unchecked")
    private Lettuce(StatefulConnection<byte[], byte[]> connection,
        RedisClusterCommands<byte[], byte[]> commands, @Nullable OnPrimary onPrimary,
        Runnable refresh, Disposable resets, @Nullable WaitConnections<?> waits) {
      this.connection = connection;
      this.commands = commands;
      this.async = connection instanceof StatefulRedisConnection<?, ?> standalone
          ? ((StatefulRedisConnection<byte[], byte[]>) standalone).async()
          : ((StatefulRedisClusterConnection<byte[], byte[]>) connection).async();
      // The sync API's own timeout rule: the command's from TimeoutOptions, else the connection's.
      this.timeouts = new TimeoutProvider(() -> connection.getOptions().getTimeoutOptions(),
          () -> connection.getTimeout().toNanos());
      this.onPrimary = onPrimary;
      this.refresh = refresh;
      this.resets = resets;
      this.waits = waits;
    }

    /** The connections of a repository; with {@code waits}, one of them is opened now. */
    static Lettuce open(StatefulConnection<byte[], byte[]> connection,
        RedisClusterCommands<byte[], byte[]> commands, @Nullable OnPrimary onPrimary,
        Runnable refresh, Disposable resets, @Nullable WaitConnections<?> waits) {
      Lettuce lettuce = new Lettuce(connection, commands, onPrimary, refresh, resets, waits);
      if (waits != null) {
        try {
          waits.warmUp();
        } catch (RedisException e) {
          lettuce.close();
          throw cannotConnect(e);
        }
      }
      return lettuce;
    }

    @Override
    public RedisClusterCommands<byte[], byte[]> commands() {
      return commands;
    }

    /**
     * Sent through the asynchronous API and awaited as the sync API awaits it: the sync API is a
     * dynamic proxy that finds and calls the asynchronous method by reflection on every command
     * (its frames held 2-6% of a read-only request's CPU samples when profiled), for the scripts
     * every request runs.
     */
    @Override
    public <T> T evalsha(String sha, ScriptOutputType type, byte[][] keys, byte[]... arguments) {
      return await(async.evalsha(sha, type, keys, arguments));
    }

    @Override
    public <T> T fcall(String function, ScriptOutputType type, byte[][] keys,
        byte[]... arguments) {
      return await(async.fcall(function, type, keys, arguments));
    }

    /** As the sync API: the exceptions it throws, and the command cancelled past its timeout. */
    private <T> T await(RedisFuture<T> command) {
      long timeout = command instanceof RedisCommand<?, ?, ?> sent ? timeouts.getTimeoutNs(sent)
          : connection.getTimeout().toNanos();
      return LettuceFutures.awaitOrCancel(command, timeout, TimeUnit.NANOSECONDS);
    }

    @Override
    @SuppressWarnings("unchecked")
    public RedisClusterReactiveCommands<byte[], byte[]> reactive() {
      if (connection instanceof StatefulRedisConnection<?, ?> standalone) {
        return ((StatefulRedisConnection<byte[], byte[]>) standalone).reactive();
      }
      return ((StatefulRedisClusterConnection<byte[], byte[]>) connection).reactive();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T onPrimaryOf(byte[] key, Function<RedisClusterCommands<byte[], byte[]>, T> work) {
      if (onPrimary == null) {
        throw new IllegalStateException("not connected for durable writes");
      }
      return (T) onPrimary.run(key, work);
    }

    @Override
    public void refreshTopology() {
      refresh.run();
    }

    @Override
    public void close() {
      resets.dispose();
      if (waits != null) {
        waits.close();
      }
      connection.close();
    }
  }

  /**
   * Resets on every topology change of the Cluster and every dropped connection to one of its nodes.
   * The node connections a cluster connection opens are internal to Lettuce, so a drop is recognised
   * by its remote address: a connection of another client to the same nodes counts too, one of
   * another Redis does not.
   */
  private static Disposable subscribe(RedisClusterClient client,
      Supplier<Partitions> partitions, Runnable onReset) {
    return client.getResources().eventBus().get()
        .filter(event -> event instanceof ClusterTopologyChangedEvent
            || (event instanceof ConnectionDeactivatedEvent deactivated
                && isNodeOf(partitions.get(), deactivated.remoteAddress())))
        .subscribe(event -> onReset.run(),
            error -> log.warn("lazysession stopped listening to connection events: {}",
                error.toString()));
  }

  private static boolean isNodeOf(Partitions partitions, @Nullable SocketAddress remote) {
    if (!(remote instanceof InetSocketAddress address)) {
      return true; // cannot tell: reset, which is always safe
    }
    for (RedisClusterNode node : partitions) {
      RedisURI uri = node.getUri();
      if (uri != null && uri.getPort() == address.getPort()
          && (uri.getHost().equals(address.getHostString()) || (address.getAddress() != null
              && uri.getHost().equals(address.getAddress().getHostAddress())))) {
        return true;
      }
    }
    return false;
  }

  private static void warnUnlessFailFast(AbstractRedisClient client, ClientOptions options) {
    if (options.getDisconnectedBehavior() != ClientOptions.DisconnectedBehavior.REJECT_COMMANDS
        || !options.getTimeoutOptions().isTimeoutCommands()) {
      log.warn("the {} given to lazysession buffers commands while disconnected or has no command "
          + "timeout: requests may wait for Redis instead of failing fast. Set ClientOptions "
          + "disconnectedBehavior(REJECT_COMMANDS), a bounded requestQueueSize and TimeoutOptions "
          + "(see the redis-store README)", client.getClass().getSimpleName());
    }
  }

  private static IllegalStateException cannotConnect(RedisException e) {
    return new IllegalStateException("lazysession cannot connect to Redis: " + e.getMessage()
        + (e.getCause() != null ? " (" + e.getCause().getMessage() + ")" : "")
        + ". Check that Redis is running and reachable, and the connection settings "
        + "(spring.data.redis.url, host/port/password, sentinel.* or cluster.nodes with Spring "
        + "Boot).", e);
  }
}
