package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.testing.RedisNode;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.AclSetuserArgs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code spring.data.redis.sentinel.username/password} reach the Sentinels (no SSL). */
class BootSentinelAuthIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.sentinel();

  static String nodes() {
    return String.join(",", redis.sentinels().stream()
        .map(node -> node.host() + ":" + node.port()).toList());
  }

  /** Sentinels that accept only the user "sessions" (the data nodes stay open). */
  static void requireSentinelAuth() {
    for (RedisNode sentinel : redis.sentinels()) {
      redis.sync(sentinel, commands -> commands.aclSetuser("sessions",
          AclSetuserArgs.Builder.on().addPassword("s3cret").allCommands().allKeys()
              .allChannels()));
      redis.sync(sentinel, commands -> commands.aclSetuser("default",
          AclSetuserArgs.Builder.off()));
    }
  }

  @Test
  void sentinelUsernameAndPassword_areSentToTheSentinels() {
    redis.assumeFaultInjection();
    requireSentinelAuth();
    try (org.springframework.context.ConfigurableApplicationContext context = BootConnectionDetailsIT.start(io.lazysession.redis.bootapp.ShopApplication.class,
        "spring.data.redis.sentinel.master=" + RedisServerExtension.SENTINEL_MASTER,
        "spring.data.redis.sentinel.nodes=" + nodes(),
        "spring.data.redis.sentinel.username=sessions",
        "spring.data.redis.sentinel.password=s3cret")) {
      BootConnectionDetailsIT.assertRoundTrip(context);
    }
    org.springframework.context.ConfigurableApplicationContext wrong;
    try {
      wrong = BootConnectionDetailsIT.start(io.lazysession.redis.bootapp.ShopApplication.class,
          "spring.data.redis.sentinel.master=" + RedisServerExtension.SENTINEL_MASTER,
          "spring.data.redis.sentinel.nodes=" + nodes(),
          "spring.data.redis.sentinel.username=sessions",
          "spring.data.redis.sentinel.password=wrong");
    } catch (RuntimeException refused) {
      assertThat(refused).as("the credentials are what let it in")
          .hasStackTraceContaining("lazysession cannot connect to Redis");
      return;
    }
    // A Sentinel that closes the connection before it answers WRONGPASS makes the first attempt
    // read as Redis being unreachable, not as a refusal: the application then starts without
    // Redis, and the credentials still keep it out.
    try (wrong) {
      LazyRedisSessionRepository repository = wrong.getBean(LazyRedisSessionRepository.class);
      for (int attempt = 0; attempt < 3; attempt++) {
        assertThatThrownBy(() -> repository.findById("any"))
            .as("the credentials are what let it in")
            .isInstanceOf(SessionStoreUnavailableException.class);
      }
    }
  }
}
