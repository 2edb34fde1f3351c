package io.lazysession.it.soak;

import io.lazysession.testing.RedisNode;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Breaks the Sentinel-managed primary of a {@link RedisServerExtension#sentinel()} in the ways of
 * {@link Fault}, and tells when Redis is steady again (the Sentinels agree on a primary that has an
 * online replica). Every wait is bounded. Not thread-safe: one injector per soak.
 */
final class FaultInjector implements AutoCloseable {
  private static final Duration HOLD = Duration.ofSeconds(3);
  private static final Duration SHORT_HOLD = Duration.ofMillis(700);
  private static final Duration PROMOTION_TIMEOUT = Duration.ofSeconds(30);
  private static final long FAILOVER_RETRY_MILLIS = 3_000;

  private final RedisServerExtension redis;
  private final List<RedisNode> servers;
  private final Consumer<String> log;
  private final RedisClient sentinelClient = RedisClient.create();
  private final List<StatefulRedisSentinelConnection<String, String>> sentinels = new ArrayList<>();

  FaultInjector(RedisServerExtension redis, Consumer<String> log) {
    this.redis = redis;
    this.log = log;
    this.servers = List.of(redis.primary(), redis.replicas().get(0));
    for (RedisNode sentinel : redis.sentinels()) {
      RedisURI uri = sentinel.uri();
      uri.setTimeout(Duration.ofSeconds(2));
      sentinels.add(sentinelClient.connectSentinel(uri));
    }
  }

  /** The server the first Sentinel names as primary, or null when it names none of ours. */
  @Nullable RedisNode primary() {
    return named(sentinels.get(0));
  }

  private @Nullable RedisNode named(StatefulRedisSentinelConnection<String, String> sentinel) {
    InetSocketAddress address = (InetSocketAddress) sentinel.sync()
        .getMasterAddrByName(RedisServerExtension.SENTINEL_MASTER);
    for (RedisNode server : servers) {
      if (address != null && server.port() == address.getPort()) {
        return server;
      }
    }
    return null;
  }

  /**
   * Injects the fault on the current primary; returns {@link System#nanoTime()} at which the fault
   * ended (for an instant fault, the moment it was done; for a failover, the moment the Sentinels
   * named the new primary).
   */
  long inject(Fault fault) throws InterruptedException {
    RedisNode primary = requirePrimary();
    log.accept("fault " + fault + " on " + primary);
    switch (fault) {
      case CLIENT_KILL -> redis.sync(primary, r -> r.clientKill(KillArgs.Builder.typeNormal()));
      case CLIENT_PAUSE -> {
        redis.sync(primary, r -> r.clientPause(SHORT_HOLD.toMillis()));
        return System.nanoTime() + SHORT_HOLD.toNanos();
      }
      case DEBUG_SLEEP -> redis.sync(primary, r -> r.dispatch(CommandType.DEBUG,
          new StatusOutput<>(StringCodec.UTF8), new CommandArgs<>(StringCodec.UTF8).add("SLEEP")
              .add(Double.toString(SHORT_HOLD.toMillis() / 1000.0))));
      case OUT_OF_MEMORY -> outOfMemory(primary);
      case PRIMARY_PAUSE -> {
        primary.pause();
        try {
          Thread.sleep(HOLD.toMillis());
        } finally {
          primary.unpause();
        }
      }
      case FAILOVER -> failover(primary);
      case PRIMARY_KILL -> {
        primary.kill();
        long end = System.nanoTime();
        awaitPrimaryOtherThan(primary);
        primary.startAgain();
        return end;
      }
    }
    return System.nanoTime();
  }

  /**
   * Asks the first Sentinel for a failover, again every {@value #FAILOVER_RETRY_MILLIS} ms while
   * none happened (a Sentinel refuses or aborts one while it does not yet trust the replica), until
   * the Sentinels name another primary or {@link #PROMOTION_TIMEOUT} passed.
   */
  private void failover(RedisNode primary) throws InterruptedException {
    long deadline = System.nanoTime() + PROMOTION_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        sentinels.get(0).sync().failover(RedisServerExtension.SENTINEL_MASTER);
      } catch (RuntimeException e) {
        log.accept("SENTINEL FAILOVER refused: " + e.getMessage());
      }
      long retry = System.nanoTime() + FAILOVER_RETRY_MILLIS * 1_000_000L;
      while (System.nanoTime() < Math.min(retry, deadline)) {
        if (promotedOtherThan(primary)) {
          return;
        }
        Thread.sleep(100);
      }
    }
    log.accept("no promotion within " + PROMOTION_TIMEOUT);
  }

  private boolean promotedOtherThan(RedisNode old) {
    try {
      RedisNode now = primary();
      if (now != null && now != old) {
        log.accept("promoted " + now);
        return true;
      }
    } catch (RuntimeException e) {
      // a Sentinel busy with the failover: ask again
    }
    return false;
  }

  private void outOfMemory(RedisNode primary) throws InterruptedException {
    String info = redis.sync(primary, r -> r.info("memory"));
    long used = info.lines().filter(line -> line.startsWith("used_memory:"))
        .mapToLong(line -> Long.parseLong(line.substring("used_memory:".length()).trim()))
        .findFirst().orElseThrow();
    redis.sync(primary, r -> r.configSet("maxmemory", Long.toString(used / 2)));
    try {
      Thread.sleep(HOLD.toMillis());
    } finally {
      redis.sync(primary, r -> r.configSet("maxmemory", "0"));
    }
  }

  private RedisNode requirePrimary() {
    RedisNode primary = primary();
    if (primary == null) {
      throw new IllegalStateException("the Sentinels name no primary of this soak");
    }
    return primary;
  }

  private void awaitPrimaryOtherThan(RedisNode old) throws InterruptedException {
    long deadline = System.nanoTime() + PROMOTION_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (promotedOtherThan(old)) {
        return;
      }
      Thread.sleep(100);
    }
    log.accept("no promotion within " + PROMOTION_TIMEOUT);
  }

  /**
   * Waits until every Sentinel names the same primary, it is a primary with an online replica, and
   * the other server replicates from it with its link up; false when that did not happen in time.
   */
  boolean awaitSteady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        if (steady()) {
          return true;
        }
      } catch (RuntimeException e) {
        // a server or Sentinel still recovering: ask again
      }
      Thread.sleep(200);
    }
    return false;
  }

  private boolean steady() {
    RedisNode primary = requirePrimary();
    for (StatefulRedisSentinelConnection<String, String> sentinel : sentinels) {
      if (named(sentinel) != primary) {
        return false;
      }
      List<java.util.Map<String, String>> replicas =
          sentinel.sync().replicas(RedisServerExtension.SENTINEL_MASTER);
      if (replicas.stream().noneMatch(replica -> "slave".equals(replica.get("flags"))
          && "ok".equals(replica.get("master-link-status")))) {
        return false; // this Sentinel does not trust a replica yet: it could not fail over
      }
    }
    String ofPrimary = redis.sync(primary, r -> r.info("replication"));
    if (!ofPrimary.contains("role:master") || !ofPrimary.contains("state=online")) {
      return false;
    }
    for (RedisNode server : servers) {
      if (server != primary) {
        String ofReplica = redis.sync(server, r -> r.info("replication"));
        if (!ofReplica.contains("master_port:" + primary.port())
            || !ofReplica.contains("master_link_status:up")) {
          return false;
        }
      }
    }
    return true;
  }

  /** {@code redis_version} of the primary. */
  String redisVersion() {
    String info = redis.sync(requirePrimary(), r -> r.info("server"));
    return info.lines().filter(line -> line.startsWith("redis_version:"))
        .map(line -> line.substring("redis_version:".length()).trim()).findFirst().orElse("?");
  }

  @Override
  public void close() {
    sentinels.forEach(StatefulRedisSentinelConnection::close);
    sentinelClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
