package io.lazysession.redis.config;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;

/**
 * The session store's own Lettuce client, built from Spring Boot's {@link DataRedisConnectionDetails}
 * (so {@code spring.data.redis.*}, {@code @ServiceConnection} and Docker Compose all work), on the
 * application's {@link ClientResources} (one event loop and one set of metrics for every Lettuce
 * client of the application), with the details' SSL bundle and credentials (sentinel ones too), and
 * the application's {@link LettuceClientOptionsBuilderCustomizer}s and
 * {@link LettuceClientConfigurationBuilderCustomizer}s applied as Boot applies them to its own client,
 * and a reconnect backoff capped by {@link CappedReconnects}.
 *
 * <p>Used only when spring-boot-data-redis is on the class path; without it,
 * {@link RedisConnectionSettings} reads {@code spring.data.redis.*} itself. Like that one, the client
 * fails fast when Redis is down unless a customizer says otherwise. Stateless.
 */
final class ConnectionDetailsClients {
  private ConnectionDetailsClients() {}

  /** What the repository needs to know about the client to check settings and explain errors. */
  static RedisTarget target(DataRedisConnectionDetails details,
      @Nullable DataRedisProperties properties) {
    Duration timeout = commandTimeout(properties);
    String where;
    if (details.getCluster() != null) {
      where = "Redis Cluster via " + nodes(details.getCluster().getNodes());
    } else if (details.getSentinel() != null) {
      where = "Sentinel master '" + details.getSentinel().getMaster() + "' via "
          + nodes(details.getSentinel().getNodes());
    } else if (details.getStandalone() != null) {
      where = details.getStandalone().getHost() + ":" + details.getStandalone().getPort();
    } else {
      where = "(no address in " + details.getClass().getSimpleName() + ")";
    }
    boolean fromProperties = details.getClass().getSimpleName()
        .equals("PropertiesDataRedisConnectionDetails");
    String source;
    if (!fromProperties) {
      source = details.getClass().getSimpleName();
    } else if (details.getCluster() != null) {
      source = "spring.data.redis.cluster.nodes";
    } else if (details.getSentinel() != null) {
      source = "spring.data.redis.sentinel.*";
    } else if (properties != null && properties.getUrl() != null) {
      source = "spring.data.redis.url";
    } else {
      source = "spring.data.redis.host/port";
    }
    return new RedisTarget(where + " (" + source + ")", timeout, "spring.data.redis.timeout");
  }

  static AbstractRedisClient create(DataRedisConnectionDetails details,
      @Nullable DataRedisProperties properties, @Nullable ClientResources resources,
      List<LettuceClientOptionsBuilderCustomizer> optionsCustomizers,
      List<LettuceClientConfigurationBuilderCustomizer> configurationCustomizers) {
    if (details.getMasterReplica() != null) {
      throw new LazySessionConfigurationException("spring.data.redis.masterreplica.nodes",
          "lazysession does not support a static master/replica setup: its writes and reads must "
              + "go to the primary, and it would not follow a failover",
          "Point lazysession at the primary (spring.data.redis.host/port or url), or use Sentinel "
              + "(spring.data.redis.sentinel.*) or Cluster, or define a RedisClient bean named "
              + LazySessionAutoConfiguration.CLIENT_BEAN_NAME + ".");
    }
    boolean cluster = details.getCluster() != null;
    SslBundle sslBundle = details.getSslBundle();
    LettuceClientConfiguration.LettuceClientConfigurationBuilder configuration =
        LettuceClientConfiguration.builder();
    if (sslBundle != null || urlUsesSsl(properties)) {
      configuration.useSsl();
    }
    configuration.commandTimeout(commandTimeout(properties));
    if (properties != null && properties.getClientName() != null
        && !properties.getClientName().isBlank()) {
      configuration.clientName(properties.getClientName());
    }
    configuration.clientOptions(clientOptions(cluster, properties, sslBundle, optionsCustomizers));
    if (resources != null) {
      configuration.clientResources(resources);
    }
    configurationCustomizers.forEach(customizer -> customizer.customize(configuration));
    LettuceClientConfiguration built = configuration.build();

    ClientResources finalResources = built.getClientResources().orElse(resources);
    ClientOptions options = built.getClientOptions().orElseGet(ClientOptions::create);
    if (cluster) {
      List<RedisURI> uris = new ArrayList<>();
      for (DataRedisConnectionDetails.Node node : details.getCluster().getNodes()) {
        RedisURI.Builder uri = RedisURI.Builder.redis(node.host(), node.port());
        applyCommon(uri, details.getUsername(), details.getPassword(), built);
        uris.add(uri.build());
      }
      RedisClusterClient client = CappedReconnects.clusterClient(finalResources, uris);
      client.setOptions(options instanceof ClusterClientOptions clusterOptions ? clusterOptions
          : ClusterClientOptions.builder(options).build());
      return client;
    }
    RedisURI.Builder uri;
    DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
    if (sentinel != null) {
      uri = RedisURI.builder().withSentinelMasterId(sentinel.getMaster())
          .withDatabase(RedisConnectionSettings.database(sentinel.getDatabase()));
      for (DataRedisConnectionDetails.Node node : sentinel.getNodes()) {
        RedisURI.Builder sentinelUri = RedisURI.Builder.redis(node.host(), node.port());
        credentials(sentinelUri, sentinel.getUsername(), sentinel.getPassword());
        uri.withSentinel(sentinelUri.build());
      }
    } else {
      DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
      if (standalone == null) {
        throw new LazySessionConfigurationException("spring.data.redis.*",
            details.getClass().getName() + " describes no Redis to connect to",
            "Set spring.data.redis.url or host/port, or fix the connection details bean.");
      }
      uri = RedisURI.Builder.redis(standalone.getHost(), standalone.getPort())
          .withDatabase(RedisConnectionSettings.database(standalone.getDatabase()));
    }
    applyCommon(uri, details.getUsername(), details.getPassword(), built);
    RedisClient client = CappedReconnects.redisClient(finalResources, uri.build());
    client.setOptions(options);
    return client;
  }

