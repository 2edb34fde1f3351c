package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
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
  static TestRedis.TwoClients clients;
  static RedisClient clientA;
  static RedisClient clientB;
  static RedisCommands<byte[], byte[]> raw;

  final MutableClock clock = MutableClock.startingNow();
  final RecordingEventPublisher eventsA = new RecordingEventPublisher();
  final RecordingEventPublisher eventsB = new RecordingEventPublisher();
  String namespace;
  LazyRedisSessionRepository nodeA;
  LazyRedisSessionRepository nodeB;

  @BeforeAll
  static void connect() {
    clients = TestRedis.TwoClients.open(redis.uri());
    clientA = clients.a();
    clientB = clients.b();
    raw = clients.raw();
  }

  @AfterAll
  static void shutdown() {
    clients.close();
  }

  @BeforeEach
  void nodes(TestInfo test) {
    namespace = TestRedis.uniqueNamespace(test.getTestMethod().orElseThrow().getName());
    nodeA = node(clientA, eventsA);
    nodeB = node(clientB, eventsB);
  }

  @AfterEach
  void close() {
    nodeA.close();
    nodeB.close();
  }

  LazyRedisSessionRepository node(RedisClient client, RecordingEventPublisher events) {
    return LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer())
        .namespace(namespace)
        .clock(clock)
        .defaultMaxInactiveInterval(MAX_INACTIVE)
        .cleanupInterval(Duration.ofMillis(20))
        .eventPublisher(events)
        .build();
  }

  List<SessionDestroyedEvent> destroyed() {
    return Stream.concat(eventsA.ofType(SessionDestroyedEvent.class).stream(),
        eventsB.ofType(SessionDestroyedEvent.class).stream()).toList();
  }

  @Test
  void sweep_twoNodes_reportEachExpiredSessionExactlyOnceAndCleanUp() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      LazyRedisSessionRepository node = i % 2 == 0 ? nodeA : nodeB;
      LazySession session = node.createSession();
      session.setAttribute("cart", ShopFixtures.attributes().get("cart"));
      session.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME,
          "user" + (i % 4));
      node.save(session);
      ids.add(session.getId());
    }
    assertThat(nodeA.findByPrincipalName("user0")).hasSize(10);

    clock.advance(MAX_INACTIVE.plusSeconds(1));
    await().atMost(Duration.ofSeconds(30)).until(() -> destroyed().size() >= ids.size());
    // Both sweeps keep running a while longer: nothing is reported twice.
    for (int i = 0; i < 3; i++) {
      nodeA.cleanUpExpiredSessions();
      nodeB.cleanUpExpiredSessions();
    }

    assertThat(destroyed()).allMatch(SessionExpiredEvent.class::isInstance)
        .extracting(SessionDestroyedEvent::getSessionId)
        .containsExactlyInAnyOrderElementsOf(ids);
    for (String id : ids) {
      assertThat(raw.exists((namespace + ":s:{" + id + "}").getBytes(UTF_8))).isZero();
    }
    for (int user = 0; user < 4; user++) {
      assertThat(raw.exists((namespace + ":principal:user" + user).getBytes(UTF_8))).isZero();
    }
    assertThat(raw.zcard((namespace + ":expirations").getBytes(UTF_8))).isZero();
    assertThat(nodeA.metrics().sessionsExpired() + nodeB.metrics().sessionsExpired())
        .isEqualTo(ids.size());
  }

  @Test
  void sweep_expiredEvent_carriesMetadataButNoAttributes() {
    LazySession session = nodeA.createSession();
    session.setAttribute("cart", ShopFixtures.attributes().get("cart"));
    nodeA.save(session);

    clock.advance(MAX_INACTIVE);
    await().atMost(Duration.ofSeconds(30)).until(() -> destroyed().size() == 1);

    Session expired = destroyed().get(0).getSession();
    assertThat(expired.getId()).isEqualTo(session.getId());
    assertThat(expired.getCreationTime()).isEqualTo(session.getCreationTime());
    assertThat(expired.getLastAccessedTime()).isEqualTo(session.getLastAccessedTime());
    assertThat(expired.getMaxInactiveInterval()).isEqualTo(MAX_INACTIVE);
    assertThat(expired.getAttributeNames()).isEmpty();
  }

  @Test
  void sweep_sessionTouchedBeforeItsExpiry_staysAlive() {
    LazySession session = nodeA.createSession();
    nodeA.save(session);
    clock.advance(MAX_INACTIVE.minusMinutes(1));
    LazySession loaded = nodeB.findById(session.getId());
    loaded.setLastAccessedTime(clock.instant());
    nodeB.save(loaded);

    clock.advance(Duration.ofMinutes(2)); // past the first schedule, not past the touch
    nodeA.cleanUpExpiredSessions();
    nodeB.cleanUpExpiredSessions();

    assertThat(destroyed()).isEmpty();
    assertThat(nodeA.findById(session.getId())).isNotNull();
    clock.advance(MAX_INACTIVE);
    await().atMost(Duration.ofSeconds(30)).until(() -> destroyed().size() == 1);
  }

  @Test
  void expireClaimed_sessionSavedAfterTheSweepFoundItExpired_staysAliveAndIsRescheduled() {
    LazySession session = nodeA.createSession();
    nodeA.save(session);
    clock.advance(MAX_INACTIVE.minusMinutes(1));
    // A sweeping node whose clock runs 2 minutes ahead has just found the session expired; before
    // it claims the id, another node saves the session.
    long sweeperNow = clock.instant().plus(Duration.ofMinutes(2)).toEpochMilli();
    LazySession loaded = nodeB.findById(session.getId());
    loaded.setLastAccessedTime(clock.instant());
    nodeB.save(loaded);

    boolean reported = nodeA.expiry().expireClaimed(session.getId(), sweeperNow);

    assertThat(reported).isFalse();
    assertThat(destroyed()).isEmpty();
    assertThat(nodeB.findById(session.getId())).isNotNull();
    assertThat(raw.zscore((namespace + ":expirations").getBytes(UTF_8),
        session.getId().getBytes(UTF_8)))
        .isEqualTo((double) clock.instant().plus(MAX_INACTIVE).toEpochMilli());
  }

  @Test
  void sweep_listenerThrowsAnError_keepsSweepingAndReporting() {
    nodeA.close();
    nodeB.close();
    List<ApplicationEvent> seen = new CopyOnWriteArrayList<>();
    ApplicationEventPublisher failingOnce = event -> {
      seen.add((ApplicationEvent) event);
      if (seen.size() == 1) {
        throw new LinkageError("a listener failed with an Error");
      }
    };
    nodeA = LazyRedisSessionRepository.builder(clientA).serializer(TestRedis.serializer())
        .namespace(namespace).clock(clock).defaultMaxInactiveInterval(MAX_INACTIVE)
        .cleanupInterval(Duration.ofMillis(20)).eventPublisher(failingOnce).build();
    nodeB = LazyRedisSessionRepository.builder(clientB).serializer(TestRedis.serializer())
        .namespace(namespace).clock(clock).defaultMaxInactiveInterval(MAX_INACTIVE)
        .cleanupInterval(Duration.ZERO).build();
    LazySession first = nodeB.createSession();
    nodeB.save(first);
    clock.advance(Duration.ofMinutes(1));
    LazySession second = nodeB.createSession();
    nodeB.save(second);

    clock.advance(MAX_INACTIVE.minusSeconds(30)); // only the first is due
    await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 1);
    clock.advance(Duration.ofMinutes(1));
    await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 2);

    assertThat(seen).extracting(event -> ((SessionExpiredEvent) event).getSessionId())
        .containsExactly(first.getId(), second.getId());
  }

  @Test
  void deleteById_whileASweepHoldsTheClaim_reportsTheSessionOnce() {
    LazySession session = nodeA.createSession();
    nodeA.save(session);
    byte[] schedule = (namespace + ":expirations").getBytes(UTF_8);
    raw.zrem(schedule, session.getId().getBytes(UTF_8)); // a sweep on node B claims the id

    nodeA.deleteById(session.getId());
    nodeB.expiry().expireAfterClaim(session.getId(), clock.millis()); // then the sweep goes on

    assertThat(destroyed()).singleElement()
        .extracting(SessionDestroyedEvent::getSessionId).isEqualTo(session.getId());
    assertThat(nodeA.findById(session.getId())).isNull();
  }

  @Test
  void deleteById_sessionThatNeverExpires_isReportedAsDeleted() {
    LazySession session = nodeA.createSession();
    session.setMaxInactiveInterval(Duration.ofSeconds(-1));
    nodeA.save(session);

    nodeB.deleteById(session.getId());

    assertThat(destroyed()).singleElement().isInstanceOf(SessionDeletedEvent.class)
        .extracting(SessionDestroyedEvent::getSessionId).isEqualTo(session.getId());
  }

  @Test
  void sweep_hashAlreadyDroppedByRedis_stillReportsItOnce() {
    LazySession session = nodeA.createSession();
    nodeA.save(session);
    raw.del((namespace + ":s:{" + session.getId() + "}").getBytes(UTF_8)); // as its TTL would

    clock.advance(MAX_INACTIVE);
    await().atMost(Duration.ofSeconds(30)).until(() -> destroyed().size() == 1);

    assertThat(destroyed().get(0)).isInstanceOf(SessionExpiredEvent.class)
        .extracting(SessionDestroyedEvent::getSessionId).isEqualTo(session.getId());
  }

  @Test
  void deleteById_expiredSession_isLeftToTheSweepAndReportedAsExpired() {
    LazySession session = nodeA.createSession();
    nodeA.save(session);
    nodeA.close(); // only node B sweeps
    nodeA = node(clientA, eventsA);
    clock.advance(MAX_INACTIVE);

    nodeA.deleteById(session.getId());
    await().atMost(Duration.ofSeconds(30)).until(() -> destroyed().size() == 1);

    assertThat(destroyed()).noneMatch(SessionDeletedEvent.class::isInstance);
    assertThat(Map.of("expired", destroyed().get(0).getSessionId()))
        .containsEntry("expired", session.getId());
  }
}
