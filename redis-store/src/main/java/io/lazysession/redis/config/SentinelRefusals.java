package io.lazysession.redis.config;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Tells a refusal from an outage when a connection through Sentinels failed without saying which:
 * asks each Sentinel directly, once, whether it lets the client in.
 *
 * <p>Why it is needed: Lettuce tries the Sentinels in order and reports the last one's failure; the
 * other Sentinels' answers travel as suppressed exceptions of an exception that
 * {@code RedisClient.connect} replaces before throwing ({@code RedisConnectionException.create}
 * copies only its message and cause; Lettuce 7.5). So when
 * the last Sentinel hangs up ("Connection closed prematurely") and the others answer WRONGPASS, the
 * failure reads as Redis being unreachable, and with {@code lazysession.require-redis-at-startup=false}
 * the store would start without Redis and never connect, instead of refusing to start. Asked
 * directly, with the client's credentials for them, a Sentinel that answers with an error (WRONGPASS,
 * NOAUTH, NOPERM...) is refusing this client; one that does not answer, or lets the client in, says
 * nothing. The Sentinels are asked in parallel, and given {@link #MIN_WAIT} to answer, or the
 * client's connect timeout when longer: not the client's timeouts alone, which a loaded machine may
 * beat at startup (the answers then arrive after Lettuce gave up on them, and would again after
 * the probe's), and which an application may set short to fail fast; a Sentinel's late WRONGPASS
 * must still stop the start. Only Sentinels that accept the connection and then answer nothing
 * make the start wait that long, once.
 *
 * <p>Called from the clients {@link CappedReconnects} builds, at their first connection: the
 * client is where the Sentinels and their credentials are known (Lettuce's {@code RedisClient} does
 * not expose its URI), and the store decides from the exception alone whether to start without
 * Redis. Stateless.
 */
final class SentinelRefusals {
  /**
   * How long the Sentinels are given to answer at least (Lettuce's default connect timeout): a
   * refusal that arrives within it stops the start, whatever the client's timeouts.
   */
  static final Duration MIN_WAIT = Duration.ofSeconds(10);

  private SentinelRefusals() {}

  /**
   * Adds to {@code failure}, as suppressed exceptions, the error answers of the Sentinels of
   * {@code uri} that refuse {@code client}; waits for them at most {@link #MIN_WAIT}, or the
   * client's connect timeout when longer. Does nothing when {@code uri} names no Sentinels or
   * {@code failure} already holds an error answer.
   */
  static void addTo(RedisException failure, RedisClient client, RedisURI uri) {
    List<RedisURI> sentinels = uri.getSentinels();
    if (sentinels.isEmpty() || RepositoryFactory.isRefusal(failure)) {
      return;
    }
    Duration connectTimeout = client.getOptions().getSocketOptions().getConnectTimeout();
    Duration timeout = connectTimeout.compareTo(MIN_WAIT) > 0 ? connectTimeout : MIN_WAIT;
    List<CompletableFuture<@Nullable Throwable>> answers = new ArrayList<>();
    for (RedisURI sentinel : sentinels) {
      // The URI's timeout bounds the handshake (HELLO or AUTH) of a Sentinel that accepts the
      // connection but does not answer.
      answers.add(ask(client, RedisURI.builder(sentinel).withTimeout(timeout).build()));
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int i = 0; i < answers.size(); i++) {
      Throwable refusal;
      try {
        refusal = answers.get(i).get(Math.max(0, deadline - System.nanoTime()),
            TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException | TimeoutException e) {
        continue; // no answer in time: says nothing
      }
      if (refusal != null) {
        RedisURI sentinel = sentinels.get(i);
        failure.addSuppressed(new RedisConnectionException("Redis Sentinel at "
            + sentinel.getHost() + ":" + sentinel.getPort() + " refuses this client: "
            + refusal.getMessage(), refusal));
      }
    }
  }

  /**
   * The error answer of one Sentinel to the client's handshake, or null when it let the client in
   * (the connection is then closed at once) or did not answer.
   */
  private static CompletableFuture<@Nullable Throwable> ask(RedisClient client, RedisURI sentinel) {
    try {
      return client.connectSentinelAsync(StringCodec.UTF8, sentinel)
          .handle((connection, error) -> {
            if (connection != null) {
              connection.closeAsync();
              return null;
            }
            return errorAnswer(error);
          });
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(errorAnswer(e));
    }
  }

  private static @Nullable Throwable errorAnswer(@Nullable Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof RedisCommandExecutionException) {
        return cause;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return null;
  }
}
