package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

class RedisConnectionSettingsTest {
  @Test
  void toUri_nothingSet_isLocalhostWithTwoSecondTimeout() {
    RedisURI uri = RedisConnectionSettings.bind(new MockEnvironment()).toUri();

    assertThat(uri.getHost()).isEqualTo("localhost");
    assertThat(uri.getPort()).isEqualTo(6379);
    assertThat(uri.getTimeout()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void bind_bareNumberTimeouts_areMillisecondsAsInSpringBoot() {
    RedisConnectionSettings settings = RedisConnectionSettings.bind(new MockEnvironment()
        .withProperty("spring.data.redis.timeout", "500")
        .withProperty("spring.data.redis.connect-timeout", "250"));

    assertThat(settings.timeout()).isEqualTo(Duration.ofMillis(500));
    assertThat(settings.connectTimeout()).isEqualTo(Duration.ofMillis(250));
  }

  /**
   * Lettuce reads a command timeout of 0 as none: a request against a frozen Redis would wait for
   * as long as it stays frozen, not fail after {@code spring.data.redis.timeout}.
   */
  @Test
  void bind_zeroOrNegativeTimeout_isRefusedNamingTheProperty() {
    for (String timeout : List.of("0", "0s", "-1s")) {
      assertThatThrownBy(() -> RedisConnectionSettings.bind(new MockEnvironment()
          .withProperty("spring.data.redis.timeout", timeout)))
          .as(timeout).isInstanceOf(LazySessionConfigurationException.class)
          .hasMessageContaining("spring.data.redis.timeout")
          .hasMessageContaining("must be longer than 0");
    }
  }

  @Test
  void bind_negativeDatabase_isRefusedNamingTheProperty() {
    assertThatThrownBy(() -> RedisConnectionSettings.bind(new MockEnvironment()
        .withProperty("spring.data.redis.database", "-1")))
        .isInstanceOf(LazySessionConfigurationException.class)
        .hasMessageContaining("spring.data.redis.database").hasMessageContaining("must be 0 or more");
  }

  @Test
  void toUri_url_winsOverHostAndPort() {
    RedisURI uri = RedisConnectionSettings.bind(new MockEnvironment()
        .withProperty("spring.data.redis.url", "rediss://redis.example:6380/2")
        .withProperty("spring.data.redis.host", "ignored")
        .withProperty("spring.data.redis.timeout", "750ms")).toUri();

    assertThat(uri.getHost()).isEqualTo("redis.example");
    assertThat(uri.getPort()).isEqualTo(6380);
    assertThat(uri.getDatabase()).isEqualTo(2);
    assertThat(uri.isSsl()).isTrue();
    assertThat(uri.getTimeout()).isEqualTo(Duration.ofMillis(750));
  }

  @Test
  void toUri_hostPortDatabaseSsl_areApplied() {
    RedisURI uri = RedisConnectionSettings.bind(new MockEnvironment()
        .withProperty("spring.data.redis.host", "cache")
        .withProperty("spring.data.redis.port", "7000")
        .withProperty("spring.data.redis.database", "3")
        .withProperty("spring.data.redis.password", "secret")
        .withProperty("spring.data.redis.ssl.enabled", "true")).toUri();

    assertThat(uri.getHost()).isEqualTo("cache");
    assertThat(uri.getPort()).isEqualTo(7000);
    assertThat(uri.getDatabase()).isEqualTo(3);
    assertThat(uri.isSsl()).isTrue();
    assertThat(uri.getCredentialsProvider()).isNotNull();
  }

  @Test
  void toUri_sentinel_listsEverySentinel() {
    RedisURI uri = RedisConnectionSettings.bind(new MockEnvironment()
        .withProperty("spring.data.redis.sentinel.master", "mymaster")
        .withProperty("spring.data.redis.sentinel.nodes", "s1:26379,s2:26380")).toUri();

    assertThat(uri.getSentinelMasterId()).isEqualTo("mymaster");
    assertThat(uri.getSentinels()).hasSize(2);
  }

  @Test
  void toUri_sentinelCredentials_areGivenToEverySentinel() {
    RedisURI uri = RedisConnectionSettings.bind(new MockEnvironment()
        .withProperty("spring.data.redis.sentinel.master", "mymaster")
        .withProperty("spring.data.redis.sentinel.nodes", "s1:26379,s2:26380")
        .withProperty("spring.data.redis.sentinel.username", "sessions")
        .withProperty("spring.data.redis.sentinel.password", "s3cret")).toUri();

    assertThat(uri.getSentinels()).allSatisfy(sentinel -> {
      io.lettuce.core.RedisCredentials credentials =
          sentinel.getCredentialsProvider().resolveCredentials().block();
      assertThat(credentials.getUsername()).isEqualTo("sessions");
      assertThat(new String(credentials.getPassword())).isEqualTo("s3cret");
    });
    assertThat(uri.getCredentialsProvider().resolveCredentials().block().hasPassword())
        .as("the data nodes' own credentials are separate").isFalse();
  }

  @Test
  void toClusterUris_clusterNodes_oneUriPerNodeWithTimeoutAndPassword() {
    RedisConnectionSettings settings = RedisConnectionSettings.bind(new MockEnvironment()
        .withProperty("spring.data.redis.cluster.nodes", "a:7000, b:7001")
        .withProperty("spring.data.redis.password", "secret")
        .withProperty("spring.data.redis.timeout", "500ms"));

    List<RedisURI> uris = settings.toClusterUris();

    assertThat(settings.isCluster()).isTrue();
    assertThat(uris).extracting(RedisURI::getHost, RedisURI::getPort)
        .containsExactly(tuple("a", 7000), tuple("b", 7001));
    assertThat(uris).allSatisfy(uri -> {
      assertThat(uri.getTimeout()).isEqualTo(Duration.ofMillis(500));
      assertThat(uri.getCredentialsProvider()).isNotNull();
    });
    assertThat(settings.describe()).contains("spring.data.redis.cluster.nodes");
  }

  @Test
  void toClusterUris_nodeWithoutPort_failsNamingTheProperty() {
    assertThatThrownBy(() -> RedisConnectionSettings.bind(new MockEnvironment()
        .withProperty("spring.data.redis.cluster.nodes", "a:7000,b")).toClusterUris())
        .hasMessage("spring.data.redis.cluster.nodes entries must be host:port, was 'b'");
  }

  @Test
  void createClient_clusterNodes_isAFailFastClusterClientWithTopologyRefresh() {
    AbstractRedisClient client = RedisConnectionSettings.bind(new MockEnvironment()
        .withProperty("spring.data.redis.cluster.nodes", "127.0.0.1:7000")).createClient();
    try {
      assertThat(client).isInstanceOf(RedisClusterClient.class);
      ClusterClientOptions options = (ClusterClientOptions) client.getOptions();
      assertThat(options.getDisconnectedBehavior())
          .isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
      assertThat(options.getRequestQueueSize())
          .isEqualTo(RedisConnectionSettings.REQUEST_QUEUE_SIZE);
      assertThat(options.getTimeoutOptions().isTimeoutCommands()).isTrue();
      assertThat(options.isAutoReconnect()).isTrue();
      assertThat(options.getTopologyRefreshOptions().isPeriodicRefreshEnabled()).isTrue();
      assertThat(options.getTopologyRefreshOptions().getAdaptiveRefreshTriggers()).isNotEmpty();
    } finally {
      client.shutdown();
    }
  }

  @Test
  void createClient_standalone_isAFailFastClient() {
    AbstractRedisClient client = RedisConnectionSettings.bind(new MockEnvironment()).createClient();
    try {
      assertThat(client).isInstanceOf(RedisClient.class);
      ClientOptions options = ((RedisClient) client).getOptions();
      assertThat(options.getDisconnectedBehavior())
          .isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
      assertThat(options.getRequestQueueSize())
          .isEqualTo(RedisConnectionSettings.REQUEST_QUEUE_SIZE);
      assertThat(options.getTimeoutOptions().isTimeoutCommands()).isTrue();
    } finally {
      client.shutdown();
    }
  }

  @Test
  void describe_url_hidesCredentials() {
    String where = RedisConnectionSettings.bind(new MockEnvironment()
        .withProperty("spring.data.redis.url", "redis://user:secret@redis.example:6390"))
        .describe();

    assertThat(where).isEqualTo("redis://redis.example:6390 (spring.data.redis.url)")
        .doesNotContain("secret");
  }
}
