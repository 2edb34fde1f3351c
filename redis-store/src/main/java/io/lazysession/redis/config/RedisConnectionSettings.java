package io.lazysession.redis.config;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The standard {@code spring.data.redis.*} connection properties, bound without depending on Spring
 * Data Redis (url, host, port, username, password, database, ssl.enabled, timeout, connect-timeout,
 * client-name, sentinel.master, sentinel.nodes, sentinel.username, sentinel.password). Immutable.
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
    @Nullable String sentinelPassword,
    List<String> clusterNodes) {

  static final String PREFIX = "spring.data.redis";
  /** Command timeout when {@code spring.data.redis.timeout} is not set: fail fast, not after 60s. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
  /** Commands queued while disconnected before new ones are refused. */
  static final int REQUEST_QUEUE_SIZE = 10_000;

  static RedisConnectionSettings bind(Environment environment) {
    Binder binder = Binder.get(environment);
    return new RedisConnectionSettings(
        blankToNull(binder.bind(PREFIX + ".url", String.class).orElse(null)),
        binder.bind(PREFIX + ".host", String.class).orElse("localhost"),
        binder.bind(PREFIX + ".port", Integer.class).orElse(6379),
        binder.bind(PREFIX + ".username", String.class).orElse(null),
        binder.bind(PREFIX + ".password", String.class).orElse(null),
        binder.bind(PREFIX + ".database", Integer.class).orElse(0),
        binder.bind(PREFIX + ".ssl.enabled", Boolean.class).orElse(false),
        binder.bind(PREFIX + ".timeout", Duration.class).orElse(DEFAULT_TIMEOUT),
        binder.bind(PREFIX + ".connect-timeout", Duration.class).orElse(null),
        binder.bind(PREFIX + ".client-name", String.class).orElse(null),
        binder.bind(PREFIX + ".sentinel.master", String.class).orElse(null),
        binder.bind(PREFIX + ".sentinel.nodes", Bindable.listOf(String.class)).orElse(List.of()),
        binder.bind(PREFIX + ".sentinel.password", String.class).orElse(null),
        binder.bind(PREFIX + ".cluster.nodes", Bindable.listOf(String.class)).orElse(List.of()));
  }

  /** The URI to connect to; fails naming the property when the settings are not usable. */
  RedisURI toUri() {
    if (!clusterNodes.isEmpty()) {
      throw new IllegalStateException("spring.data.redis.cluster.nodes is set, but this version of "
          + "lazysession connects to standalone and Sentinel-managed Redis only; remove "
          + "spring.data.redis.cluster.nodes or use spring.data.redis.url");
    }
    RedisURI.Builder builder;
    boolean credentialsGiven = false;
    if (sentinelMaster != null) {
      if (sentinelNodes.isEmpty()) {
        throw new IllegalStateException("spring.data.redis.sentinel.master is set but "
            + "spring.data.redis.sentinel.nodes is empty; list the sentinels as host:port");
      }
      builder = null;
      for (String node : sentinelNodes) {
        int colon = node.lastIndexOf(':');
        if (colon < 0) {
          throw new IllegalStateException("spring.data.redis.sentinel.nodes entries must be "
              + "host:port, was '" + node + "'");
        }
        String host = node.substring(0, colon).trim();
        int port = Integer.parseInt(node.substring(colon + 1).trim());
        if (builder == null) {
          builder = sentinelPassword != null
              ? RedisURI.Builder.sentinel(host, port, sentinelMaster, sentinelPassword)
              : RedisURI.Builder.sentinel(host, port, sentinelMaster);
        } else if (sentinelPassword != null) {
          builder.withSentinel(host, port, sentinelPassword);
        } else {
          builder.withSentinel(host, port);
        }
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
    if (password != null && !credentialsGiven) {
      if (username != null) {
        builder.withAuthentication(username, password);
      } else {
        builder.withPassword(password);
      }
    }
    if (ssl) {
      builder.withSsl(true);
    }
    builder.withTimeout(timeout);
    if (clientName != null) {
      builder.withClientName(clientName);
    }
    return builder.build();
  }

  /**
   * A client that fails fast when Redis is down: commands time out after {@link #timeout}, and are
   * refused while disconnected instead of piling up.
   */
  RedisClient createClient() {
    RedisClient client = RedisClient.create(toUri());
    SocketOptions.Builder socket = SocketOptions.builder();
    if (connectTimeout != null) {
      socket.connectTimeout(connectTimeout);
    }
    client.setOptions(ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .requestQueueSize(REQUEST_QUEUE_SIZE)
        .timeoutOptions(TimeoutOptions.enabled(timeout))
        .socketOptions(socket.build())
        .build());
    return client;
  }

  private static @Nullable String blankToNull(@Nullable String value) {
    return value == null || value.isBlank() ? null : value;
  }

  /** Where the settings point, without credentials, for error messages. */
  String describe() {
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
