package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.FlushMode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.UuidSessionIdGenerator;
import org.springframework.session.events.SessionCreatedEvent;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * The reactive repository on real Redis, next to a servlet node: node A is a servlet repository,
 * node B the reactive face of a servlet repository of its own (own client, own connections, own
 * near cache), so every test also shows that the two kinds of node share sessions.
 */
class LazyReactiveRedisSessionRepositoryIT {
  static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  LazyReactiveRedisSessionRepository reactive() {
    return LazyReactiveRedisSessionRepository.of(nodes.b());
  }

  /**
   * Saves from both nodes at once, each adding an attribute of its own to the pack of one session:
   * they rewrite the pack under each other, so saves are rebased and sent again (after a pause on
   * Reactor's timer from the second conflict in a row on); none gives up and no change is lost.
   */
  @Test
  void save_concurrentSavesRewritingOnePack_noChangeLost() {
    LazyReactiveRedisSessionRepository a = LazyReactiveRedisSessionRepository.of(nodes.a());
    LazyReactiveRedisSessionRepository b = LazyReactiveRedisSessionRepository.of(nodes.b());
    LazySession session = a.createSession().block();
    session.setAttribute("seed", "x");
    a.save(session).block();
    String id = session.getId();
    int saves = 32;

    java.util.List<Integer> saved = reactor.core.publisher.Flux.range(0, saves).flatMap(i -> {
      LazyReactiveRedisSessionRepository node = i % 2 == 0 ? a : b;
      return node.findById(id).flatMap(found -> {
        found.setAttribute("k" + i, i);
        return node.save(found);
      }).thenReturn(i);
    }, saves).collectList().block(Duration.ofSeconds(60));

    assertThat(saved).hasSize(saves);
    LazySession stored = nodes.a().findById(id);
    for (int i = 0; i < saves; i++) {
      assertThat((Object) stored.getAttribute("k" + i)).as("k" + i).isEqualTo(i);
    }
  }

  @Test
  void save_newSession_isReadByTheServletNode() {
    LazyReactiveRedisSessionRepository b = reactive();
    LazySession session = b.createSession().block();
    ShopFixtures.attributes().forEach(session::setAttribute);

    b.save(session).block();

    LazySession read = nodes.a().findById(session.getId());
    assertThat(read).isNotNull();
    ShopFixtures.attributes().forEach((name, value) ->
        assertThat((Object) read.getAttribute(name)).isEqualTo(value));
    assertThat(nodes.eventsB().ofType(SessionCreatedEvent.class)).hasSize(1);
  }

  /** A session created and saved with a cart, then its id changed and saved: the two ids. */
  private static String[] createdAndChangedIds(LazyReactiveRedisSessionRepository b) {
    LazySession session = b.createSession().block();
    session.setAttribute("cart", "two books");
    b.save(session).block();
    String created = session.getId();
    String changed = session.changeSessionId();
    b.save(session).block();
    return new String[] {created, changed};
  }

  @Test
  void createSession_defaultGenerator_is22Base64urlCharactersAndSoIsAChangedId() {
    String[] ids = createdAndChangedIds(reactive());
    String created = ids[0];
    String changed = ids[1];

    assertThat(created).matches("[A-Za-z0-9_-]{22}");
    assertThat(changed).matches("[A-Za-z0-9_-]{22}").isNotEqualTo(created);
    assertThat(nodes.a().findById(changed).<String>getAttribute("cart")).isEqualTo("two books");
  }

  @Test
  void createSession_springsUuidGenerator_isAUuidAndSoIsAChangedId() {
    nodes.configure(builder -> builder.sessionIdGenerator(UuidSessionIdGenerator.getInstance()));
    String[] ids = createdAndChangedIds(reactive());
    String created = ids[0];
    String changed = ids[1];

    assertThat(UUID.fromString(created).toString()).isEqualTo(created);
    assertThat(UUID.fromString(changed).toString()).isEqualTo(changed);
    assertThat(nodes.a().findById(changed).<String>getAttribute("cart")).isEqualTo("two books");
  }

  @Test
  void findById_sessionOfTheServletNode_readsAndChangesIt() {
    LazySession created = nodes.a().createSession();
    created.setAttribute("cart", "two books");
    created.setAttribute("theme", "dark");
    nodes.a().save(created);
    LazyReactiveRedisSessionRepository b = reactive();

    LazySession read = b.findById(created.getId()).block();
    assertThat(read).isNotNull();
    assertThat((String) read.getAttribute("cart")).isEqualTo("two books");
    read.setAttribute("cart", "three books");
    read.removeAttribute("theme");
    b.save(read).block();

    LazySession again = nodes.a().findById(created.getId());
    assertThat((String) again.getAttribute("cart")).isEqualTo("three books");
    assertThat(again.getAttributeNames()).containsExactly("cart");
  }

