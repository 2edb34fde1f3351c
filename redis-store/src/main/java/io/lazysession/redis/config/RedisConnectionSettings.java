package io.lazysession.redis.config;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The standard {@code spring.data.redis.*} connection properties, bound without depending on Spring
 * Data Redis (url, host, port, username, password, database, ssl.enabled, timeout, connect-timeout,
 * client-name, sentinel.master, sentinel.nodes, sentinel.username, sentinel.password, cluster.nodes). Immutable. As in
 * Spring Boot's {@code DataRedisProperties}, a bare number in {@code timeout} or
 * {@code connect-timeout} is in milliseconds.
 *
 * <p>Every client built here fails fast when Redis is down: commands are refused while disconnected
 * instead of queueing ({@code REJECT_COMMANDS}, with a bounded queue for commands in flight during a
 * reconnect), every command times out after {@code spring.data.redis.timeout}, and the connection
 * reconnects by itself, at most {@link CappedReconnects#MAX_RECONNECT_DELAY} apart. A Cluster client also refreshes its topology on MOVED/ASK answers, lost
 * connections and uncovered slots, and every {@link #CLUSTER_REFRESH_PERIOD}, so that a promoted
 * replica takes over its slots within seconds.
 */
record RedisConnectionSettings(
    @Nullable String url,
    String host,
    int port,
    @Nullable String username,
    @Nullable String password,
    int database,
    boolean ssl,
    Duration timeout,
    @Nullable Duration connectTimeout,
    @Nullable String clientName,
    @Nullable String sentinelMaster,
    List<String> sentinelNodes,
    @Nullable String sentinelUsername,
    @Nullable String sentinelPassword,
    List<String> clusterNodes) {

  static final String PREFIX = "spring.data.redis";
  /** Command timeout when {@code spring.data.redis.timeout} is not set: fail fast, not after 60s. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
  /** Commands queued while disconnected before new ones are refused. */
  static final int REQUEST_QUEUE_SIZE = 10_000;
  /** How often a Cluster client re-reads the topology even when nothing triggered it. */
  static final Duration CLUSTER_REFRESH_PERIOD = Duration.ofSeconds(10);
  /** The shortest interval between two topology refreshes triggered by failures. */
  static final Duration CLUSTER_ADAPTIVE_REFRESH_RATE_LIMIT = Duration.ofSeconds(1);

  static RedisConnectionSettings bind(Environment environment) {
    Binder binder = Binder.get(environment);
    return new RedisConnectionSettings(
        blankToNull(binder.bind(PREFIX + ".url", String.class).orElse(null)),
        binder.bind(PREFIX + ".host", String.class).orElse("localhost"),
        binder.bind(PREFIX + ".port", Integer.class).orElse(6379),
        binder.bind(PREFIX + ".username", String.class).orElse(null),
        binder.bind(PREFIX + ".password", String.class).orElse(null),
        database(binder.bind(PREFIX + ".database", Integer.class).orElse(0)),
        binder.bind(PREFIX + ".ssl.enabled", Boolean.class).orElse(false),
        commandTimeout(binder.bind(PREFIX + ".timeout", DurationProperties.MILLIS)
            .orElse(DEFAULT_TIMEOUT)),
        binder.bind(PREFIX + ".connect-timeout", DurationProperties.MILLIS).orElse(null),
        binder.bind(PREFIX + ".client-name", String.class).orElse(null),
        binder.bind(PREFIX + ".sentinel.master", String.class).orElse(null),
        binder.bind(PREFIX + ".sentinel.nodes", Bindable.listOf(String.class)).orElse(List.of()),
        binder.bind(PREFIX + ".sentinel.username", String.class).orElse(null),
        binder.bind(PREFIX + ".sentinel.password", String.class).orElse(null),
        binder.bind(PREFIX + ".cluster.nodes", Bindable.listOf(String.class)).orElse(List.of()));
  }

  /**
   * {@code spring.data.redis.timeout} as given; refused when it is not longer than 0, which Lettuce
   * reads as no timeout at all: a request would then wait for as long as Redis does not answer.
   */
  static Duration commandTimeout(Duration timeout) {
    if (timeout.isZero() || timeout.isNegative()) {
      throw LazySessionConfigurationException.invalidValue(PREFIX + ".timeout",
          PropertyChecks.shown(timeout), "must be longer than 0 (0 would be no timeout: a request "
              + "would wait for as long as Redis does not answer)",
          "Set " + PREFIX + ".timeout to a duration such as 2s (the default here), or remove it.");
    }
    return timeout;
  }

  /** {@code spring.data.redis.database} as given; refused when negative, naming the property. */
  static int database(int database) {
    if (database < 0) {
      throw LazySessionConfigurationException.invalidValue(PREFIX + ".database", database,
          "must be 0 or more (a Redis database index)",
          "Set " + PREFIX + ".database to 0 (the default) or the index of the database to use.");
    }
    return database;
  }

  /** True when {@code spring.data.redis.cluster.nodes} is set: connect to a Redis Cluster. */
  boolean isCluster() {
    return !clusterNodes.isEmpty();
  }

  /** The seed nodes of the Cluster; fails naming the property when an entry is not host:port. */
  List<RedisURI> toClusterUris() {
    List<RedisURI> uris = new ArrayList<>();
    for (String node : clusterNodes) {
      RedisURI.Builder builder = hostAndPort(node, PREFIX + ".cluster.nodes");
      applyCommon(builder, password != null);
      uris.add(builder.build());
    }
    return uris;
  }

  private static RedisURI.Builder hostAndPort(String node, String property) {
    int colon = node.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalStateException(property + " entries must be host:port, was '" + node + "'");
    }
    String host = node.substring(0, colon).trim();
    try {
      return RedisURI.Builder.redis(host, Integer.parseInt(node.substring(colon + 1).trim()));
    } catch (NumberFormatException e) {
      throw new IllegalStateException(property + " entries must be host:port, was '" + node
          + "'", e);
    }
  }

  /** The URI to connect to; fails naming the property when the settings are not usable. */
  RedisURI toUri() {
    if (isCluster()) {
      throw new IllegalStateException("spring.data.redis.cluster.nodes is set: use the Cluster "
          + "client (toClusterUris)");
    }
    RedisURI.Builder builder;
    boolean credentialsGiven = false;
    if (sentinelMaster != null) {
      if (sentinelNodes.isEmpty()) {
        throw new IllegalStateException("spring.data.redis.sentinel.master is set but "
            + "spring.data.redis.sentinel.nodes is empty; list the sentinels as host:port");
      }
      builder = RedisURI.builder().withSentinelMasterId(sentinelMaster);
      for (String node : sentinelNodes) {
        RedisURI.Builder sentinel = hostAndPort(node, PREFIX + ".sentinel.nodes");
        if (sentinelPassword != null && sentinelUsername != null) {
          sentinel.withAuthentication(sentinelUsername, sentinelPassword);
        } else if (sentinelPassword != null) {
          sentinel.withPassword(sentinelPassword.toCharArray());
        }
        builder.withSentinel(sentinel.build());
      }
      builder.withDatabase(database);
    } else if (url != null) {
      RedisURI parsed;
      try {
        parsed = RedisURI.create(url);
      } catch (RuntimeException e) {
        throw new IllegalStateException("spring.data.redis.url is not a valid Redis URL ('"
            + url + "'): " + e.getMessage(), e);
      }
      credentialsGiven = url.contains("@");
      builder = RedisURI.builder(parsed);
      if (parsed.getDatabase() == 0 && database != 0) {
        builder.withDatabase(database);
      }
    } else {
      builder = RedisURI.Builder.redis(host, port).withDatabase(database);
    }
    applyCommon(builder, password != null && !credentialsGiven);
    return builder.build();
  }

  /** Credentials (when {@code withPassword}), SSL, timeout and client name, for every node. */
  private void applyCommon(RedisURI.Builder builder, boolean withPassword) {
    if (withPassword) {
      if (username != null) {
        builder.withAuthentication(username, password);
      } else {
        // As a CharSequence: the String overload is gone from newer Lettuce versions, and code
        // compiled against an older one would not link there.
        builder.withPassword((CharSequence) password);
      }
    }
    if (ssl) {
      builder.withSsl(true);
    }
    builder.withTimeout(timeout);
    if (clientName != null) {
      builder.withClientName(clientName);
    }
  }

  /**
   * A client for these settings (a {@link RedisClusterClient} when {@code cluster.nodes} is set, else
   * a {@link RedisClient}) that fails fast when Redis is down: commands time out after
   * {@link #timeout}, and are refused while disconnected instead of piling up.
   */
  AbstractRedisClient createClient() {
    if (isCluster()) {
      ClusterClientOptions.Builder options = ClusterClientOptions.builder();
      failFast(options);
      refreshTopology(options);
      RedisClusterClient client = CappedReconnects.clusterClient(null, toClusterUris());
      client.setOptions(options.build());
      return client;
    }
    ClientOptions.Builder options = ClientOptions.builder();
    failFast(options);
    RedisClient client = CappedReconnects.redisClient(null, toUri());
    client.setOptions(options.build());
    return client;
  }

  /**
   * A {@link RedisClient} for a Redis URL with the same fail-fast options as the clients built from
   * properties. The command timeout is the URL's {@code timeout} parameter, else
   * {@link #DEFAULT_TIMEOUT}.
   *
   * @throws IllegalStateException naming {@code what} when the URL is not valid
   */
  static RedisClient createClient(String url, String what) {
    RedisURI uri;
    try {
      uri = RedisURI.create(url);
    } catch (RuntimeException e) {
      throw new IllegalStateException(what + " is not a valid Redis URL ('" + url + "'): "
          + e.getMessage(), e);
    }
    if (!url.contains("timeout=")) {
      uri.setTimeout(DEFAULT_TIMEOUT);
    }
    ClientOptions.Builder options = ClientOptions.builder();
    failFast(options, uri.getTimeout(), null);
    RedisClient client = CappedReconnects.redisClient(null, uri);
    client.setOptions(options.build());
    return client;
  }

  /** Adaptive and periodic topology refresh, so that a promoted replica is seen within seconds. */
  static void refreshTopology(ClusterClientOptions.Builder options) {
    options.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
        .enableAllAdaptiveRefreshTriggers()
        .adaptiveRefreshTriggersTimeout(CLUSTER_ADAPTIVE_REFRESH_RATE_LIMIT)
        .enablePeriodicRefresh(CLUSTER_REFRESH_PERIOD)
        .build());
  }

  private void failFast(ClientOptions.Builder options) {
    failFast(options, timeout, connectTimeout);
  }

  /**
   * Fail fast: commands refused while disconnected (with a bounded queue for those in flight during
   * a reconnect), every command timing out after {@code timeout}, automatic reconnects.
   */
  static void failFast(ClientOptions.Builder options, Duration timeout,
      @Nullable Duration connectTimeout) {
    SocketOptions.Builder socket = SocketOptions.builder();
    if (connectTimeout != null) {
      socket.connectTimeout(connectTimeout);
    }
    options.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .requestQueueSize(REQUEST_QUEUE_SIZE)
        .timeoutOptions(TimeoutOptions.enabled(timeout))
        .socketOptions(socket.build())
        .autoReconnect(true);
  }

  /** Where a Redis URL points (without credentials) and its command timeout. */
  static RedisTarget urlTarget(String url, String what) {
    RedisURI uri = RedisURI.create(url);
    Duration timeout = url.contains("timeout=") ? uri.getTimeout() : DEFAULT_TIMEOUT;
    return new RedisTarget((uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":"
        + uri.getPort() + " (" + what + ")", timeout, what + " timeout parameter");
  }

  private static @Nullable String blankToNull(@Nullable String value) {
    return value == null || value.isBlank() ? null : value;
  }

  /** Where these settings point and the command timeout, for checks and error messages. */
  RedisTarget target() {
    return new RedisTarget(describe(), timeout, PREFIX + ".timeout");
  }

  /** Where the settings point, without credentials, for error messages. */
  String describe() {
    if (isCluster()) {
      return "Redis Cluster via " + clusterNodes + " (spring.data.redis.cluster.nodes)";
    }
    if (sentinelMaster != null) {
      return "Sentinel master '" + sentinelMaster + "' via " + sentinelNodes
          + " (spring.data.redis.sentinel.*)";
    }
    if (url != null) {
      RedisURI uri = toUri();
      return (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort()
          + " (spring.data.redis.url)";
    }
    return host + ":" + port + " (spring.data.redis.host/port)";
  }
}