  private static ClientOptions clientOptions(boolean cluster,
      @Nullable DataRedisProperties properties, @Nullable SslBundle sslBundle,
      List<LettuceClientOptionsBuilderCustomizer> customizers) {
    ClientOptions.Builder options;
    if (cluster) {
      ClusterClientOptions.Builder clusterOptions = ClusterClientOptions.builder();
      RedisConnectionSettings.refreshTopology(clusterOptions);
      options = clusterOptions;
    } else {
      options = ClientOptions.builder();
    }
    RedisConnectionSettings.failFast(options, commandTimeout(properties),
        properties == null ? null : properties.getConnectTimeout());
    if (sslBundle != null) {
      SslOptions.Builder ssl = SslOptions.builder()
          .keyManager(sslBundle.getManagers().getKeyManagerFactory())
          .trustManager(sslBundle.getManagers().getTrustManagerFactory());
      if (sslBundle.getOptions().getCiphers() != null) {
        ssl.cipherSuites(sslBundle.getOptions().getCiphers());
      }
      if (sslBundle.getOptions().getEnabledProtocols() != null) {
        ssl.protocols(sslBundle.getOptions().getEnabledProtocols());
      }
      options.sslOptions(ssl.build());
    }
    customizers.forEach(customizer -> customizer.customize(options));
    return options.build();
  }

  private static void applyCommon(RedisURI.Builder uri, @Nullable String username,
      @Nullable String password, LettuceClientConfiguration configuration) {
    credentials(uri, username, password);
    uri.withSsl(configuration.isUseSsl())
        .withVerifyPeer(configuration.getVerifyMode())
        .withStartTls(configuration.isStartTls())
        .withTimeout(configuration.getCommandTimeout());
    configuration.getClientName().ifPresent(uri::withClientName);
  }

  private static void credentials(RedisURI.Builder uri, @Nullable String username,
      @Nullable String password) {
    if (password == null) {
      return;
    }
    if (username != null) {
      uri.withAuthentication(username, password);
    } else {
      uri.withPassword(password.toCharArray());
    }
  }

  private static Duration commandTimeout(@Nullable DataRedisProperties properties) {
    return properties == null || properties.getTimeout() == null
        ? RedisConnectionSettings.DEFAULT_TIMEOUT
        : RedisConnectionSettings.commandTimeout(properties.getTimeout());
  }

  private static boolean urlUsesSsl(@Nullable DataRedisProperties properties) {
    return properties != null && properties.getUrl() != null
        && properties.getUrl().startsWith("rediss://");
  }

  private static String nodes(List<DataRedisConnectionDetails.Node> nodes) {
    return nodes.stream().map(node -> node.host() + ":" + node.port()).toList().toString();
  }
}