  @Test
  void findById_missingOrImplausibleId_completesEmpty() {
    LazyReactiveRedisSessionRepository b = reactive();

    assertThat(b.findById("4a1bd2a4-0ad2-4c4e-9a63-9c1f1b9a9f00").blockOptional()).isEmpty();
    assertThat(b.findById("not an id\n").blockOptional()).isEmpty();
  }

  @Test
  void findById_twice_secondIsConfirmedFromTheNearCache() {
    LazySession created = nodes.a().createSession();
    created.setAttribute("cart", "two books");
    nodes.a().save(created);
    LazyReactiveRedisSessionRepository b = reactive();
    b.findById(created.getId()).block();
    long hits = b.metrics().nearCacheHits();

    LazySession again = b.findById(created.getId()).block();

    assertThat(b.metrics().nearCacheHits()).isEqualTo(hits + 1);
    assertThat((String) again.getAttribute("cart")).isEqualTo("two books");
  }

  @Test
  void findById_onRedis7_callsTheFindFunctionAndFallsBackToEvalshaWhenItIsGone() {
    redis.assumeAtLeast(7, 0, "Redis functions (FCALL)");
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      CommandStats stats = new CommandStats(connection.sync());
      LazySession created = nodes.a().createSession();
      created.setAttribute("cart", "two books");
      nodes.a().save(created);
      LazyReactiveRedisSessionRepository b = reactive();

      Map<String, Long> found = stats.during(() -> b.findById(created.getId()).block());
      connection.sync().functionFlush(FlushMode.SYNC);
      Map<String, Long> afterFlush = stats.during(() -> b.findById(created.getId()).block());
      Map<String, Long> next = stats.during(() -> b.findById(created.getId()).block());

      assertThat(found).containsEntry("fcall", 1L).doesNotContainKey("evalsha");
      // FCALL answered "Function not found"; the same find went by SHA, and so do the next ones.
      assertThat(afterFlush).containsEntry("fcall", 1L).containsEntry("evalsha", 1L);
      assertThat(next).containsEntry("evalsha", 1L).doesNotContainKey("fcall");
      assertThat((String) b.findById(created.getId()).block().getAttribute("cart"))
          .isEqualTo("two books");
    } finally {
      client.shutdown();
      nodes.a().findById("registers-the-function-again"); // node A's next find does, for others
    }
  }

  @Test
  void save_readOnlyRequest_sendsNothing() {
    LazySession created = nodes.a().createSession();
    created.setAttribute("cart", "two books");
    nodes.a().save(created);
    LazyReactiveRedisSessionRepository b = reactive();
    LazySession read = b.findById(created.getId()).block();
    read.getAttribute("cart");
    long roundTrips = b.metrics().roundTrips();

    b.save(read).block();

    assertThat(b.metrics().roundTrips()).isEqualTo(roundTrips);
    assertThat(b.metrics().savesSkipped()).isEqualTo(1);
  }

  @Test
  void save_attributeChangedInPlace_isWritten() {
    LazySession created = nodes.a().createSession();
    created.setAttribute("items", new java.util.ArrayList<>(java.util.List.of("book")));
    nodes.a().save(created);
    LazyReactiveRedisSessionRepository b = reactive();
    LazySession read = b.findById(created.getId()).block();
    java.util.List<String> items = read.getAttribute("items");

    items.add("pen");
    b.save(read).block();

    assertThat((Object) nodes.a().findById(created.getId()).getAttribute("items"))
        .isEqualTo(java.util.List.of("book", "pen"));
  }

  @Test
  void deleteById_liveSession_removesItAndPublishesDeleted() {
    LazySession created = nodes.a().createSession();
    created.setAttribute(PRINCIPAL, "alice");
    nodes.a().save(created);
    LazyReactiveRedisSessionRepository b = reactive();

    b.deleteById(created.getId()).block();

    assertThat(nodes.a().findById(created.getId())).isNull();
    assertThat(nodes.a().findByPrincipalName("alice")).isEmpty();
    assertThat(nodes.eventsB().ofType(SessionDeletedEvent.class))
        .singleElement().extracting(event -> event.getSessionId()).isEqualTo(created.getId());
  }

  @Test
  void save_changedSessionId_movesSessionAndPrincipalToTheNewId() {
    LazySession created = nodes.a().createSession();
    created.setAttribute(PRINCIPAL, "alice");
    created.setAttribute("cart", "two books");
    nodes.a().save(created);
    LazyReactiveRedisSessionRepository b = reactive();
    LazySession read = b.findById(created.getId()).block();

    String newId = read.changeSessionId();
    b.save(read).block();

    assertThat(nodes.a().findById(created.getId())).isNull();
    LazySession moved = nodes.a().findById(newId);
    assertThat((String) moved.getAttribute("cart")).isEqualTo("two books");
    assertThat(b.findByPrincipalName("alice").block()).containsOnlyKeys(newId);
    assertThat(nodes.destroyed()).isEmpty();
  }

  @Test
  void findByPrincipalName_sessionsOfBothNodes_findsThemAndDropsStaleEntries() {
    LazySession onA = nodes.a().createSession();
    onA.setAttribute(PRINCIPAL, "alice");
    nodes.a().save(onA);
    LazyReactiveRedisSessionRepository b = reactive();
    LazySession onB = b.createSession().block();
    onB.setAttribute(PRINCIPAL, "alice");
    b.save(onB).block();
    LazySession other = b.createSession().block();
    other.setAttribute(PRINCIPAL, "bob");
    b.save(other).block();
    // A stale entry: the hash and its schedule entry are gone, the index entry is not (as when
    // Redis evicted the hash and the sweep removed it before the index was cleaned).
    nodes.raw().del(nodes.sessionKey(other.getId()));
    nodes.raw().zrem((nodes.namespace() + ":expirations").getBytes(), other.getId().getBytes());
    nodes.raw().sadd((nodes.namespace() + ":principal:alice").getBytes(),
        other.getId().getBytes());

    Map<String, LazySession> found = b.findByPrincipalName("alice").block();

    assertThat(found).containsOnlyKeys(onA.getId(), onB.getId());
    assertThat(nodes.raw().smembers((nodes.namespace() + ":principal:alice").getBytes()))
        .hasSize(2);
    assertThat(b.findByIndexNameAndIndexValue("other", "alice").block()).isEmpty();
    assertThat(nodes.a().findByPrincipalName("alice")).containsOnlyKeys(onA.getId(), onB.getId());
  }

  @Test
  void findById_afterMaxInactiveInterval_completesEmptyAndTheSweepReportsItOnce() {
    LazyReactiveRedisSessionRepository b = reactive();
    LazySession session = b.createSession().block();
    session.setMaxInactiveInterval(Duration.ofMinutes(1));
    session.setAttribute("cart", "two books");
    b.save(session).block();

    nodes.clock().advance(Duration.ofMinutes(2));

    assertThat(b.findById(session.getId()).blockOptional()).isEmpty();
    assertThat(b.cleanUpExpiredSessions().block()).isEqualTo(1);
    assertThat(nodes.a().cleanUpExpiredSessions()).isZero();
    assertThat(nodes.eventsB().ofType(SessionExpiredEvent.class))
        .singleElement().extracting(event -> event.getSessionId()).isEqualTo(session.getId());
  }

  @Test
  void save_sessionDeletedByTheOtherNodeMeanwhile_doesNotResurrectIt() {
    LazySession created = nodes.a().createSession();
    created.setAttribute("cart", "two books");
    nodes.a().save(created);
    LazyReactiveRedisSessionRepository b = reactive();
    LazySession read = b.findById(created.getId()).block();
    nodes.a().deleteById(created.getId());

    read.setAttribute("cart", "three books");
    b.save(read).block();

    assertThat(nodes.a().findById(created.getId())).isNull();
    assertThat(nodes.raw().exists(nodes.sessionKey(created.getId()))).isZero();
  }

  @Test
  void save_redisLostTheScripts_reloadsThemOnce() {
    LazyReactiveRedisSessionRepository b = reactive();
    LazySession session = b.createSession().block();
    session.setAttribute("cart", "two books");
    nodes.raw().scriptFlush();

    b.save(session).block();

    assertThat(b.metrics().scriptReloads()).isEqualTo(1);
    assertThat(nodes.a().findById(session.getId())).isNotNull();
  }

  @Test
  void of_repositoryWithDurability_isRefusedNamingTheSetting() {
    LazyRedisSessionRepository durable = nodes.another(nodes.clientB(), nodes.eventsB(),
        builder -> builder.durability(1, Duration.ofMillis(100)));

    assertThatThrownBy(() -> LazyReactiveRedisSessionRepository.of(durable))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lazysession.durability.replicas");
  }

  @Test
  void of_repositoryTakingOverSpringSessionDataRedis_isRefusedNamingTheSetting() {
    LazyRedisSessionRepository migrating = nodes.another(nodes.clientB(), nodes.eventsB(),
        builder -> builder.migrateFrom(SpringSessionDataRedis.defaults()));

    assertThatThrownBy(() -> LazyReactiveRedisSessionRepository.of(migrating))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lazysession.migrate-from");
  }

  @Test
  void of_repositoryFlushingImmediately_isRefusedNamingTheSetting() {
    LazyRedisSessionRepository immediate = nodes.another(nodes.clientB(), nodes.eventsB(),
        builder -> builder.flushMode(org.springframework.session.FlushMode.IMMEDIATE));

    assertThatThrownBy(() -> LazyReactiveRedisSessionRepository.of(immediate))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spring.session.data.redis.flush-mode");
  }
}
