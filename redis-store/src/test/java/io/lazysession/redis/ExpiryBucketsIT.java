package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionDestroyedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * The expiry schedule of Redis format 2, per-minute sets (docs/redis-layout.md, "Expiry
 * schedule"): two nodes sweeping at once on one hand-moved clock report each session exactly once,
 * across minute buckets, across the switch from format 1's sorted set, and against deletes.
 */
class ExpiryBucketsIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final Duration MAX_INACTIVE = Duration.ofMinutes(5);
  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis,
      builder -> builder.defaultMaxInactiveInterval(MAX_INACTIVE));

  @Test
  void twoSweepingNodes_sessionsExpiringAcrossTheBucketChange_eachReportedOnce() throws Exception {
    finalizeAt2();
    List<String> ids = new ArrayList<>();
    Map<String, Long> due = new HashMap<>();
    // Sessions created every 10 s over two minutes and a half: due in three or four minutes apart.
    for (int step = 0; step < 15; step++) {
      for (int i = 0; i < 4; i++) {
        LazyRedisSessionRepository node = i % 2 == 0 ? nodes.a() : nodes.b();
        LazySession session = node.createSession();
        session.setAttribute("n", step * 4 + i);
        node.save(session);
        ids.add(session.getId());
        due.put(session.getId(), nodes.clock().millis() + MAX_INACTIVE.toMillis());
      }
      nodes.clock().advance(Duration.ofSeconds(10));
    }
    assertThat(nodes.raw().exists(zset())).as("nothing in format 1's sorted set").isZero();
    assertThat(bucketKeys()).as("per-minute sets").isNotEmpty();
    // A third of them touched on the other node: their due time moves past the next bucket change.
    for (int i = 0; i < ids.size(); i += 3) {
      LazyRedisSessionRepository node = i % 2 == 0 ? nodes.b() : nodes.a();
      LazySession loaded = node.findById(ids.get(i));
      loaded.setLastAccessedTime(nodes.clock().instant());
      loaded.setAttribute("touched", true);
      node.save(loaded);
      due.put(ids.get(i), nodes.clock().millis() + MAX_INACTIVE.toMillis());
    }

    long end = due.values().stream().mapToLong(Long::longValue).max().orElseThrow()
        + ExpiryBuckets.MINUTE * 2;
    while (nodes.clock().millis() < end) {
      nodes.clock().advance(Duration.ofSeconds(7));
      long now = nodes.clock().millis();
      sweepBothAtOnce();
      for (SessionDestroyedEvent event : nodes.destroyed()) {
        long dueAt = due.get(event.getSessionId());
        assertThat(now).as("never before it is due").isGreaterThanOrEqualTo(dueAt);
      }
      for (Map.Entry<String, Long> session : due.entrySet()) {
        if (ExpiryBuckets.minute(session.getValue()) + 1 < ExpiryBuckets.minute(now)) {
          assertThat(eventsOf(session.getKey())).as("reported within one bucket of its due time")
              .isEqualTo(1);
        }
      }
    }

    assertThat(nodes.destroyed()).allMatch(SessionExpiredEvent.class::isInstance);
    Map<String, Long> counts = nodes.destroyed().stream()
        .collect(Collectors.groupingBy(SessionDestroyedEvent::getSessionId,
            Collectors.counting()));
    assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(counts.values()).as("each exactly once").allMatch(count -> count == 1);
    assertThat(bucketKeys()).as("every bucket swept empty").isEmpty();
  }

  @Test
  void scheduledInFormat1_thenFinalized_sweptInFormat2_oneEventEach() throws Exception {
    nodes.a();
    nodes.b();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      LazyRedisSessionRepository node = i % 2 == 0 ? nodes.a() : nodes.b();
      LazySession session = node.createSession();
      node.save(session);
      ids.add(session.getId());
    }
    assertThat(nodes.raw().zcard(zset())).isEqualTo(12);
    finalizeAt2();
    nodes.clock().advance(Duration.ofMinutes(1));
    // Saved again in format 2: a new timeout moves one to a bucket; a touch leaves it where it is.
    for (int i = 0; i < 4; i++) {
      LazySession loaded = nodes.b().findById(ids.get(i));
      if (i % 2 == 0) {
        loaded.setMaxInactiveInterval(MAX_INACTIVE.plusMinutes(2));
      } else {
        loaded.setLastAccessedTime(nodes.clock().instant());
      }
      nodes.b().save(loaded);
    }
    assertThat(nodes.raw().zcard(zset())).as("moved out of the sorted set, not copied")
        .isEqualTo(10);
    // Swept by both nodes, in format 2, until every one is due.
    for (int minute = 0; minute < 12; minute++) {
      nodes.clock().advance(Duration.ofSeconds(30));
      sweepBothAtOnce();
      nodes.clock().advance(Duration.ofSeconds(30));
      sweepBothAtOnce();
    }

    assertThat(nodes.destroyed()).allMatch(SessionExpiredEvent.class::isInstance)
        .extracting(SessionDestroyedEvent::getSessionId)
        .containsExactlyInAnyOrderElementsOf(ids);
    assertThat(nodes.raw().exists(zset())).as("the sorted set drained").isZero();
    assertThat(bucketKeys()).isEmpty();
  }

  @Test
  void deleteById_whileASweepTookTheMemberOffItsBucket_reportsTheSessionOnce() {
    finalizeAt2();
    LazySession session = nodes.a().createSession();
    nodes.a().save(session);
    byte[] member = session.getId().getBytes(UTF_8);
    byte[] bucket = bucketHolding(member);
    nodes.raw().srem(bucket, member); // a sweep on node B (its clock ahead) took it

    nodes.a().deleteById(session.getId()); // live on A's clock
    boolean reported = nodes.b().shared().expiry().expireTakenFromBucket(session.getId(),
        nodes.clock().millis() + MAX_INACTIVE.toMillis() * 2); // then the sweep goes on

    assertThat(reported).isFalse();
    assertThat(nodes.destroyed()).singleElement().isInstanceOf(SessionDeletedEvent.class);
    assertThat(nodes.a().findById(session.getId())).isNull();
  }

  @Test
  void deletesRacingTwoSweeps_eachSessionReportedOnce() throws Exception {
    finalizeAt2();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      LazySession session = nodes.a().createSession();
      nodes.a().save(session);
      ids.add(session.getId());
    }
    nodes.clock().advance(Duration.ofMinutes(2));
    sweepBothAtOnce(); // each moved from the bucket of a write in flight to that of its due time
    // Half of them touched: live when the sweeps come, and deleted on either node meanwhile.
    for (int i = 0; i < ids.size(); i += 2) {
      LazySession loaded = nodes.b().findById(ids.get(i));
      loaded.setLastAccessedTime(nodes.clock().instant());
      nodes.b().save(loaded);
    }
    nodes.clock().advance(MAX_INACTIVE.minusMinutes(1));

    CompletableFuture<Void> deletes = CompletableFuture.runAsync(() -> {
      for (int i = 0; i < ids.size(); i++) {
        (i % 3 == 0 ? nodes.a() : nodes.b()).deleteById(ids.get(i));
      }
    });
    for (int round = 0; round < 6; round++) {
      nodes.clock().advance(Duration.ofSeconds(20));
      sweepBothAtOnce();
    }
    deletes.get();
    nodes.clock().advance(MAX_INACTIVE.plusMinutes(2));
    sweepBothAtOnce();

    Map<String, Long> counts = nodes.destroyed().stream()
        .collect(Collectors.groupingBy(SessionDestroyedEvent::getSessionId,
            Collectors.counting()));
    assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(counts.values()).as("deleted or expired, once").allMatch(count -> count == 1);
    assertThat(bucketKeys()).isEmpty();
  }

  static Stream<Function<LazyRedisSessionRepository, Face>> faces() {
    return Stream.of(Face::servlet, Face::reactive);
  }

  @ParameterizedTest
  @MethodSource("faces")
  void bothFaces_createInFlightBucket_timeoutChange_delete_oneEventEach(
      Function<LazyRedisSessionRepository, Face> faceOf) throws Exception {
    finalizeAt2();
    Face a = faceOf.apply(nodes.a());
    LazySession deleted = a.create();
    deleted.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "alice");
    a.save(deleted);
    LazySession shortened = a.create();
    a.save(shortened);
    long created = nodes.clock().millis();
    byte[] inFlight = nodes.a().shared().store().indexes().buckets()
        .bucket(ExpiryBuckets.minute(created + ExpirySweeper.IN_FLIGHT.toMillis()));
    assertThat(nodes.raw().smembers(inFlight)).as("a write in flight, where lookups look")
        .hasSize(2);
    assertThat(a.findByPrincipalName("alice")).containsOnlyKeys(deleted.getId());

    a.delete(deleted.getId());
    LazySession loaded = a.find(shortened.getId());
    loaded.setMaxInactiveInterval(Duration.ofMinutes(2));
    a.save(loaded);

    assertThat(nodes.raw().smembers(inFlight)).as("the delete took its member off").hasSize(1);
    assertThat(a.findByPrincipalName("alice")).isEmpty();
    for (int step = 0; step < 12; step++) {
      nodes.clock().advance(Duration.ofSeconds(30));
      sweepBothAtOnce();
    }
    assertThat(nodes.destroyed()).extracting(SessionDestroyedEvent::getSessionId)
        .containsExactly(deleted.getId(), shortened.getId());
    assertThat(nodes.destroyed().get(0)).isInstanceOf(SessionDeletedEvent.class);
    assertThat(nodes.destroyed().get(1)).isInstanceOf(SessionExpiredEvent.class);
    assertThat(bucketKeys()).isEmpty();
  }

  private static void finalizeAt2() {
    LazyRedisSessionRepository a = nodes.a();
    LazyRedisSessionRepository b = nodes.b();
    Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> a.formatStatus().nodes().size() == 2);
    assertThat(a.finalizeFormat().writes()).isEqualTo(2);
    assertThat(b.formatStatus().writes()).isEqualTo(2);
  }

  private static void sweepBothAtOnce() throws Exception {
    CompletableFuture<Integer> a = CompletableFuture.supplyAsync(nodes.a()::cleanUpExpiredSessions);
    CompletableFuture<Integer> b = CompletableFuture.supplyAsync(nodes.b()::cleanUpExpiredSessions);
    a.get();
    b.get();
  }

  private static long eventsOf(String id) {
    return nodes.destroyed().stream().filter(event -> event.getSessionId().equals(id)).count();
  }

  private static byte[] zset() {
    return (nodes.namespace() + ":expirations").getBytes(UTF_8);
  }

  private static List<String> bucketKeys() {
    List<String> found = new ArrayList<>();
    ScanIterator.scan(nodes.raw(), ScanArgs.Builder.matches(nodes.namespace() + ":expirations:*")
        .limit(1000)).forEachRemaining(key -> found.add(new String(key, UTF_8)));
    return found;
  }

  private static byte[] bucketHolding(byte[] member) {
    return bucketKeys().stream().map(key -> key.getBytes(UTF_8))
        .filter(key -> nodes.raw().sismember(key, member)).findFirst().orElseThrow();
  }
}
