package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.config.ClientsFromProperties;
import io.lazysession.testing.RedisServerExtension;
import io.lazysession.testing.RedisNode;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.events.SessionDeletedEvent;

/**
 * Durability on a Redis Cluster for the deletes that go with another session's save: an eviction
 * by the limit of sessions per principal, and the removal of the old hash by an id change. Each is
 * on the primary of the session it deletes, which is not the primary of the save that follows it,
 * so that save's WAIT does not cover it: the delete is followed by a WAIT of its own, on its own
 * primary (counted by that primary's {@code INFO commandstats}).
 */
class DurableClusterIT {
  static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
  private static final Pattern WAIT_CALLS = Pattern.compile("cmdstat_wait:calls=(\\d+)");

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.cluster();

  static RedisClusterClient client;

  @BeforeAll
  static void connect() {
    client = (RedisClusterClient) ClientsFromProperties.create(Map.of(
        "spring.data.redis.cluster.nodes", redis.clusterNodes().stream()
            .map(node -> node.host() + ":" + node.port()).collect(Collectors.joining(",")),
        "spring.data.redis.timeout", "5s"));
  }

  @AfterAll
  static void shutdown() {
    client.shutdown();
  }

  private static LazyRedisSessionRepository node(UnaryOperator<LazyRedisSessionRepositoryBuilder> change,
      RecordingEventPublisher events) {
    return change.apply(LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(TestRedis.uniqueNamespace("durable-cluster"))
        .durability(1, Duration.ofSeconds(2)).eventPublisher(events)
        .cleanupInterval(Duration.ZERO)).build();
  }

  /** The primary that owns session {@code id}'s hash. */
  private static RedisNode primaryOf(LazyRedisSessionRepository repository, String id) {
    int slot = SlotHash.getSlot(repository.shared().store().keys().session(id));
    client.refreshPartitions();
    int port = client.getPartitions().getPartitionBySlot(slot).getUri().getPort();
    return redis.clusterNodes().stream().filter(node -> node.port() == port).findFirst()
        .orElseThrow();
  }

  /** How many WAITs {@code node} has run. */
  private static long waits(RedisNode node) {
    Matcher calls = WAIT_CALLS.matcher(redis.sync(node,
        (RedisCommands<String, String> commands) -> commands.info("commandstats")));
    return calls.find() ? Long.parseLong(calls.group(1)) : 0;
  }

  @Test
  void eviction_onAnotherPrimaryThanTheSignIn_isWaitedForOnItsOwnPrimary() {
    RecordingEventPublisher events = new RecordingEventPublisher();
    try (LazyRedisSessionRepository repository =
        node(builder -> builder.sessionLimit(SessionLimit.evictOldest(1)), events)) {
      LazySession first = repository.createSession();
      first.setAttribute(PRINCIPAL, "alice");
      repository.save(first);
      RedisNode firstPrimary = primaryOf(repository, first.getId());
      LazySession second = repository.createSession();
      while (primaryOf(repository, second.getId()).port() == firstPrimary.port()) {
        second = repository.createSession();
      }
      second.setAttribute(PRINCIPAL, "alice");
      long before = waits(firstPrimary);

      repository.save(second); // evicts the first session, on the first session's primary

      assertThat(repository.findById(first.getId())).isNull();
      assertThat(events.ofType(SessionDeletedEvent.class)).singleElement()
          .extracting(SessionDeletedEvent::getSessionId).isEqualTo(first.getId());
      assertThat(waits(firstPrimary) - before).as("WAITs on the evicted session's primary")
          .isEqualTo(1);
    }
  }

  @Test
  void changeSessionId_newIdOnAnotherPrimary_theOldHashRemovalIsWaitedForOnItsOwnPrimary() {
    try (LazyRedisSessionRepository repository =
        node(builder -> builder, new RecordingEventPublisher())) {
      for (int attempt = 0; ; attempt++) {
        LazySession session = repository.createSession();
        session.setAttribute("cart", "two books");
        repository.save(session);
        String oldId = session.getId();
        RedisNode oldPrimary = primaryOf(repository, oldId);
        LazySession loaded = repository.findById(oldId);
        String newId = loaded.changeSessionId();
        if (primaryOf(repository, newId).port() == oldPrimary.port()) {
          assertThat(attempt).as("ids on another primary than the old one").isLessThan(30);
          continue;
        }
        long before = waits(oldPrimary);

        repository.save(loaded);

        assertThat(repository.findById(oldId)).isNull();
        assertThat(repository.findById(newId).<String>getAttribute("cart"))
            .isEqualTo("two books");
        assertThat(waits(oldPrimary) - before).as("WAITs on the old id's primary").isEqualTo(1);
        return;
      }
    }
  }
}
