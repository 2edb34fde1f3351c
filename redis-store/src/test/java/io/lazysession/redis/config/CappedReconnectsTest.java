package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CappedReconnectsTest {
  static final RedisURI NOWHERE = RedisURI.create("redis://127.0.0.1:1");

  @Test
  void delay_manyAttempts_neverMoreThanTheCap() {
    Delay delay = CappedReconnects.delay();

    assertThat(delay.createDelay(1)).isLessThanOrEqualTo(Duration.ofMillis(2));
    for (long attempt = 1; attempt <= 100; attempt++) {
      assertThat(delay.createDelay(attempt)).as("attempt %s", attempt)
          .isLessThanOrEqualTo(CappedReconnects.MAX_RECONNECT_DELAY);
    }
    assertThat(delay.createDelay(30)).isEqualTo(CappedReconnects.MAX_RECONNECT_DELAY);
    assertThat(DefaultClientResources.DEFAULT_RECONNECT_DELAY.get().createDelay(30))
        .as("what Lettuce waits by default").isGreaterThan(Duration.ofSeconds(10));
  }

  @Test
  void redisClient_applicationResources_sharesThemWithTheCappedDelayAndLeavesThemRunning() {
    ClientResources application = DefaultClientResources.create();
    try {
      RedisClient client = CappedReconnects.redisClient(application, NOWHERE);
      ClientResources used = client.getResources();

      assertThat(used.reconnectDelay().createDelay(30))
          .isEqualTo(CappedReconnects.MAX_RECONNECT_DELAY);
      assertThat(used.eventExecutorGroup()).isSameAs(application.eventExecutorGroup());
      assertThat(used.eventBus()).isSameAs(application.eventBus());
      client.shutdown();

      assertThat(application.eventExecutorGroup().isShuttingDown()).isFalse();
      assertThat(application.reconnectDelay().createDelay(30))
          .as("the application's own delay").isGreaterThan(Duration.ofSeconds(10));
    } finally {
      application.shutdown();
    }
  }

  @Test
  void clusterClient_noApplicationResources_shutsItsOwnDownWithItself() {
    RedisClusterClient client = CappedReconnects.clusterClient(null, List.of(NOWHERE));
    ClientResources own = client.getResources();
    assertThat(own.reconnectDelay().createDelay(30))
        .isEqualTo(CappedReconnects.MAX_RECONNECT_DELAY);

    client.shutdown();

    assertThat(own.eventExecutorGroup().isShuttingDown()).isTrue();
  }
}
