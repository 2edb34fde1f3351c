package io.lazysession.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A write followed by WAIT (durability): the write runs on the primary that owns its key, then WAIT
 * on the same connection, which nothing else uses meanwhile ({@link SessionConnection#onPrimaryOf}),
 * so that its answer counts the replicas that have this write. A Cluster topology that moved the
 * slot meanwhile (MOVED) is re-read and the pair is tried once more. Thread-safe.
 */
final class ReplicaWait {
  private final SessionConnection connection;
  private final MetricsRecorder metrics;

  ReplicaWait(SessionConnection connection, MetricsRecorder metrics) {
    this.connection = connection;
    this.metrics = metrics;
  }

  /**
   * What a write followed by WAIT ended with.
   *
   * @param result the write's answer
   * @param acknowledged how many replicas had the write within the timeout (0 when nothing was
   *     waited for)
   * @param failure why WAIT failed after the write was applied; null when it answered
   */
  record Waited<T>(T result, long acknowledged, @Nullable RedisException failure) {}

  /**
   * Runs {@code write} on the primary of {@code key}; when {@code wrote} says it wrote, WAIT for
   * {@code replicas} replicas up to {@code timeout}.
   */
  <T> Waited<T> run(byte[] key, Function<RedisClusterCommands<byte[], byte[]>, T> write,
      Predicate<T> wrote, int replicas, Duration timeout) {
    for (int attempt = 1; ; attempt++) {
      try {
        return connection.onPrimaryOf(key, primary -> {
          T result = write.apply(primary);
          if (!wrote.test(result)) {
            return new Waited<>(result, 0, null);
          }
          metrics.roundTrips.increment();
          try {
            Long acknowledged =
                primary.waitForReplication(replicas, Math.max(1, timeout.toMillis()));
            return new Waited<>(result, acknowledged == null ? 0 : acknowledged, null);
          } catch (RedisException e) {
            throw new WaitFailed(result, e); // thrown, so that the connection is not reused
          }
        });
      } catch (WaitFailed e) {
        @SuppressWarnings("unchecked")
        T result = (T) e.result;
        return new Waited<>(result, 0, e.failure);
      } catch (RedisException e) {
        if (attempt >= 2 || !StoreFailures.isMoved(e)) {
          throw e;
        }
        connection.refreshTopology();
      }
    }
  }

  /** WAIT failed after the write was applied with {@code result}. */
  private static final class WaitFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Object result;
    private final RedisException failure;

    WaitFailed(Object result, RedisException failure) {
      super(null, failure, false, false);
      this.result = result;
      this.failure = failure;
    }
  }
}
