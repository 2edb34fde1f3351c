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
