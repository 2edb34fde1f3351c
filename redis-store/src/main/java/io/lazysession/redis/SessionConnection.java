package io.lazysession.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
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
 * <p>A write that must be followed by WAIT goes over {@link #primaryOf}: WAIT counts the replicas that
 * have the last write <em>of the connection it is sent on</em>, so the write and the WAIT must share
 * one physical connection to the primary that owns the key. Those connections are separate from the
 * one reads use, so that a WAIT (which blocks the connection it is sent on) never delays a read.
 */
interface SessionConnection extends AutoCloseable {
  Logger log = LoggerFactory.getLogger(SessionConnection.class);

  RedisClusterCommands<byte[], byte[]> commands();

  /**
   * Commands that all travel over one physical connection to the primary that owns {@code key};
   * only available when connected with {@code durable}.
   */
  RedisClusterCommands<byte[], byte[]> primaryOf(byte[] key);

  /** Re-reads the Cluster topology (after a MOVED answer); does nothing on other topologies. */
  void refreshTopology();

  /** Closes the connections; the client stays open (it belongs to whoever created it). */
  @Override
  void close();

  /**
   * Connects with the client's own URI (standalone or Sentinel).
   *
   * @param durable also open the connection that writes followed by WAIT use
   * @param onReset called after one of this repository's own connections dropped (a failover, a
   *     restart, a network cut), from a Lettuce thread; other connections of the client do not count
   * @throws IllegalStateException naming the cause when Redis cannot be reached
   */
  static SessionConnection connect(RedisClient client, boolean durable, Runnable onReset) {
    warnUnlessFailFast(client, client.getOptions());
    List<StatefulRedisConnection<byte[], byte[]>> opened =
        open(() -> client.connect(ByteArrayCodec.INSTANCE), durable);
    StatefulRedisConnection<byte[], byte[]> connection = opened.get(0);
    StatefulRedisConnection<byte[], byte[]> writer = durable ? opened.get(1) : null;
    // Only this repository's own connections count: other connections of the same client (or of
    // other clients sharing its resources) open and close without affecting the near cache.
    RedisConnectionStateListener listener = new RedisConnectionStateListener() {
      @Override
      public void onRedisDisconnected(RedisChannelHandler<?, ?> dropped) {
        onReset.run();
      }
    };
    connection.addListener(listener);
    if (writer != null) {
      writer.addListener(listener);
    }
    return new Lettuce(connection.sync(), writer == null ? null : key -> writer.sync(), () -> {},
        () -> {}, connection, writer);
  }

  /**
   * Connects to a Redis Cluster. Commands are routed by the slot of their key (every script call
   * names one key); the client's topology refresh options decide how fast a failover is seen.
   */
  static SessionConnection connect(RedisClusterClient client, boolean durable, Runnable onReset) {
    warnUnlessFailFast(client, client.getOptions());
    List<StatefulRedisClusterConnection<byte[], byte[]>> opened =
        open(() -> client.connect(ByteArrayCodec.INSTANCE), durable);
    StatefulRedisClusterConnection<byte[], byte[]> connection = opened.get(0);
    StatefulRedisClusterConnection<byte[], byte[]> writer = durable ? opened.get(1) : null;
    Disposable resets = subscribe(client, client::getPartitions, onReset);
    return new Lettuce(connection.sync(), writer == null ? null : key -> {
      int slot = SlotHash.getSlot(key);
      RedisClusterNode primary = writer.getPartitions().getMasterBySlot(slot);
      if (primary == null) {
        throw new RedisException("no primary is known for slot " + slot);
      }
      // The node connection the cluster connection itself routes the slot's writes over.
      return writer.getConnection(primary.getUri().getHost(), primary.getUri().getPort()).sync();
    }, client::refreshPartitions, resets, connection, writer);
  }

  /**
   * Opens the command connection and, when {@code durable}, the writer connection; closes what was
   * opened when one of them fails.
   */
  private static <C extends StatefulConnection<?, ?>> List<C> open(Supplier<C> connect,
      boolean durable) {
    List<C> opened = new ArrayList<>(2);
    try {
      opened.add(connect.get());
      if (durable) {
        opened.add(connect.get());
      }
      return opened;
    } catch (RedisException e) {
      opened.forEach(StatefulConnection::close);
      throw cannotConnect(e);
    }
  }

  /** The connections of one repository, whatever the topology. */
  final class Lettuce implements SessionConnection {
    private final RedisClusterCommands<byte[], byte[]> commands;
    private final @Nullable Function<byte[], RedisClusterCommands<byte[], byte[]>> primaries;
    private final Runnable refresh;
    private final Disposable resets;
    private final List<StatefulConnection<byte[], byte[]>> connections = new ArrayList<>();

    private Lettuce(RedisClusterCommands<byte[], byte[]> commands,
        @Nullable Function<byte[], RedisClusterCommands<byte[], byte[]>> primaries,
        Runnable refresh, Disposable resets, StatefulConnection<byte[], byte[]> connection,
        @Nullable StatefulConnection<byte[], byte[]> writer) {
      this.commands = commands;
      this.primaries = primaries;
      this.refresh = refresh;
      this.resets = resets;
      connections.add(connection);
      if (writer != null) {
        connections.add(writer);
      }
    }

    @Override
    public RedisClusterCommands<byte[], byte[]> commands() {
      return commands;
    }

    @Override
    public RedisClusterCommands<byte[], byte[]> primaryOf(byte[] key) {
      if (primaries == null) {
        throw new IllegalStateException("not connected for durable writes");
      }
      return primaries.apply(key);
    }

    @Override
    public void refreshTopology() {
      refresh.run();
    }

    @Override
    public void close() {
      resets.dispose();
      connections.forEach(StatefulConnection::close);
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
