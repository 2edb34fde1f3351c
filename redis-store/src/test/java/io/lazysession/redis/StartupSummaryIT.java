package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.bootapp.ShopApplication;
import io.lazysession.testing.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot application that starts says, in one INFO line, what lazysession does: the Redis
 * target, the namespace, the codec, compression, the near cache, the allow-list mode (read from
 * {@code lazysession.allow-list-mode}, else enforce) and the session timeout.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupSummaryIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private static ConfigurableApplicationContext start(String... properties) {
    return new SpringApplicationBuilder(ShopApplication.class)
        .web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url())
        .properties(properties)
        .run();
  }

  @Test
  void startup_defaults_logsOneLineSayingWhatTheStoreDoes(CapturedOutput output) {
    String namespace = TestRedis.uniqueNamespace("summary");
    try (ConfigurableApplicationContext context = start("lazysession.namespace=" + namespace)) {
      String target = redis.uri().getHost() + ":" + redis.uri().getPort();

      assertThat(output.getOut().lines()
          .filter(line -> line.contains("lazysession stores sessions in Redis at ")))
          .singleElement().asString()
          .contains("INFO")
          .contains("lazysession stores sessions in Redis at " + target
              + " (spring.data.redis.url), namespace '" + namespace + "'; codec kryo, "
              + "compression zstd level 3 from 256 bytes, near cache validate (64MB), "
              + "allow-list enforce, session timeout 30m");
    }
  }

  @Test
  void startup_settingsChanged_theLineSaysThem(CapturedOutput output) {
    String namespace = TestRedis.uniqueNamespace("summary-set");
    try (ConfigurableApplicationContext context = start("lazysession.namespace=" + namespace,
        "lazysession.codec=jdk", "lazysession.compression=none",
        "lazysession.near-cache.max-bytes=0", "lazysession.allow-list-mode=audit",
        "spring.session.timeout=10m")) {
      assertThat(output.getOut()).contains("namespace '" + namespace + "'; codec jdk, "
          + "compression none, near cache off, allow-list audit, session timeout 10m");
    }
  }
}
