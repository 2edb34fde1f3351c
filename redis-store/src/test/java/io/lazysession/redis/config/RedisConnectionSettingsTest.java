package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import java.time.Duration;
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
  void toUri_clusterNodes_failsSayingWhatToChange() {
    assertThatThrownBy(() -> RedisConnectionSettings.bind(new MockEnvironment()
        .withProperty("spring.data.redis.cluster.nodes", "a:1,b:2")).toUri())
        .hasMessageContaining("spring.data.redis.cluster.nodes");
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
