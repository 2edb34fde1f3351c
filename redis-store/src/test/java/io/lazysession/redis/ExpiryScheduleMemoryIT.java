package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redis memory per scheduled session, format 1's sorted set against format 2's per-minute sets
 * (docs/benchmarks.md, "Expiry schedule, format 2"): {@value #SESSIONS} sessions of the default id
 * generator scheduled through the store, due over {@value #SPREAD_MINUTES} minutes, then
 * {@code MEMORY USAGE <key> SAMPLES 0} summed over the schedule's keys. Prints the figures.
 */
class ExpiryScheduleMemoryIT {
  static final int SESSIONS = 100_000;
  static final int SPREAD_MINUTES = 30;

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();
  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  @Test
  void perSessionMemory_format2BucketsTakeLessThanFormat1SortedSet() {
    LazyRedisSessionRepository a = nodes.a();
    nodes.b();
    SessionIndexes indexes = a.shared().store().indexes();
    CompactSessionIdGenerator ids = new CompactSessionIdGenerator();
    Random random = new Random(42);
    long start = nodes.clock().millis() + Duration.ofMinutes(30).toMillis();
    long spread = Duration.ofMinutes(SPREAD_MINUTES).toMillis();

    for (int i = 0; i < SESSIONS; i++) {
      indexes.scheduleExpiry(ids.generate(), start + (long) (random.nextDouble() * spread));
    }
    long format1 = memoryUsage(List.of(indexes.buckets().zset()));

    Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> a.formatStatus().nodes().size() == 2);
    assertThat(a.finalizeFormat().writes()).isEqualTo(2);
    nodes.raw().del(indexes.buckets().zset());
    for (int i = 0; i < SESSIONS; i++) {
      indexes.scheduleExpiry(ids.generate(), start + (long) (random.nextDouble() * spread));
    }
    List<byte[]> buckets = bucketKeys();
    long format2 = memoryUsage(buckets);

    System.out.printf("expiry schedule, %d sessions due over %d minutes (ids of %d chars): "
        + "format 1 sorted set %d B (%.1f B/session); format 2 %d per-minute sets %d B "
        + "(%.1f B/session, encoding %s)%n", SESSIONS, SPREAD_MINUTES,
        CompactSessionIdGenerator.LENGTH, format1, (double) format1 / SESSIONS, buckets.size(),
        format2, (double) format2 / SESSIONS,
        nodes.raw().objectEncoding(buckets.get(0)));
    assertThat(format2).isLessThan(format1);
  }

  private static long memoryUsage(List<byte[]> keys) {
    long total = 0;
    for (byte[] key : keys) {
      Long bytes = nodes.raw().dispatch(CommandType.MEMORY,
          new IntegerOutput<>(ByteArrayCodec.INSTANCE),
          new CommandArgs<>(ByteArrayCodec.INSTANCE).add("USAGE").addKey(key).add("SAMPLES")
              .add(0));
      total += bytes == null ? 0 : bytes;
    }
    return total;
  }

  private static List<byte[]> bucketKeys() {
    List<byte[]> found = new ArrayList<>();
    ScanIterator.scan(nodes.raw(), ScanArgs.Builder.matches(nodes.namespace() + ":expirations:*")
        .limit(1000)).forEachRemaining(found::add);
    return found;
  }
}
