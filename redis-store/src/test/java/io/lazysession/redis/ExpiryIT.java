package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.Session;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionDestroyedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * Expiry with two nodes sweeping in the background on one shared, hand-moved clock: each expired
 * session is reported exactly once across the nodes, its hash and principal index entry go.
 */
class ExpiryIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final Duration MAX_INACTIVE = Duration.ofMinutes(10);
  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .defaultMaxInactiveInterval(MAX_INACTIVE)
      .cleanupInterval(Duration.ofMillis(20)));

  @BeforeEach
  void startBothSweeps() {
    nodes.a();
    nodes.b();
  }

  @Test
  void sweep_twoNodes_reportEachExpiredSessionExactlyOnceAndCleanUp() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      LazyRedisSessionRepository node = i % 2 == 0 ? nodes.a() : nodes.b();
      LazySession session = node.createSession();
      session.setAttribute("cart", ShopFixtures.attributes().get("cart"));
      session.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME,
          "user" + (i % 4));
      node.save(session);
      ids.add(session.getId());
    }
    assertThat(nodes.a().findByPrincipalName("user0")).hasSize(10);

    nodes.clock().advance(MAX_INACTIVE.plusSeconds(1));
    await().atMost(Duration.ofSeconds(30)).until(() -> nodes.destroyed().size() >= ids.size());
    // Both sweeps keep running a while longer: nothing is reported twice.
    for (int i = 0; i < 3; i++) {
      nodes.a().cleanUpExpiredSessions();
      nodes.b().cleanUpExpiredSessions();
    }

    assertThat(nodes.destroyed()).allMatch(SessionExpiredEvent.class::isInstance)
        .extracting(SessionDestroyedEvent::getSessionId)
        .containsExactlyInAnyOrderElementsOf(ids);
    for (String id : ids) {
      assertThat(nodes.raw().exists(nodes.sessionKey(id))).isZero();
    }
    for (int user = 0; user < 4; user++) {
      assertThat(nodes.raw().exists((nodes.namespace() + ":principal:user" + user).getBytes(UTF_8))).isZero();
    }
    assertThat(nodes.raw().zcard((nodes.namespace() + ":expirations").getBytes(UTF_8))).isZero();
    assertThat(nodes.a().metrics().sessionsExpired() + nodes.b().metrics().sessionsExpired())
        .isEqualTo(ids.size());
  }

  @Test
  void sweep_expiredEvent_carriesMetadataAndAttributes() {
    LazySession session = nodes.a().createSession();
    session.setAttribute("cart", ShopFixtures.attributes().get("cart"));
    nodes.a().save(session);

    nodes.clock().advance(MAX_INACTIVE);
    await().atMost(Duration.ofSeconds(30)).until(() -> nodes.destroyed().size() == 1);

    Session expired = nodes.destroyed().get(0).getSession();
    assertThat(expired.getId()).isEqualTo(session.getId());
    assertThat(expired.getCreationTime()).isEqualTo(session.getCreationTime());
    assertThat(expired.getLastAccessedTime()).isEqualTo(session.getLastAccessedTime());
    assertThat(expired.getMaxInactiveInterval()).isEqualTo(MAX_INACTIVE);
    assertThat(expired.getAttributeNames()).containsExactly("cart");
    assertThat((Object) expired.getAttribute("cart"))
        .isEqualTo(ShopFixtures.attributes().get("cart"));
  }

  @Test
  void sweep_sessionTouchedBeforeItsExpiry_staysAlive() {
    LazySession session = nodes.a().createSession();
    nodes.a().save(session);
    nodes.clock().advance(MAX_INACTIVE.minusMinutes(1));
    LazySession loaded = nodes.b().findById(session.getId());
    loaded.setLastAccessedTime(nodes.clock().instant());
    nodes.b().save(loaded);

    nodes.clock().advance(Duration.ofMinutes(2)); // past the first schedule, not past the touch
    nodes.a().cleanUpExpiredSessions();
    nodes.b().cleanUpExpiredSessions();

    assertThat(nodes.destroyed()).isEmpty();
    assertThat(nodes.a().findById(session.getId())).isNotNull();
    nodes.clock().advance(MAX_INACTIVE);
    await().atMost(Duration.ofSeconds(30)).until(() -> nodes.destroyed().size() == 1);
  }

  @Test
  void expireClaimed_sessionSavedAfterTheSweepFoundItExpired_staysAliveAndIsRescheduled() {
    LazySession session = nodes.a().createSession();
    nodes.a().save(session);
    nodes.clock().advance(MAX_INACTIVE.minusMinutes(1));
    // A sweeping node whose clock runs 2 minutes ahead has just found the session expired; before
    // it claims the id, another node saves the session.
    long sweeperNow = nodes.clock().instant().plus(Duration.ofMinutes(2)).toEpochMilli();
    LazySession loaded = nodes.b().findById(session.getId());
    loaded.setLastAccessedTime(nodes.clock().instant());
    nodes.b().save(loaded);

    boolean reported = nodes.a().shared().expiry().expireClaimed(session.getId(), sweeperNow);

    assertThat(reported).isFalse();
    assertThat(nodes.destroyed()).isEmpty();
    assertThat(nodes.b().findById(session.getId())).isNotNull();
    assertThat(nodes.raw().zscore((nodes.namespace() + ":expirations").getBytes(UTF_8),
        session.getId().getBytes(UTF_8)))
        .isEqualTo((double) nodes.clock().instant().plus(MAX_INACTIVE).toEpochMilli());
  }

  @Test
  void sweep_listenerThrowsAnError_keepsSweepingAndReporting() {
    List<ApplicationEvent> seen = new CopyOnWriteArrayList<>();
    ApplicationEventPublisher failingOnce = event -> {
      seen.add((ApplicationEvent) event);
      if (seen.size() == 1) {
        throw new LinkageError("a listener failed with an Error");
      }
    };
    nodes.restartA(builder -> builder.eventPublisher(failingOnce));
    nodes.restartB(builder -> builder.cleanupInterval(Duration.ZERO).eventPublisher(null));
    LazySession first = nodes.b().createSession();
    nodes.b().save(first);
    nodes.clock().advance(Duration.ofMinutes(1));
    LazySession second = nodes.b().createSession();
    nodes.b().save(second);

    nodes.clock().advance(MAX_INACTIVE.minusSeconds(30)); // only the first is due
    await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 1);
    nodes.clock().advance(Duration.ofMinutes(1));
    await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 2);

    assertThat(seen).extracting(event -> ((SessionExpiredEvent) event).getSessionId())
        .containsExactly(first.getId(), second.getId());
  }

  @Test
  void deleteById_whileASweepHoldsTheClaim_reportsTheSessionOnce() {
    LazySession session = nodes.a().createSession();
    nodes.a().save(session);
    byte[] schedule = (nodes.namespace() + ":expirations").getBytes(UTF_8);
    nodes.raw().zrem(schedule, session.getId().getBytes(UTF_8)); // a sweep on node B claims the id

    nodes.a().deleteById(session.getId());
    nodes.b().shared().expiry().expireAfterClaim(session.getId(), nodes.clock().millis()); // then the sweep goes on

    // Reported by the delete, which found it live; the sweep finds the hash gone and stays quiet.
    assertThat(nodes.destroyed()).singleElement().isInstanceOf(SessionDeletedEvent.class)
        .extracting(SessionDestroyedEvent::getSessionId).isEqualTo(session.getId());
    assertThat(nodes.a().findById(session.getId())).isNull();
  }

  @Test
  void deleteById_sessionThatNeverExpires_isReportedAsDeleted() {
    LazySession session = nodes.a().createSession();
    session.setMaxInactiveInterval(Duration.ofSeconds(-1));
    nodes.a().save(session);

    nodes.b().deleteById(session.getId());

    assertThat(nodes.destroyed()).singleElement().isInstanceOf(SessionDeletedEvent.class)
        .extracting(SessionDestroyedEvent::getSessionId).isEqualTo(session.getId());
  }

  @Test
  void sweep_hashAlreadyDroppedByRedis_stillReportsItOnce() {
    LazySession session = nodes.a().createSession();
    nodes.a().save(session);
    nodes.raw().del(nodes.sessionKey(session.getId())); // as its TTL would

    nodes.clock().advance(MAX_INACTIVE);
    await().atMost(Duration.ofSeconds(30)).until(() -> nodes.destroyed().size() == 1);

    assertThat(nodes.destroyed().get(0)).isInstanceOf(SessionExpiredEvent.class)
        .extracting(SessionDestroyedEvent::getSessionId).isEqualTo(session.getId());
  }

  @Test
  void deleteById_expiredSession_isLeftToTheSweepAndReportedAsExpired() {
    LazySession session = nodes.a().createSession();
    nodes.a().save(session);
    nodes.restartA(builder -> builder.cleanupInterval(Duration.ZERO)); // only node B sweeps
    nodes.clock().advance(MAX_INACTIVE);

    nodes.a().deleteById(session.getId());
    await().atMost(Duration.ofSeconds(30)).until(() -> nodes.destroyed().size() == 1);

    assertThat(nodes.destroyed()).noneMatch(SessionDeletedEvent.class::isInstance);
    assertThat(Map.of("expired", nodes.destroyed().get(0).getSessionId()))
        .containsEntry("expired", session.getId());
  }
}
