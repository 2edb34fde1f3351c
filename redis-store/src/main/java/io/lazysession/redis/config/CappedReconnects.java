package io.lazysession.redis.config;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The clients the configurations build for the session store reconnect at most
 * {@link #MAX_RECONNECT_DELAY} apart. Lettuce's default backoff doubles up to 30 s, so after an
 * outage of a minute a client could wait another half minute once Redis is back; with this cap the
 * session store resumes within about a second. Only the reconnect delay differs from the resources
 * the client would otherwise get: on the application's {@link ClientResources}, resources that
 * share their event loops, timer and event bus; without them, resources of the client's own. Either
 * way the client shuts them down after itself. An application that wants another backoff defines its own client
 * bean. Stateless.
 *
 * <p>A {@link RedisClient} built here also makes its first failed connection through Sentinels say
 * whether the Sentinels refuse it ({@link SentinelRefusals}): that is the session store's connection
 * at startup, which refuses to start on a refusal and may start without Redis on an outage.
 */
final class CappedReconnects {
  /** The longest wait between two reconnect attempts of the session store's own client. */
  static final Duration MAX_RECONNECT_DELAY = Duration.ofMillis(500);

  private CappedReconnects() {}

  /** 1, 2, 4 ... ms, at most {@link #MAX_RECONNECT_DELAY}. */
  static Delay delay() {
    return Delay.exponential(Duration.ofMillis(1), MAX_RECONNECT_DELAY, 2, TimeUnit.MILLISECONDS);
  }

  static RedisClient redisClient(@Nullable ClientResources application, RedisURI uri) {
    return new OwningRedisClient(resources(application), uri);
  }

  static RedisClusterClient clusterClient(@Nullable ClientResources application,
      Iterable<RedisURI> uris) {
    return new OwningClusterClient(resources(application), uris);
  }

  /**
   * Resources that share the application's event loops, executors, timer, event bus and latency
   * recorder, with the capped delay; or, without the application's, resources of the client's own.
   * Not {@link ClientResources#mutate()}: its copy would own what it shares, and shutting it down
   * would stop the application's event loops.
   */
  private static ClientResources resources(@Nullable ClientResources application) {
    ClientResources.Builder resources = ClientResources.builder().reconnectDelay(delay());
    if (application != null) {
      // Given to the builder, each is shared: the new resources never shut it down.
      resources.eventLoopGroupProvider(application.eventLoopGroupProvider())
          .eventExecutorGroup(application.eventExecutorGroup())
          .timer(application.timer())
          .eventBus(application.eventBus())
          .commandLatencyRecorder(application.commandLatencyRecorder())
          .commandLatencyPublisherOptions(application.commandLatencyPublisherOptions())
          .addressResolverGroup(application.addressResolverGroup())
          .socketAddressResolver(application.socketAddressResolver())
          .nettyCustomizer(application.nettyCustomizer())
          .tracing(application.tracing());
    }
    return resources.build();
  }

  private static CompletableFuture<Void> shutDown(ClientResources resources, long quietPeriod,
      long timeout, TimeUnit unit) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    resources.shutdown(quietPeriod, timeout, unit).addListener(future -> {
      if (future.isSuccess()) {
        done.complete(null);
      } else {
        done.completeExceptionally(future.cause());
      }
    });
    return done;
  }

  /**
   * A client on resources made for it alone, which it shuts down after itself (Lettuce leaves
   * resources given to a client alone, as they may be shared; and warns about resources never shut
   * down).
   */
  private static final class OwningRedisClient extends RedisClient {
    private final ClientResources resources;
    private final RedisURI uri;
    private final AtomicBoolean tried = new AtomicBoolean();

    OwningRedisClient(ClientResources resources, RedisURI uri) {
      super(resources, uri);
      this.resources = resources;
      this.uri = uri;
    }

    /**
     * As {@link RedisClient#connect(RedisCodec)}; when the first call fails through Sentinels
     * without an error answer, the Sentinels are asked directly ({@link SentinelRefusals}). Only
     * the first: later attempts (every 500 ms while the store waits for Redis) would multiply the
     * connections to the Sentinels during an outage.
     */
    @Override
    public <K, V> StatefulRedisConnection<K, V> connect(RedisCodec<K, V> codec) {
      boolean first = tried.compareAndSet(false, true);
      try {
        return super.connect(codec);
      } catch (RedisException e) {
        if (first) {
          SentinelRefusals.addTo(e, this, uri);
        }
        throw e;
      }
    }

    @Override
    public CompletableFuture<Void> shutdownAsync(long quietPeriod, long timeout, TimeUnit unit) {
      return super.shutdownAsync(quietPeriod, timeout, unit)
          .thenCompose(closed -> shutDown(resources, quietPeriod, timeout, unit));
    }
  }

  /** As {@link OwningRedisClient}, for a Cluster. */
  private static final class OwningClusterClient extends RedisClusterClient {
    private final ClientResources resources;

    OwningClusterClient(ClientResources resources, Iterable<RedisURI> uris) {
      super(resources, uris);
      this.resources = resources;
    }

    @Override
    public CompletableFuture<Void> shutdownAsync(long quietPeriod, long timeout, TimeUnit unit) {
      return super.shutdownAsync(quietPeriod, timeout, unit)
          .thenCompose(closed -> shutDown(resources, quietPeriod, timeout, unit));
    }
  }
}
