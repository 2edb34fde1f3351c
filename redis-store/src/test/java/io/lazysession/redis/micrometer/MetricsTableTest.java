package io.lazysession.redis.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every meter lazysession registers is in the user guide's metrics table (docs/user-guide.md,
 * "Metrics"). The repository starts without Redis (nothing is measured, the meters exist).
 */
class MetricsTableTest {
  @Test
  void userGuideMetricsTable_listsEveryRegisteredMeter() throws IOException {
    String guide = Files.readString(Path.of("..", "docs", "user-guide.md"));
    String table = guide.substring(guide.indexOf("**Metrics.**"),
        guide.indexOf("**Memory sizing.**"));
    RedisClient client = RedisClient.create("redis://127.0.0.1:1");
    try (LazyRedisSessionRepository repository = LazyRedisSessionRepository.builder(client)
        .requireRedisAtStartup(false).build()) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      new LazySessionMetrics(repository).bindTo(registry);
      new TimedSessionRepository(repository).bindTo(registry);
      Set<String> names = new TreeSet<>();
      for (Meter meter : registry.getMeters()) {
        names.add(meter.getId().getName());
      }

      assertThat(names).contains("lazysession.codec.fallbacks", "lazysession.values.rejected");
      assertThat(names).allSatisfy(name -> assertThat(table).as("the metrics table")
          .contains("`" + name + "`"));
    } finally {
      client.shutdown();
    }
  }
}
