package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What {@code anonymous-timeout} saves under a bot-like load (docs/session-policies.md): sessions
 * that make one request (a login page: a new session holding a CSRF token) and never come back,
 * arriving at a steady rate on a hand-moved clock, with the sweep running as it would. Redis's own
 * figures (keys in the namespace, the sum of their MEMORY USAGE) are printed for the session
 * timeout alone and with a short anonymous timeout; the only assertion is which is smaller.
 */
class AnonymousTimeoutMemoryIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();
  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  static final Duration SESSION_TIMEOUT = Duration.ofMinutes(30);
  static final Duration ANONYMOUS = Duration.ofMinutes(1);
  /** One bot session per second of the clock, for an hour: the steady state is reached. */
  static final int SESSIONS = 3600;
  static final Duration ARRIVAL = Duration.ofSeconds(1);
  static final Duration SWEEP_EVERY = Duration.ofSeconds(10);

  record Figures(long keys, long bytes) {}

  @Test
  void botLoad_anonymousTimeout_keepsFewerKeysAndBytes() {
    Figures without = botLoad("bots-plain", null);
    Figures with = botLoad("bots-anon", ANONYMOUS);

    System.out.printf("%n%d one-request sessions, one per %ss, session timeout %s, sweep every %s%n"
        + "| setting | keys alive | MEMORY USAGE total (bytes) |%n|---|---|---|%n"
        + "| no anonymous-timeout | %d | %d |%n| anonymous-timeout=%s | %d | %d |%n",
        SESSIONS, ARRIVAL.toSeconds(), SESSION_TIMEOUT, SWEEP_EVERY, without.keys(),
        without.bytes(), ANONYMOUS, with.keys(), with.bytes());
    assertThat(with.keys()).isLessThan(without.keys());
    assertThat(with.bytes()).isLessThan(without.bytes());
  }

  private Figures botLoad(String suffix, @Nullable Duration anonymous) {
    String namespace = nodes.namespace() + "-" + suffix;
    LazyRedisSessionRepository repository = nodes.another(nodes.clientA(),
        new RecordingEventPublisher(), builder -> builder.namespace(namespace)
            .defaultMaxInactiveInterval(SESSION_TIMEOUT).anonymousTimeout(anonymous));
    long sinceSweep = 0;
    for (int i = 0; i < SESSIONS; i++) {
      LazySession bot = repository.createSession();
      bot.setAttribute("org.springframework.security.web.csrf.HttpSessionCsrfTokenRepository"
          + ".CSRF_TOKEN", "c0ffee" + i);
      repository.save(bot);
      nodes.clock().advance(ARRIVAL);
      sinceSweep += ARRIVAL.toMillis();
      if (sinceSweep >= SWEEP_EVERY.toMillis()) {
        repository.cleanUpExpiredSessions();
        sinceSweep = 0;
      }
    }
    repository.cleanUpExpiredSessions();
    return figures(namespace);
  }

  private static Figures figures(String namespace) {
    long keys = 0;
    long bytes = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    ScanArgs match = ScanArgs.Builder.matches(namespace + ":*").limit(1000);
    do {
      KeyScanCursor<byte[]> page = nodes.raw().scan(cursor, match);
      for (byte[] key : page.getKeys()) {
        if (!new String(key, UTF_8).startsWith(namespace + ":")) {
          continue;
        }
        Long usage = nodes.raw().memoryUsage(key);
        keys++;
        bytes += usage == null ? 0 : usage;
      }
      cursor = page;
    } while (!cursor.isFinished());
    return new Figures(keys, bytes);
  }
}
