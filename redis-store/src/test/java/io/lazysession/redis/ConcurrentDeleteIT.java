package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionDestroyedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * Two deletes of one session at once (a double-clicked sign-out) report it once, as deleted, also
 * when the call that deletes the hash is not the one that claimed the id: the claimant finds the
 * hash gone and neither reports it nor puts the id back for the sweep to report as expired. The
 * interleaving is forced: the claimant's client holds the command after its {@code ZREM} until
 * the other delete is done.
 */
class ConcurrentDeleteIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final Duration MAX_INACTIVE = Duration.ofMinutes(10);
  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .defaultMaxInactiveInterval(MAX_INACTIVE));

  static Stream<Function<LazyRedisSessionRepository, Face>> faces() {
    return Stream.of(Face::servlet, Face::reactive);
  }

  @ParameterizedTest
  @MethodSource("faces")
  void twoDeletes_theLaterClaimantDeletesTheHash_oneDeletedEventAndNoExpiredEvent(
      Function<LazyRedisSessionRepository, Face> faceOf) throws Exception {
    HeldClaim held = new HeldClaim();
    RedisClient client = RedisClient.create(redis.uri());
    client.addListener(held);
    try {
      Face claimant = faceOf.apply(nodes.another(client, nodes.eventsA(), builder -> builder));
      Face other = faceOf.apply(nodes.b());
      LazySession session = other.create();
      session.setAttribute("cart", "two books");
      other.save(session);
      String id = session.getId();

      held.armed.set(true);
      CompletableFuture<Void> first = CompletableFuture.runAsync(() -> claimant.delete(id));
      assertThat(held.claimed.await(10, TimeUnit.SECONDS)).as("the first delete claimed").isTrue();
      other.delete(id); // no claim left for it: it deletes the live hash
      held.release.countDown();
      first.get(10, TimeUnit.SECONDS);
      nodes.clock().advance(Duration.ofSeconds(1));
      other.sweep();
      claimant.sweep();

      assertThat(nodes.raw().exists(nodes.sessionKey(id))).isZero();
      assertThat(nodes.destroyed()).noneMatch(SessionExpiredEvent.class::isInstance)
          .singleElement().isInstanceOf(SessionDeletedEvent.class)
          .extracting(SessionDestroyedEvent::getSessionId).isEqualTo(id);
      assertThat(((SessionDeletedEvent) nodes.destroyed().get(0)).getSession()
          .<String>getAttribute("cart")).isEqualTo("two books");
    } finally {
      held.release.countDown();
      client.shutdown();
    }
  }

  /**
   * Once armed, holds the first command its client sends after a {@code ZREM} (the claim, answered
   * by then) until released: the claimant's delete script reaches Redis after the other delete's.
   */
  private static final class HeldClaim implements CommandListener {
    final AtomicBoolean armed = new AtomicBoolean();
    final AtomicBoolean afterClaim = new AtomicBoolean();
    final CountDownLatch claimed = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void commandStarted(CommandStartedEvent event) {
      if ("ZREM".equals(event.getCommand().getType().toString()) && armed.compareAndSet(true,
          false)) {
        afterClaim.set(true);
      } else if (afterClaim.compareAndSet(true, false)) {
        claimed.countDown();
        try {
          release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void commandSucceeded(CommandSucceededEvent event) {}

    @Override
    public void commandFailed(CommandFailedEvent event) {}
  }
}
