package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lazysession.redis.bootapp.ShopApplication;
import io.lazysession.redis.config.LazySessionConfigurationException;
import io.lazysession.testing.RedisNode;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.AclSetuserArgs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code spring.data.redis.sentinel.username/password} reach the Sentinels (no SSL); Sentinels that
 * refuse them stop the application from starting, even when one of them hangs up instead of
 * answering, and when they answer only after the client's timeouts (as on a loaded machine);
 * Sentinels that answer nothing at all let it start without Redis (the default
 * {@code lazysession.require-redis-at-startup=false}).
 */
class BootSentinelAuthIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.sentinel();

  static String nodes() {
    return String.join(",", redis.sentinels().stream()
        .map(node -> node.host() + ":" + node.port()).toList());
  }

  private static boolean sentinelAuthRequired;

  /**
   * Sentinels that accept only the user "sessions" (the data nodes stay open); once per class, as
   * the harness connects as the default user, which this turns off.
   */
  static synchronized void requireSentinelAuth() {
    if (sentinelAuthRequired) {
      return;
    }
    sentinelAuthRequired = true;
    for (RedisNode sentinel : redis.sentinels()) {
      redis.sync(sentinel, commands -> commands.aclSetuser("sessions",
          AclSetuserArgs.Builder.on().addPassword("s3cret").allCommands().allKeys()
              .allChannels()));
      redis.sync(sentinel, commands -> commands.aclSetuser("default",
          AclSetuserArgs.Builder.off()));
    }
  }

  static ConfigurableApplicationContext start(String nodes, String password,
      String... properties) {
    List<String> all = new ArrayList<>(List.of(
        "spring.data.redis.sentinel.master=" + RedisServerExtension.SENTINEL_MASTER,
        "spring.data.redis.sentinel.nodes=" + nodes,
        "spring.data.redis.sentinel.username=sessions",
        "spring.data.redis.sentinel.password=" + password));
    all.addAll(List.of(properties));
    return BootConnectionDetailsIT.start(ShopApplication.class, all.toArray(String[]::new));
  }

  @Test
  void sentinelUsernameAndPassword_areSentToTheSentinels() {
    redis.assumeFaultInjection();
    requireSentinelAuth();
    try (ConfigurableApplicationContext context = start(nodes(), "s3cret")) {
      BootConnectionDetailsIT.assertRoundTrip(context);
    }
  }

  @Test
  void startup_wrongSentinelPassword_isRefusedNamingTheConnectionSettings() {
    redis.assumeFaultInjection();
    requireSentinelAuth();

    assertRefusedNamingTheConnectionSettings(catchThrowable(() -> start(nodes(), "wrong").close()));
  }

  @Test
  void startup_wrongSentinelPasswordAndASentinelThatHangsUp_isRefused() throws IOException {
    redis.assumeFaultInjection();
    requireSentinelAuth();
    try (HangingUp hangsUp = new HangingUp()) {
      // Last in the list: Lettuce tries the Sentinels in order, and the failure it reports for the
      // first connection is the last one's (Connection closed prematurely), not the others' WRONGPASS.
      Throwable failure = catchThrowable(() -> start(nodes() + "," + hangsUp.node(), "wrong")
          .close());

      assertRefusedNamingTheConnectionSettings(failure);
      assertThat(hangsUp.accepted()).as("the Sentinel that hangs up was asked").isPositive();
    }
  }

  /**
   * Every Sentinel's WRONGPASS reaches the client only after both of its timeouts (the handshake's
   * and the connect timeout), so Lettuce's connection fails with timeouts alone: the slow path a
   * loaded machine takes at random, taken every time here.
   */
  @Test
  void startup_wrongSentinelPasswordAnsweredAfterTheTimeouts_isRefused() throws IOException {
    redis.assumeFaultInjection();
    requireSentinelAuth();
    List<SlowSentinel> slow = new ArrayList<>();
    try {
      for (RedisNode sentinel : redis.sentinels()) {
        slow.add(new SlowSentinel(sentinel));
      }
      String nodes = String.join(",", slow.stream().map(SlowSentinel::node).toList());

      Throwable failure = catchThrowable(() -> start(nodes, "wrong",
          "spring.data.redis.timeout=" + SlowSentinel.CLIENT_TIMEOUT_MILLIS + "ms",
          "spring.data.redis.connect-timeout=" + SlowSentinel.CLIENT_TIMEOUT_MILLIS + "ms")
          .close());

      assertRefusedNamingTheConnectionSettings(failure);
      assertThat(slow).as("answers held past the timeouts").anyMatch(s -> s.held() > 0);
    } finally {
      for (SlowSentinel sentinel : slow) {
        sentinel.close();
      }
    }
  }

  @Test
  void startup_noSentinelAnswers_startsWithoutRedis() throws IOException {
    int nothingListening;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      nothingListening = socket.getLocalPort();
    }
    try (HangingUp hangsUp = new HangingUp();
        ConfigurableApplicationContext context =
            start("127.0.0.1:" + nothingListening + "," + hangsUp.node(), "s3cret")) {
      LazyRedisSessionRepository repository = context.getBean(LazyRedisSessionRepository.class);
      assertThatThrownBy(() -> repository.findById("any"))
          .as("started without Redis: every request fails as unavailable")
          .isInstanceOf(SessionStoreUnavailableException.class);
    }
  }

  private static void assertRefusedNamingTheConnectionSettings(Throwable failure) {
    assertThat(failure).as("the application must not start").isNotNull();
    Throwable cause = failure;
    while (cause != null && !(cause instanceof LazySessionConfigurationException)) {
      cause = cause.getCause();
    }
    assertThat(cause).as("a failure the startup report explains").isNotNull();
    LazySessionConfigurationException refused = (LazySessionConfigurationException) cause;
    assertThat(refused.setting()).isEqualTo("spring.data.redis.*");
    assertThat(refused.reason()).contains("lazysession cannot connect to Redis")
        .contains("Sentinel master '" + RedisServerExtension.SENTINEL_MASTER + "'")
        .contains("(spring.data.redis.sentinel.*)");
    assertThat(refused.action()).contains("connection settings").contains("sentinel.*")
        .doesNotContain("require-redis-at-startup");
  }

  /**
   * A "Sentinel" that accepts every connection and closes it at once, before any answer: what a
   * Sentinel that drops a client looks like to Lettuce.
   */
  private static final class HangingUp implements AutoCloseable {
    private final ServerSocket socket;
    private final AtomicInteger accepted = new AtomicInteger();

    HangingUp() throws IOException {
      socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread thread = new Thread(this::acceptAndClose, "hanging-up-sentinel");
      thread.setDaemon(true);
      thread.start();
    }

    private void acceptAndClose() {
      while (!socket.isClosed()) {
        try (Socket client = socket.accept()) {
          accepted.incrementAndGet();
        } catch (IOException e) {
          // closed: the test is over
        }
      }
    }

    String node() {
      return "127.0.0.1:" + socket.getLocalPort();
    }

    int accepted() {
      return accepted.get();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  /**
   * In front of a real Sentinel: passes on what the client sends at once, and holds each answer of
   * the Sentinel for {@link #HOLD_MILLIS} before passing it on, ten times the client's timeouts in
   * the test: a Sentinel whose answer always arrives after the client gave up waiting for it.
   */
  private static final class SlowSentinel implements AutoCloseable {
    static final long CLIENT_TIMEOUT_MILLIS = 100;
    static final long HOLD_MILLIS = 10 * CLIENT_TIMEOUT_MILLIS;
    private final RedisNode sentinel;
    private final ServerSocket socket;
    private final AtomicInteger held = new AtomicInteger();

    SlowSentinel(RedisNode sentinel) throws IOException {
      this.sentinel = sentinel;
      socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread thread = new Thread(this::accept, "slow-sentinel");
      thread.setDaemon(true);
      thread.start();
    }

    private void accept() {
      while (!socket.isClosed()) {
        try {
          Socket client = socket.accept();
          Socket server = new Socket(sentinel.host(), sentinel.port());
          pass(client, server, false);
          pass(server, client, true);
        } catch (IOException e) {
          // closed: the test is over; or the Sentinel is gone, and the client sees a hang-up
        }
      }
    }

    /** Copies {@code from} to {@code to} on a thread of its own; closes both when either ends. */
    private void pass(Socket from, Socket to, boolean hold) {
      Thread thread = new Thread(() -> {
        byte[] buffer = new byte[8192];
        try (Socket in = from; Socket out = to) {
          InputStream input = in.getInputStream();
          OutputStream output = out.getOutputStream();
          for (int read = input.read(buffer); read != -1; read = input.read(buffer)) {
            if (hold) {
              Thread.sleep(HOLD_MILLIS);
              held.incrementAndGet();
            }
            output.write(buffer, 0, read);
            output.flush();
          }
        } catch (IOException | InterruptedException e) {
          // one side closed the connection
        }
      }, "slow-sentinel-" + (hold ? "answers" : "commands"));
      thread.setDaemon(true);
      thread.start();
    }

    String node() {
      return "127.0.0.1:" + socket.getLocalPort();
    }

    int held() {
      return held.get();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
