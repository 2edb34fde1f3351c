package io.lazysession.redis.config;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The clients the configurations build for the session store reconnect at most
 * {@link #MAX_RECONNECT_DELAY} apart. Lettuce's default backoff doubles up to 30 s, so after an
 * outage of a minute a client could wait another half minute once Redis is back; with this cap the
 * session store resumes within about a second. Only the reconnect delay differs from the resources
 * the client would otherwise get: on the application's {@link ClientResources}, a copy that shares their event
 * loops, timer and event bus ({@link ClientResources#mutate()}); without them, resources of the
 * client's own, shut down with it. An application that wants another backoff defines its own client
 * bean. Stateless.
 */
final class CappedReconnects {
  /** The longest wait between two reconnect attempts of the session store's own client. */
  static final Duration MAX_RECONNECT_DELAY = Duration.ofMillis(500);

  private CappedReconnects() {}

  /** 1, 2, 4 ... ms, at most {@link #MAX_RECONNECT_DELAY}. */
  static Delay delay() {
    return Delay.exponential(Duration.ofMillis(1), MAX_RECONNECT_DELAY, 2, TimeUnit.MILLISECONDS);
  }

  /** The application's resources (shared, not owned by the client) with the capped delay. */
  static ClientResources sharing(ClientResources application) {
    return application.mutate().reconnectDelay(delay()).build();
  }

  static RedisClient redisClient(@Nullable ClientResources application, RedisURI uri) {
    return application != null ? RedisClient.create(sharing(application), uri)
        : new OwningRedisClient(ownResources(), uri);
  }

  static RedisClusterClient clusterClient(@Nullable ClientResources application,
      Iterable<RedisURI> uris) {
    return application != null ? RedisClusterClient.create(sharing(application), uris)
        : new OwningClusterClient(ownResources(), uris);
  }

  private static ClientResources ownResources() {
    return ClientResources.builder().reconnectDelay(delay()).build();
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
   * A client on resources made for it alone, which it shuts down with itself (Lettuce leaves
   * resources given to a client alone, as they may be shared).
   */
  private static final class OwningRedisClient extends RedisClient {
    private final ClientResources resources;

    OwningRedisClient(ClientResources resources, RedisURI uri) {
      super(resources, uri);
      this.resources = resources;
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
