package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;

/** Building the store's client from connection details (no connection is opened here). */
class ConnectionDetailsClientsTest {
  static DataRedisConnectionDetails standalone(String host, int port) {
    return new DataRedisConnectionDetails() {
      @Override
      public Standalone getStandalone() {
        return Standalone.of(host, port);
      }
    };
  }

  @Test
  void create_applicationResources_areSharedWithACappedReconnectDelay() {
    ClientResources resources = DefaultClientResources.create();
    AbstractRedisClient client = ConnectionDetailsClients.create(standalone("cache", 6380), null,
        resources, List.of(), List.of());
    try {
      assertThat(client.getResources().eventExecutorGroup())
          .isSameAs(resources.eventExecutorGroup());
      assertThat(client.getResources().eventBus()).isSameAs(resources.eventBus());
      assertThat(client.getResources().reconnectDelay().createDelay(30))
          .isEqualTo(CappedReconnects.MAX_RECONNECT_DELAY);
    } finally {
      client.shutdown();
      resources.shutdown();
    }
  }

  @Test
  void create_defaults_failFastAndOptionsCustomizersApply() {
    DataRedisProperties properties = new DataRedisProperties();
    properties.setTimeout(Duration.ofMillis(700));
    AbstractRedisClient client = ConnectionDetailsClients.create(standalone("cache", 6380),
        properties, null, List.of(options -> options.requestQueueSize(42)),
        List.of());
    try {
      ClientOptions options = ((RedisClient) client).getOptions();
      assertThat(options.getDisconnectedBehavior())
          .isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
      assertThat(options.getRequestQueueSize()).as("the customizer runs last").isEqualTo(42);
      TimeoutOptions.TimeoutSource timeout = options.getTimeoutOptions().getSource();
      assertThat(timeout.getTimeUnit().toMillis(timeout.getTimeout(null))).isEqualTo(700);
    } finally {
      client.shutdown();
    }
  }

  @Test
  void create_cluster_buildsAClusterClientThatRefreshesItsTopology() {
    DataRedisConnectionDetails details = new DataRedisConnectionDetails() {
      @Override
      public Cluster getCluster() {
        return () -> List.of(new Node("a", 7000), new Node("b", 7001));
      }
    };
    AbstractRedisClient client = ConnectionDetailsClients.create(details, null, null, List.of(),
        List.of());
    try {
      assertThat(client).isInstanceOf(RedisClusterClient.class);
      ClusterClientOptions options = (ClusterClientOptions) client.getOptions();
      assertThat(options.getTopologyRefreshOptions().isPeriodicRefreshEnabled()).isTrue();
    } finally {
      client.shutdown();
    }
  }

  @Test
  void create_staticMasterReplica_failsNamingThePropertyAndTheAlternatives() {
    DataRedisConnectionDetails details = new DataRedisConnectionDetails() {
      @Override
      public MasterReplica getMasterReplica() {
        return () -> List.of(new Node("a", 6379));
      }
    };

    assertThatThrownBy(() -> ConnectionDetailsClients.create(details, null, null, List.of(),
        List.of()))
        .isInstanceOfSatisfying(LazySessionConfigurationException.class, e -> {
          assertThat(e.setting()).isEqualTo("spring.data.redis.masterreplica.nodes");
          assertThat(e.action()).contains("Sentinel").contains("lazySessionRedisClient");
        });
  }

  @Test
  void target_detailsFromAServiceConnection_nameTheirSource() {
    RedisTarget target = ConnectionDetailsClients.target(standalone("cache", 6380), null);

    assertThat(target.description()).startsWith("cache:6380 (");
    assertThat(target.commandTimeout()).isEqualTo(RedisConnectionSettings.DEFAULT_TIMEOUT);
  }
}
