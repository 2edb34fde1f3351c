package io.lazysession.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * One Lettuce connection (binary keys and values) to the Redis that holds the sessions, shared by all
 * threads (Lettuce connections are thread-safe and multiplex commands).
 *
 * <p>Design note: everything above this class speaks {@link RedisClusterCommands}, which a standalone,
 * Sentinel-managed and Cluster connection all provide, and every script call names exactly one key,
 * so supporting Cluster means adding a factory here, not changing the store.
 */
interface SessionConnection extends AutoCloseable {

  RedisClusterCommands<byte[], byte[]> commands();

  /** Closes the connection; the client stays open (it belongs to whoever created it). */
  @Override
  void close();

  /**
   * Connects with the client's own URI (standalone or Sentinel).
   *
   * @throws IllegalStateException naming the cause when Redis cannot be reached
   */
  static SessionConnection connect(RedisClient client) {
    StatefulRedisConnection<byte[], byte[]> connection;
    try {
      connection = client.connect(ByteArrayCodec.INSTANCE);
    } catch (RedisConnectionException e) {
      throw new IllegalStateException("lazysession cannot connect to Redis: " + e.getMessage()
          + (e.getCause() != null ? " (" + e.getCause().getMessage() + ")" : "")
          + ". Check that Redis is running and reachable, and the connection settings "
          + "(spring.data.redis.url or host/port/password with Spring Boot).", e);
    }
    RedisClusterCommands<byte[], byte[]> commands = connection.sync();
    return new SessionConnection() {
      @Override
      public RedisClusterCommands<byte[], byte[]> commands() {
        return commands;
      }

      @Override
      public void close() {
        connection.close();
      }
    };
  }
}
