package io.lazysession.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.opentest4j.TestAbortedException;

class StandaloneHarnessIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static RedisClient client;

  @BeforeAll
  static void connect() {
    client = RedisClient.create(redis.uri());
  }

  @AfterAll
  static void shutdown() {
    client.shutdown();
  }

  @Test
  void setAndGet_onStandalone_readsWhatWasWritten() {
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisCommands<String, String> commands = connection.sync();
      commands.set("harness:standalone", "written");
      assertThat(commands.get("harness:standalone")).isEqualTo("written");
      assertThat(commands.info("server")).contains("redis_version:");
    }
  }

  @Test
  void version_ofTheServer_isWhatInfoServerReports() {
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      assertThat(redis.version()).isEqualTo(RedisVersion.parse(connection.sync().info("server")));
    }
  }

  @Test
  void assumeAtLeast_olderServer_skipsNamingTheFeatureAndTheVersion() {
    assertThatThrownBy(() -> redis.assumeAtLeast(99, 0, "Redis 99 features"))
        .isInstanceOf(TestAbortedException.class)
        .hasMessage("Redis 99 features need Redis 99.0 or later; the server "
            + "reports " + redis.version());
  }

  @Test
  void assumeBefore_newerServer_skipsNamingWhatItHasAndTheVersion() {
    assertThatThrownBy(() -> redis.assumeBefore(2, 0, "Redis 2 features"))
        .isInstanceOf(TestAbortedException.class)
        .hasMessage("tests a server without Redis 2 features, which Redis 2.0 "
            + "and later have; the server reports " + redis.version());
  }

  @Test
  void assumeAtLeastAndBefore_serverOnTheRightSide_runTheTest() {
    redis.assumeAtLeast(2, 0, "Redis 2 features");
    redis.assumeBefore(99, 0, "Redis 99 features");
  }

  @Test
  void pause_whileConnected_commandsTimeOutThenRecoverAfterUnpause() {
    redis.assumeFaultInjection();
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      connection.setTimeout(Duration.ofMillis(500));
      RedisCommands<String, String> commands = connection.sync();
      commands.set("harness:pause", "before");

      redis.primary().pause();
      try {
        assertThatThrownBy(() -> commands.get("harness:pause"))
            .isInstanceOf(RedisCommandTimeoutException.class);
      } finally {
        redis.primary().unpause();
      }

      connection.setTimeout(Duration.ofSeconds(5));
      assertThat(commands.get("harness:pause")).isEqualTo("before");
      commands.set("harness:pause", "after");
      assertThat(commands.get("harness:pause")).isEqualTo("after");
    }
  }
}
