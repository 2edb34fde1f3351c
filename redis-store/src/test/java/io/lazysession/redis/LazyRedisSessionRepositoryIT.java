package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.redis.ShopFixtures.Cart;
import io.lazysession.redis.ShopFixtures.Product;
import io.lazysession.redis.micrometer.LazySessionMetrics;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.reference.ReferenceSession;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.lettuce.core.api.sync.RedisCommands;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.events.SessionCreatedEvent;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The repository on a real Redis, with two repository instances standing for two nodes; every test
 * runs with the near cache on and off.
 */
@ParameterizedClass(name = "nearCache={0}")
@ValueSource(booleans = {true, false})
class LazyRedisSessionRepositoryIT {
  @Parameter
  boolean nearCache;


  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

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
    nodeA = node(clientA, CodecKind.KRYO, eventsA);
    nodeB = node(clientB, CodecKind.KRYO, eventsB);
  }

  LazyRedisSessionRepository node(RedisClient client, CodecKind codec,
      RecordingEventPublisher events) {
    return LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer(codec))
        .namespace(namespace)
        .clock(clock)
        .cleanupInterval(Duration.ZERO)
        .touchInterval(Duration.ofSeconds(10))
        .nearCacheMaxBytes(nearCache ? 1 << 20 : 0)
        .eventPublisher(events)
        .build();
  }

  @AfterEach
  void close() {
    nodeA.close();
    nodeB.close();
  }

  byte[] sessionKey(String id) {
    return (namespace + ":s:{" + id + "}").getBytes(UTF_8);
  }

  LazySession savedSession(LazyRedisSessionRepository node, Map<String, Object> attributes) {
    LazySession session = node.createSession();
    attributes.forEach(session::setAttribute);
    node.save(session);
    return session;
  }

  @Test
  void findById_sessionSavedOnOtherNode_readsEveryAttributeKind() {
    Map<String, Object> attributes = ShopFixtures.attributes();
    LazySession created = savedSession(nodeA, attributes);

    LazySession loaded = nodeB.findById(created.getId());

    assertThat(loaded).isNotNull();
    assertThat(loaded.getAttributeNames()).containsExactlyInAnyOrderElementsOf(attributes.keySet());
    attributes.forEach((name, value) -> assertThat((Object) loaded.getAttribute(name))
        .as(name).isEqualTo(value));
    assertThat(loaded.getCreationTime()).isEqualTo(created.getCreationTime());
    assertThat(loaded.getMaxInactiveInterval()).isEqualTo(created.getMaxInactiveInterval());
  }

  @Test
  void save_referenceSessionChangedOnOtherNodeWithOtherCodec_everyAttributeSurvives() {
    Map<String, Object> reference = ReferenceSession.create();
    LazySession created = savedSession(nodeA, reference);
    try (LazyRedisSessionRepository jdkNode = node(clientB, CodecKind.JDK, eventsB)) {
      LazySession onB = jdkNode.findById(created.getId());
      reference.keySet().forEach(name -> assertThat((Object) onB.getAttribute(name)).as(name)
          .isEqualTo(reference.get(name)));
      onB.setAttribute("checkoutStep", "PAYMENT");
      jdkNode.save(onB);
    }

    LazySession onA = nodeA.findById(created.getId());

    assertThat(onA.getAttributeNames()).containsExactlyInAnyOrderElementsOf(reference.keySet());
    reference.forEach((name, value) -> {
      if (!name.equals("checkoutStep")) {
        assertThat((Object) onA.getAttribute(name)).as(name).isEqualTo(value);
      }
    });
    assertThat(onA.<String>getAttribute("checkoutStep")).isEqualTo("PAYMENT");
  }

  @Test
  void findById_cartWithSharedProduct_keepsTheSharedReference() {
    LazySession created = savedSession(nodeA, ShopFixtures.attributes());

    Cart cart = nodeB.findById(created.getId()).getAttribute("cart");

    assertThat(cart.lines.get(0).product).isSameAs(cart.lines.get(2).product);
  }

  @Test
  void save_changedOnOtherNode_isSeenByFirstNode() {
    LazySession created = savedSession(nodeA, ShopFixtures.attributes());
    LazySession onB = nodeB.findById(created.getId());
    Cart cart = onB.getAttribute("cart");
    cart.add(new Product("IN-2", "Ink", new BigDecimal("7.50")), 1); // mutated in place
    onB.setAttribute("currency", "CHF");
    onB.removeAttribute("avatar");
    nodeB.save(onB);

    LazySession onA = nodeA.findById(created.getId());

    assertThat(onA.<String>getAttribute("currency")).isEqualTo("CHF");
    assertThat(onA.<Cart>getAttribute("cart").lines).hasSize(4)
        .last().extracting(line -> line.product.sku()).isEqualTo("IN-2");
    assertThat(onA.getAttributeNames()).doesNotContain("avatar");
    assertThat(onA.<Integer>getAttribute("visits")).isEqualTo(42);
  }

  @Test
  void save_removedAttribute_deletesTheFieldInsteadOfStoringAnEmptyValue() {
    LazySession created = savedSession(nodeA, Map.of("a", "x", "b", "y"));
    LazySession loaded = nodeA.findById(created.getId());
    loaded.removeAttribute("a");
    nodeA.save(loaded);

    assertThat(raw.hexists(sessionKey(created.getId()), "a".getBytes(UTF_8))).isFalse();
    assertThat(raw.hexists(sessionKey(created.getId()), "b".getBytes(UTF_8))).isTrue();
  }

  @Test
  void save_attributeRemovedSetAndRemovedAgain_deletesTheStoredField() {
    LazySession created = savedSession(nodeA, Map.of("a", "x", "b", "y"));
    LazySession loaded = nodeB.findById(created.getId());
    loaded.removeAttribute("a");
    loaded.setAttribute("a", "z");
    loaded.removeAttribute("a");
    nodeB.save(loaded);

    assertThat(raw.hexists(sessionKey(created.getId()), "a".getBytes(UTF_8))).isFalse();
    assertThat(nodeA.findById(created.getId()).getAttributeNames()).containsExactly("b");
  }

  @Test
  void save_attributeWrittenBySameInstanceThenRemoved_deletesTheStoredField() {
    LazySession session = savedSession(nodeA, Map.of("b", "y"));
    session.setAttribute("a", "x");
    nodeA.save(session);
    session.removeAttribute("a");
    session.setAttribute("a", "z");
    session.removeAttribute("a");
    nodeA.save(session);

    assertThat(raw.hexists(sessionKey(session.getId()), "a".getBytes(UTF_8))).isFalse();
    assertThat(nodeB.findById(session.getId()).getAttributeNames()).containsExactly("b");
  }

  @Test
  void save_timeoutChangedOnOtherNodeMeanwhile_keepsTheChangedTimeoutAndTtl() {
    LazySession created = savedSession(nodeA, Map.of("a", "x"));
    LazySession onA = nodeA.findById(created.getId());
    LazySession onB = nodeB.findById(created.getId());
    onA.setMaxInactiveInterval(Duration.ofMinutes(5));
    nodeA.save(onA);
    onB.setAttribute("b", "y");

    nodeB.save(onB);

    assertThat(nodeA.findById(created.getId()).getMaxInactiveInterval())
        .isEqualTo(Duration.ofMinutes(5));
    assertThat(raw.hget(sessionKey(created.getId()), "#m".getBytes(UTF_8)))
        .asString(UTF_8).isEqualTo("300");
    assertThat(raw.pttl(sessionKey(created.getId()))).isLessThanOrEqualTo(
        Duration.ofMinutes(5).plus(LazyRedisSessionRepository.DEFAULT_EXPIRY_GRACE).toMillis());
    assertThat(raw.zscore((namespace + ":expirations").getBytes(UTF_8),
        created.getId().getBytes(UTF_8)))
        .isEqualTo((double) created.getLastAccessedTime().plus(Duration.ofMinutes(5)).toEpochMilli());
  }

  @Test
  void save_thousandsOfAttributes_areWrittenAndRemovedInOneSave() {
    LazySession created = nodeA.createSession();
    for (int i = 0; i < 6_000; i++) {
      created.setAttribute("attribute-" + i, i);
    }
    nodeA.save(created);
    LazySession loaded = nodeB.findById(created.getId());
    assertThat(loaded.getAttributeNames()).hasSize(6_000);
    assertThat(loaded.<Integer>getAttribute("attribute-5999")).isEqualTo(5_999);

    for (int i = 0; i < 6_000; i++) {
      loaded.removeAttribute("attribute-" + i);
    }
    nodeB.save(loaded);

    assertThat(nodeA.findById(created.getId()).getAttributeNames()).isEmpty();
    assertThat(raw.hlen(sessionKey(created.getId()))).isEqualTo(4); // #c #a #m #v
  }

  @Test
  void save_attributeNeverRead_isNotReencoded() {
    LazySession created = savedSession(nodeA, ShopFixtures.attributes());
    byte[] customerBefore = raw.hget(sessionKey(created.getId()), "customer".getBytes(UTF_8));
    // A node writing JDK serialization would store different bytes if it re-encoded "customer".
    try (LazyRedisSessionRepository jdkNode = node(clientB, CodecKind.JDK, eventsB)) {
      LazySession loaded = jdkNode.findById(created.getId());
      loaded.getAttribute("cart");
      loaded.setAttribute("currency", "GBP");
      jdkNode.save(loaded);
    }

    assertThat(raw.hget(sessionKey(created.getId()), "customer".getBytes(UTF_8)))
        .isEqualTo(customerBefore);
  }

  @Test
  void save_attributeReadButUnchanged_writesNothing() {
    LazySession created = savedSession(nodeA, ShopFixtures.attributes());
    LazySession loaded = nodeB.findById(created.getId());
    loaded.getAttribute("cart");
    loaded.getAttribute("customer");
    long saves = nodeB.metrics().saves();

    nodeB.save(loaded);

    assertThat(nodeB.metrics().saves()).isEqualTo(saves);
    assertThat(nodeB.metrics().savesSkipped()).isEqualTo(1);
  }

  @Test
  void save_attributeMutatedInPlace_isWritten() {
    LazySession created = savedSession(nodeA, ShopFixtures.attributes());
    LazySession loaded = nodeB.findById(created.getId());
    loaded.<Cart>getAttribute("cart").coupon = "SPRING25";
    nodeB.save(loaded);

    assertThat(nodeA.findById(created.getId()).<Cart>getAttribute("cart").coupon)
        .isEqualTo("SPRING25");
  }

  @Test
  void save_readOnlyWithinTouchInterval_keepsStoredAccessTime() {
    LazySession created = savedSession(nodeA, Map.of("a", "x"));
    clock.advance(Duration.ofSeconds(5));
    LazySession loaded = nodeB.findById(created.getId());
    loaded.setLastAccessedTime(clock.instant());
    nodeB.save(loaded);
    assertThat(nodeA.findById(created.getId()).getLastAccessedTime())
        .isEqualTo(created.getLastAccessedTime());

    clock.advance(Duration.ofSeconds(6));
    loaded = nodeB.findById(created.getId());
    loaded.setLastAccessedTime(clock.instant());
    nodeB.save(loaded);
    assertThat(nodeA.findById(created.getId()).getLastAccessedTime()).isEqualTo(clock.instant());
  }

  @Test
  void save_readOnlySessionWithShorterOwnTimeout_isTouchedWithinATenthOfIt() {
    LazySession created = nodeA.createSession();
    created.setMaxInactiveInterval(Duration.ofSeconds(60)); // nodes: touch interval 10s
    nodeA.save(created);
    clock.advance(Duration.ofSeconds(7));

    LazySession loaded = nodeB.findById(created.getId());
    loaded.setLastAccessedTime(clock.instant());
    nodeB.save(loaded);

    assertThat(nodeA.findById(created.getId()).getLastAccessedTime()).isEqualTo(clock.instant());
  }

  @Test
  void save_sessionDeletedMeanwhile_doesNotResurrectIt() {
    LazySession created = savedSession(nodeA, Map.of("a", "x"));
    LazySession loaded = nodeB.findById(created.getId());
    nodeA.deleteById(created.getId());
    loaded.setAttribute("b", "y");

    nodeB.save(loaded);

    assertThat(raw.exists(sessionKey(created.getId()))).isZero();
    assertThat(nodeA.findById(created.getId())).isNull();
  }

  @Test
  void current_otherSessionsLookedUpLaterInTheRequest_staysTheRequestsOwnSession() {
    String principal = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
    LazySession mine = savedSession(nodeA, Map.of(principal, "ada"));
    LazySession other = savedSession(nodeA, Map.of(principal, "ada"));
    RequestContextHolder.setRequestAttributes(
        new ServletRequestAttributes(new MockHttpServletRequest()));
    try {
      LazySession loaded = nodeA.findById(mine.getId());
      nodeA.findByPrincipalName("ada");
      nodeA.findById(other.getId());

      assertThat(LazySession.current()).containsSame(loaded);
    } finally {
      RequestContextHolder.resetRequestAttributes();
    }
  }

  /** A node whose every new session gets the id {@code fixed}, standing for a re-sent create. */
  LazyRedisSessionRepository fixedIdNode() {
    return LazyRedisSessionRepository.builder(clientA)
        .serializer(TestRedis.serializer())
        .namespace(namespace)
        .clock(clock)
        .cleanupInterval(Duration.ZERO)
        .nearCacheMaxBytes(nearCache ? 1 << 20 : 0)
        .sessionIdGenerator(() -> "fixed")
        .build();
  }

  @Test
  void save_sameCreateArrivingTwice_succeedsOnce() {
    try (LazyRedisSessionRepository node = fixedIdNode()) {
      LazySession first = node.createSession();
      first.setAttribute("a", "x");
      node.save(first);
      // The same create again, as Lettuce re-sends it after a reconnect that lost its answer.
      LazySession again = node.createSession();
      again.setAttribute("a", "x");

      node.save(again);

      LazySession stored = nodeB.findById("fixed");
      assertThat(stored.<String>getAttribute("a")).isEqualTo("x");
      assertThat(stored.version()).isEqualTo(1);
    }
  }

  @Test
  void save_newSessionOverAnotherSessionsId_failsAndLeavesTheIndexesAlone() {
    try (LazyRedisSessionRepository node = fixedIdNode()) {
      String principal = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
      LazySession first = node.createSession();
      first.setAttribute(principal, "ada");
      node.save(first);
      clock.advance(Duration.ofSeconds(1));
      LazySession duplicate = node.createSession();
      duplicate.setAttribute(principal, "bob");

      assertThatThrownBy(() -> node.save(duplicate)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("already exists");
      assertThat(nodeB.findByPrincipalName("bob")).isEmpty();
      assertThat(raw.exists((namespace + ":principal:bob").getBytes(UTF_8))).isZero();
      assertThat(nodeB.findByPrincipalName("ada")).containsOnlyKeys("fixed");
    }
  }

  @Test
  void findById_unknownId_returnsNull() {
    assertThat(nodeA.findById("no-such-session")).isNull();
  }

  @Test
  void findById_hashWithoutMetadata_returnsNull() {
    raw.hset(sessionKey("partial"), "cart".getBytes(UTF_8), new byte[] {1, 2, 3});

    assertThat(nodeA.findById("partial")).isNull();
  }

  @Test
  void findById_afterMaxInactiveInterval_returnsNull() {
    LazySession created = savedSession(nodeA, Map.of("a", "x"));
    clock.advance(created.getMaxInactiveInterval());

    assertThat(nodeB.findById(created.getId())).isNull();
  }

  @Test
  void save_newSession_setsTtlToMaxInactivePlusGrace() {
    LazySession created = savedSession(nodeA, Map.of("a", "x"));

    long ttl = raw.pttl(sessionKey(created.getId()));

    Duration expected = created.getMaxInactiveInterval()
        .plus(LazyRedisSessionRepository.DEFAULT_EXPIRY_GRACE);
    assertThat(ttl).isBetween(expected.toMillis() - 60_000, expected.toMillis());
  }

  @Test
  void save_newSession_storesMetadataAsAsciiNumbers() {
    LazySession created = savedSession(nodeA, Map.of("a", "x"));

    Map<byte[], byte[]> hash = raw.hgetall(sessionKey(created.getId()));
    Map<String, String> metadata = new java.util.TreeMap<>();
    hash.forEach((field, value) -> {
      String name = new String(field, UTF_8);
      if (name.startsWith("#")) {
        metadata.put(name, new String(value, UTF_8));
      }
    });

    assertThat(metadata).containsOnlyKeys("#a", "#c", "#m", "#v")
        .containsEntry("#m", "1800").containsEntry("#v", "1")
        .containsEntry("#c", Long.toString(created.getCreationTime().toEpochMilli()));
  }

  @Test
  void setAttribute_nameStartingWithHash_doesNotCollideWithMetadata() {
    LazySession created = savedSession(nodeA, Map.of("#v", "mine", "#c", 7));

    LazySession loaded = nodeB.findById(created.getId());

    assertThat(loaded.<String>getAttribute("#v")).isEqualTo("mine");
    assertThat(loaded.<Integer>getAttribute("#c")).isEqualTo(7);
    assertThat(loaded.version()).isEqualTo(1);
  }

  @Test
  void save_newSession_publishesCreatedEventOnce() {
    LazySession created = savedSession(nodeA, Map.of("a", "x"));

    assertThat(eventsA.ofType(SessionCreatedEvent.class)).singleElement()
        .extracting(event -> event.getSessionId()).isEqualTo(created.getId());
    assertThat(eventsB.events).isEmpty();
  }

  @Test
  void deleteById_liveSession_removesItAndPublishesDeletedEvent() {
    LazySession created = savedSession(nodeA, Map.of("a", "x"));

    nodeB.deleteById(created.getId());

    assertThat(nodeA.findById(created.getId())).isNull();
    assertThat(eventsB.ofType(SessionDeletedEvent.class)).singleElement()
        .extracting(event -> event.getSessionId()).isEqualTo(created.getId());
  }

  @Test
  void changeSessionId_savedSession_movesEveryAttributeAndRetiresTheOldId() {
    LazySession created = savedSession(nodeA, ShopFixtures.attributes());
    LazySession loaded = nodeB.findById(created.getId());
    loaded.getAttribute("cart");
    String oldId = loaded.getId();

    String newId = loaded.changeSessionId();
    nodeB.save(loaded);

    assertThat(newId).isNotEqualTo(oldId);
    assertThat(nodeA.findById(oldId)).isNull();
    assertThat(raw.exists(sessionKey(oldId))).isZero();
    LazySession moved = nodeA.findById(newId);
    ShopFixtures.attributes().forEach((name, value) ->
        assertThat((Object) moved.getAttribute(name)).as(name).isEqualTo(value));
    assertThat(moved.getCreationTime()).isEqualTo(created.getCreationTime());
  }

  @Test
  void findByPrincipalName_loggedInSessions_findsThemAndForgetsDeletedOnes() {
    LazySession first = savedSession(nodeA,
        Map.of(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "ada"));
    LazySession second = savedSession(nodeB,
        Map.of(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "ada"));
    savedSession(nodeB, Map.of(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "bob"));

    assertThat(nodeA.findByPrincipalName("ada")).containsOnlyKeys(first.getId(), second.getId());

    nodeA.deleteById(first.getId());
    assertThat(nodeB.findByPrincipalName("ada")).containsOnlyKeys(second.getId());
    assertThat(raw.smembers((namespace + ":principal:ada").getBytes(UTF_8))).hasSize(1);
  }

  @Test
  void changeSessionId_loggedInSession_movesThePrincipalIndexEntry() {
    LazySession created = savedSession(nodeA,
        Map.of(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "ada"));
    LazySession loaded = nodeA.findById(created.getId());
    String newId = loaded.changeSessionId();
    nodeA.save(loaded);

    assertThat(nodeB.findByPrincipalName("ada")).containsOnlyKeys(newId);
  }

  @Test
  void findById_afterScriptFlush_reloadsTheScriptTransparently() {
    LazySession created = savedSession(nodeA, Map.of("a", "x"));
    raw.scriptFlush();

    LazySession loaded = nodeA.findById(created.getId());
    loaded.setAttribute("b", "y");
    nodeA.save(loaded);

    assertThat(nodeB.findById(created.getId()).<String>getAttribute("b")).isEqualTo("y");
    assertThat(nodeA.metrics().scriptReloads()).isEqualTo(2);
  }

  @Test
  void attributeInfo_afterReadingOne_reportsSizesAndWhatWasInflated() {
    LazySession created = savedSession(nodeA, ShopFixtures.attributes());
    LazySession loaded = nodeB.findById(created.getId());
    loaded.getAttribute("cart");

    List<AttributeInfo> info = loaded.attributeInfo();

    assertThat(info).hasSize(12).allSatisfy(entry -> assertThat(entry.storedBytes()).isPositive());
    assertThat(info).filteredOn(AttributeInfo::inflated).extracting(AttributeInfo::name)
        .containsExactly("cart");
  }

  @Test
  void metrics_afterLoadAndSave_countRoundTripsAndBytes() {
    LazySession created = savedSession(nodeA, ShopFixtures.attributes());
    LazySession loaded = nodeB.findById(created.getId());
    loaded.getAttribute("cart");
    loaded.setAttribute("visits", 43);
    nodeB.save(loaded);

    RepositoryMetrics metrics = nodeB.metrics();
    assertThat(metrics.loads()).isEqualTo(1);
    assertThat(metrics.saves()).isEqualTo(1);
    assertThat(metrics.attributesInflated()).isEqualTo(1);
    assertThat(metrics.attributesLeftCompressed()).isEqualTo(10);
    assertThat(metrics.bytesRead()).isPositive();
    assertThat(metrics.bytesWritten()).isPositive();
  }


  @Test
  void micrometerBinding_afterLoads_publishesTheRepositoryCounters() {
    LazySession created = savedSession(nodeA, Map.of("a", "x"));
    nodeA.findById(created.getId());
    nodeA.findById(created.getId());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    new LazySessionMetrics(nodeA).bindTo(registry);

    assertThat(registry.get("lazysession.loads").tag("namespace", namespace).functionCounter()
        .count()).isEqualTo(2);
    assertThat(registry.get("lazysession.saves").functionCounter().count()).isEqualTo(1);
    assertThat(registry.get("lazysession.near.cache.hits").functionCounter().count())
        .isEqualTo(nearCache ? 2 : 0);
  }
}
