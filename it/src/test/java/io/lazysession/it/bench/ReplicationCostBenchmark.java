package io.lazysession.it.bench;

import io.lazysession.testing.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The full replication-cost benchmark. Not part of the normal build (its name matches no test
 * pattern): run it with {@code ./mvnw -pl it -am -Pbench -DskipTests verify} (see it/README.md).
 * Prints the Markdown report and writes it, with a CSV and an SVG chart, to
 * {@code it/target/benchmark/}. Settings: the {@code bench.*} system properties of
 * {@link BenchConfig#withSystemProperties()}, and the {@code lazysession.test.redis.*} settings that
 * choose the Redis.
 */
class ReplicationCostBenchmark {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();
  /** Durable saves need a replica to acknowledge them; the matrix stays on the standalone server. */
  @RegisterExtension
  static final RedisServerExtension replicated = RedisServerExtension.primaryReplica();

  @Test
  void run() {
    BenchConfig config = BenchConfig.full().withSystemProperties();
    ReplicationCost.Outcome outcome =
        ReplicationCost.run(config, redis, replicated, System.out::println);
    System.out.println();
    System.out.println(outcome.markdown());
    System.out.println("written to " + config.outputDirectory().toAbsolutePath());
  }
}
