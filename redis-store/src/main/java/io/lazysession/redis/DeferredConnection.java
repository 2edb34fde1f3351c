package io.lazysession.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.api.reactive.RedisClusterReactiveCommands;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The connection of a repository built while Redis could not be reached: it keeps trying to open the
 * real {@link SessionConnection} on a background thread of its own (every
 * {@link #MAX_RETRY_DELAY} at most), and until it succeeds every command fails at once with a
 * {@link RedisConnectionException}, which the repository reports as
 * {@link SessionStoreUnavailableException}. Once open, it hands out the real connection's commands
 * (Lettuce then reconnects by itself after later drops), runs the work that startup skipped (script
 * loading, tracked reads), and the background thread ends. Thread-safe.
 *
 * <p>Design note: the store asks for {@link #commands()} on every call, so once open it talks to the
 * real connection directly. The reactive store keeps the {@link #reactive()} it was given; that one
 * is a proxy which forwards each call to the real connection once open (a reflective call more per
 * command, paid only by a WebFlux application that started without Redis).
 */
final class DeferredConnection implements SessionConnection {
  /** The longest wait between two attempts to open the connection. */
  static final Duration MAX_RETRY_DELAY = Duration.ofMillis(500);
  private static final Duration FIRST_RETRY_DELAY = Duration.ofMillis(50);
  private static final Logger log = LoggerFactory.getLogger(DeferredConnection.class);

  /** Work to do once the connection is open; returns what must be closed with it, or null. */
  interface OnOpen {
    @Nullable AutoCloseable opened(SessionConnection connection);
  }

  private final Supplier<SessionConnection> open;
  private final RedisClusterCommands<byte[], byte[]> refusing;
  private final RedisClusterReactiveCommands<byte[], byte[]> reactive;
  private final ScheduledExecutorService thread;
  private volatile @Nullable SessionConnection connection;
  private volatile @Nullable AutoCloseable alongside;
  private volatile String why;
  private volatile boolean closed;
  private boolean refusalLogged; // confined to the background thread
  private long delayMillis = FIRST_RETRY_DELAY.toMillis(); // confined to the background thread

  /**
   * @param open opens the real connection; throws while Redis cannot be reached
   * @param cluster whether {@code open} gives a Cluster connection (the refusing commands then
   *     have the Cluster's type, as code that checks for it expects)
   * @param why why the first attempt failed, for the messages of refused commands
   */
  @SuppressWarnings("unchecked")
  DeferredConnection(Supplier<SessionConnection> open, boolean cluster, String why,
      String namespace) {
    this.open = open;
    this.why = why;
    this.refusing = (RedisClusterCommands<byte[], byte[]>) Proxy.newProxyInstance(
        DeferredConnection.class.getClassLoader(),
        new Class<?>[] {cluster ? RedisAdvancedClusterCommands.class : RedisCommands.class},
        (proxy, method, args) -> objectMethod(proxy, method, args, () -> {
          throw notConnected();
        }));
    this.reactive = (RedisClusterReactiveCommands<byte[], byte[]>) Proxy.newProxyInstance(
        DeferredConnection.class.getClassLoader(),
        new Class<?>[] {RedisClusterReactiveCommands.class},
        (proxy, method, args) -> objectMethod(proxy, method, args,
            () -> forwardReactive(method, args)));
    this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread connector = new Thread(runnable, "lazysession-connect-" + namespace);
      connector.setDaemon(true);
      return connector;
    });
  }

  /**
   * Whether a failure to connect is Redis refusing this client (wrong password, an ACL, a Sentinel
   * that does not know the master), which waiting will not cure, rather than Redis being
   * unreachable, starting or failing over.
   */
  static boolean isRefusal(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (isErrorAnswer(cause)) {
        return true;
      }
      for (Throwable suppressed : cause.getSuppressed()) {
        if (isRefusal(suppressed)) {
          return true;
        }
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  private static boolean isErrorAnswer(Throwable failure) {
    return failure instanceof RedisCommandExecutionException
        && !StoreFailures.isTransient(String.valueOf(failure.getMessage()));
  }

  /** Starts the attempts; {@code onOpen} runs once, on the background thread, after success. */
  void start(OnOpen onOpen) {
    thread.execute(() -> attempt(onOpen));
  }

  /** Why the last attempt failed. */
  String why() {
    return why;
  }

  private void attempt(OnOpen onOpen) {
    if (closed) {
      return;
    }
    SessionConnection opened;
    try {
      opened = open.get();
    } catch (RuntimeException e) {
      why = String.valueOf(e.getMessage());
      if (isRefusal(e) && !refusalLogged) {
        refusalLogged = true;
        log.error("lazysession: Redis refuses this client, and will go on refusing it: {}", why);
      }
      log.debug("lazysession: still cannot connect to Redis, next attempt in {} ms: {}",
          delayMillis, why);
      thread.schedule(() -> attempt(onOpen), delayMillis, TimeUnit.MILLISECONDS);
      delayMillis = Math.min(delayMillis * 2, MAX_RETRY_DELAY.toMillis());
      return;
    }
    connection = opened;
    try {
      alongside = onOpen.opened(opened);
    } catch (RuntimeException e) {
      log.warn("lazysession connected to Redis, but could not finish starting: {}", e.toString());
    }
    if (closed) {
      close();
    }
    thread.shutdown();
  }

  /** Whether the real connection is open. */
  boolean isOpen() {
    return connection != null;
  }

  @Override
  public RedisClusterCommands<byte[], byte[]> commands() {
    SessionConnection open = connection;
    return open == null ? refusing : open.commands();
  }

  @Override
  public <T> T evalsha(String sha, ScriptOutputType type, byte[][] keys, byte[]... arguments) {
    SessionConnection open = connection;
    return open == null ? refusing.evalsha(sha, type, keys, arguments)
        : open.evalsha(sha, type, keys, arguments);
  }

  @Override
  public <T> T fcall(String function, ScriptOutputType type, byte[][] keys,
      byte[]... arguments) {
    SessionConnection open = connection;
    return open == null ? refusing.fcall(function, type, keys, arguments)
        : open.fcall(function, type, keys, arguments);
  }

  @Override
  public RedisClusterReactiveCommands<byte[], byte[]> reactive() {
    return reactive;
  }

  @Override
  public <T> T onPrimaryOf(byte[] key, Function<RedisClusterCommands<byte[], byte[]>, T> work) {
    SessionConnection open = connection;
    if (open == null) {
      throw notConnected();
    }
    return open.onPrimaryOf(key, work);
  }

  @Override
  public void refreshTopology() {
    SessionConnection open = connection;
    if (open != null) {
      open.refreshTopology();
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.shutdownNow();
    AutoCloseable extra = alongside;
    alongside = null;
    if (extra != null) {
      try {
        extra.close();
      } catch (Exception e) {
        log.debug("lazysession: closing after a deferred start failed", e);
      }
    }
    SessionConnection open = connection;
    connection = null;
    if (open != null) {
      open.close();
    }
  }

  private RedisConnectionException notConnected() {
    return new RedisConnectionException("not connected to Redis since the application started ("
        + why + ")");
  }

  private @Nullable Object forwardReactive(Method method, @Nullable Object[] args)
      throws Throwable {
    SessionConnection open = connection;
    if (open == null) {
      if (Mono.class.isAssignableFrom(method.getReturnType())) {
        return Mono.error(notConnected());
      }
      if (Flux.class.isAssignableFrom(method.getReturnType())) {
        return Flux.error(notConnected());
      }
      throw notConnected();
    }
    try {
      return method.invoke(open.reactive(), args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** What a call to a proxy does: {@code Object}'s own methods, else {@code call}. */
  private static @Nullable Object objectMethod(Object proxy, Method method,
      @Nullable Object[] args, Call call) throws Throwable {
    return switch (method.getName()) {
      case "equals" -> method.getParameterCount() == 1 ? proxy == args[0] : call.run();
      case "hashCode" -> method.getParameterCount() == 0 ? System.identityHashCode(proxy)
          : call.run();
      case "toString" -> method.getParameterCount() == 0 ? "lazysession deferred connection"
          : call.run();
      default -> call.run();
    };
  }

  private interface Call {
    @Nullable Object run() throws Throwable;
  }
}
