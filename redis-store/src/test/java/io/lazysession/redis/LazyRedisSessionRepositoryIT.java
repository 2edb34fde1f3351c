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
import io.lazysession.testing.RedisVersion;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.UuidSessionIdGenerator;
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

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .touchInterval(Duration.ofSeconds(10)));

  @BeforeEach
  void nearCache() {
    nodes.configure(builder -> builder.nearCacheMaxBytes(nearCache ? 1 << 20 : 0));
  }

  static LazySession savedSession(LazyRedisSessionRepository node, Map<String, Object> attributes) {
    LazySession session = node.createSession();
    attributes.forEach(session::setAttribute);
    node.save(session);
    return session;
  }

  LazyRedisSessionRepository jdkNode() {
    return nodes.another(nodes.clientB(), nodes.eventsB(),
        builder -> builder.serializer(TestRedis.serializer(CodecKind.JDK)));
  }

  @Test
  void findById_sessionSavedOnOtherNode_readsEveryAttributeKind() {
    Map<String, Object> attributes = ShopFixtures.attributes();
    LazySession created = savedSession(nodes.a(), attributes);

    LazySession loaded = nodes.b().findById(created.getId());

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
    LazySession created = savedSession(nodes.a(), reference);
    try (LazyRedisSessionRepository jdkNode = jdkNode()) {
      LazySession onB = jdkNode.findById(created.getId());
      reference.keySet().forEach(name -> assertThat((Object) onB.getAttribute(name)).as(name)
          .isEqualTo(reference.get(name)));
      onB.setAttribute("checkoutStep", "PAYMENT");
      jdkNode.save(onB);
    }

    LazySession onA = nodes.a().findById(created.getId());

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
    LazySession created = savedSession(nodes.a(), ShopFixtures.attributes());

    Cart cart = nodes.b().findById(created.getId()).getAttribute("cart");

    assertThat(cart.lines.get(0).product).isSameAs(cart.lines.get(2).product);
  }

  @Test
  void save_changedOnOtherNode_isSeenByFirstNode() {
    LazySession created = savedSession(nodes.a(), ShopFixtures.attributes());
    LazySession onB = nodes.b().findById(created.getId());
    Cart cart = onB.getAttribute("cart");
    cart.add(new Product("IN-2", "Ink", new BigDecimal("7.50")), 1); // mutated in place
    onB.setAttribute("currency", "CHF");
    onB.removeAttribute("avatar");
    nodes.b().save(onB);

    LazySession onA = nodes.a().findById(created.getId());

    assertThat(onA.<String>getAttribute("currency")).isEqualTo("CHF");
    assertThat(onA.<Cart>getAttribute("cart").lines).hasSize(4)
        .last().extracting(line -> line.product.sku()).isEqualTo("IN-2");
    assertThat(onA.getAttributeNames()).doesNotContain("avatar");
    assertThat(onA.<Integer>getAttribute("visits")).isEqualTo(42);
  }

  @Test
  void save_removedAttribute_deletesTheFieldInsteadOfStoringAnEmptyValue() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "x", "b", "y"));
    LazySession loaded = nodes.a().findById(created.getId());
    loaded.removeAttribute("a");
    nodes.a().save(loaded);

    assertThat(nodes.raw().hexists(nodes.sessionKey(created.getId()), "a".getBytes(UTF_8))).isFalse();
    // Both are small, so they live in the pack: "a" left it, "b" is still there.
    assertThat(TestRedis.storedAttributes(nodes.raw(), nodes.sessionKey(created.getId())))
        .doesNotContainKey("a").containsKey("b");
  }

  @Test
  void save_attributeRemovedSetAndRemovedAgain_deletesTheStoredField() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "x", "b", "y"));
    LazySession loaded = nodes.b().findById(created.getId());
    loaded.removeAttribute("a");
    loaded.setAttribute("a", "z");
    loaded.removeAttribute("a");
    nodes.b().save(loaded);

    assertThat(nodes.raw().hexists(nodes.sessionKey(created.getId()), "a".getBytes(UTF_8))).isFalse();
    assertThat(nodes.a().findById(created.getId()).getAttributeNames()).containsExactly("b");
  }

  @Test
  void save_attributeWrittenBySameInstanceThenRemoved_deletesTheStoredField() {
    LazySession session = savedSession(nodes.a(), Map.of("b", "y"));
    session.setAttribute("a", "x");
    nodes.a().save(session);
    session.removeAttribute("a");
    session.setAttribute("a", "z");
    session.removeAttribute("a");
    nodes.a().save(session);

    assertThat(nodes.raw().hexists(nodes.sessionKey(session.getId()), "a".getBytes(UTF_8))).isFalse();
    assertThat(nodes.b().findById(session.getId()).getAttributeNames()).containsExactly("b");
  }

  @Test
  void save_timeoutChangedOnOtherNodeMeanwhile_keepsTheChangedTimeoutAndTtl() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "x"));
    LazySession onA = nodes.a().findById(created.getId());
    LazySession onB = nodes.b().findById(created.getId());
    onA.setMaxInactiveInterval(Duration.ofMinutes(5));
    nodes.a().save(onA);
    onB.setAttribute("b", "y");

    nodes.b().save(onB);

    assertThat(nodes.a().findById(created.getId()).getMaxInactiveInterval())
        .isEqualTo(Duration.ofMinutes(5));
    assertThat(nodes.raw().hget(nodes.sessionKey(created.getId()), "#".getBytes(UTF_8)))
        .asString(UTF_8).matches("\\d+:\\d+:300:\\d+");
    assertThat(nodes.raw().pttl(nodes.sessionKey(created.getId()))).isLessThanOrEqualTo(
        Duration.ofMinutes(5).plus(LazyRedisSessionRepository.DEFAULT_EXPIRY_GRACE).toMillis());
    assertThat(nodes.raw().zscore((nodes.namespace() + ":expirations").getBytes(UTF_8),
        created.getId().getBytes(UTF_8)))
        .isEqualTo((double) created.getLastAccessedTime().plus(Duration.ofMinutes(5)).toEpochMilli());
  }

  @Test
  void save_thousandsOfAttributes_areWrittenAndRemovedInOneSave() {
    // Packing off: one field per attribute, so that the script's HSET and HDEL go in chunks.
    nodes.configure(b -> b.serializer(TestRedis.serializer().toBuilder().packMaxBytes(0).build()));
    LazySession created = nodes.a().createSession();
    for (int i = 0; i < 6_000; i++) {
      created.setAttribute("attribute-" + i, i);
    }
    nodes.a().save(created);
    LazySession loaded = nodes.b().findById(created.getId());
    assertThat(loaded.getAttributeNames()).hasSize(6_000);
    assertThat(loaded.<Integer>getAttribute("attribute-5999")).isEqualTo(5_999);

    for (int i = 0; i < 6_000; i++) {
      loaded.removeAttribute("attribute-" + i);
    }
    nodes.b().save(loaded);

    assertThat(nodes.a().findById(created.getId()).getAttributeNames()).isEmpty();
    assertThat(nodes.raw().hlen(nodes.sessionKey(created.getId()))).isEqualTo(1); // metadata
  }

  @Test
  void save_attributeNeverRead_isNotReencoded() {
    LazySession created = savedSession(nodes.a(), ShopFixtures.attributes());
    byte[] customerBefore = nodes.raw().hget(nodes.sessionKey(created.getId()), "customer".getBytes(UTF_8));
    // A node writing JDK serialization would store different bytes if it re-encoded "customer".
    try (LazyRedisSessionRepository jdkNode = jdkNode()) {
      LazySession loaded = jdkNode.findById(created.getId());
      loaded.getAttribute("cart");
      loaded.setAttribute("currency", "GBP");
      jdkNode.save(loaded);
    }

    assertThat(nodes.raw().hget(nodes.sessionKey(created.getId()), "customer".getBytes(UTF_8)))
        .isEqualTo(customerBefore);
  }

  @Test
  void save_attributeReadButUnchanged_writesNothing() {
    LazySession created = savedSession(nodes.a(), ShopFixtures.attributes());
    LazySession loaded = nodes.b().findById(created.getId());
    loaded.getAttribute("cart");
    loaded.getAttribute("customer");
    long saves = nodes.b().metrics().saves();

    nodes.b().save(loaded);

    assertThat(nodes.b().metrics().saves()).isEqualTo(saves);
    assertThat(nodes.b().metrics().savesSkipped()).isEqualTo(1);
  }

  @Test
  void save_attributeMutatedInPlace_isWritten() {
    LazySession created = savedSession(nodes.a(), ShopFixtures.attributes());
    LazySession loaded = nodes.b().findById(created.getId());
    loaded.<Cart>getAttribute("cart").coupon = "SPRING25";
    nodes.b().save(loaded);

    assertThat(nodes.a().findById(created.getId()).<Cart>getAttribute("cart").coupon)
        .isEqualTo("SPRING25");
  }

  @Test
  void save_readOnlyWithinTouchInterval_keepsStoredAccessTime() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "x"));
    nodes.clock().advance(Duration.ofSeconds(5));
    LazySession loaded = nodes.b().findById(created.getId());
    loaded.setLastAccessedTime(nodes.clock().instant());
    nodes.b().save(loaded);
    assertThat(nodes.a().findById(created.getId()).getLastAccessedTime())
        .isEqualTo(created.getLastAccessedTime());

    nodes.clock().advance(Duration.ofSeconds(6));
    loaded = nodes.b().findById(created.getId());
    loaded.setLastAccessedTime(nodes.clock().instant());
    nodes.b().save(loaded);
    assertThat(nodes.a().findById(created.getId()).getLastAccessedTime()).isEqualTo(nodes.clock().instant());
  }

  @Test
  void save_readOnlySessionWithShorterOwnTimeout_isTouchedWithinATenthOfIt() {
    LazySession created = nodes.a().createSession();
    created.setMaxInactiveInterval(Duration.ofSeconds(60)); // nodes: touch interval 10s
    nodes.a().save(created);
    nodes.clock().advance(Duration.ofSeconds(7));

    LazySession loaded = nodes.b().findById(created.getId());
    loaded.setLastAccessedTime(nodes.clock().instant());
    nodes.b().save(loaded);

    assertThat(nodes.a().findById(created.getId()).getLastAccessedTime()).isEqualTo(nodes.clock().instant());
  }

  @Test
  void save_sessionDeletedMeanwhile_doesNotResurrectIt() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "x"));
    LazySession loaded = nodes.b().findById(created.getId());
    nodes.a().deleteById(created.getId());
    loaded.setAttribute("b", "y");

    nodes.b().save(loaded);

    assertThat(nodes.raw().exists(nodes.sessionKey(created.getId()))).isZero();
    assertThat(nodes.a().findById(created.getId())).isNull();
  }

  @Test
  void current_otherSessionsLookedUpLaterInTheRequest_staysTheRequestsOwnSession() {
    String principal = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
    LazySession mine = savedSession(nodes.a(), Map.of(principal, "ada"));
    LazySession other = savedSession(nodes.a(), Map.of(principal, "ada"));
    RequestContextHolder.setRequestAttributes(
        new ServletRequestAttributes(new MockHttpServletRequest()));
    try {
      LazySession loaded = nodes.a().findById(mine.getId());
      nodes.a().findByPrincipalName("ada");
      nodes.a().findById(other.getId());

      assertThat(LazySession.current()).containsSame(loaded);
    } finally {
      RequestContextHolder.resetRequestAttributes();
    }
  }

  @Test
  void createSession_defaultGenerator_is22Base64urlCharactersInTheKeyAndTheSchedule() {
    LazySession created = savedSession(nodes.a(), Map.of("cart", "two books"));

    String id = created.getId();
    assertThat(id).matches("[A-Za-z0-9_-]{22}");
    assertThat(nodes.raw().exists((nodes.namespace() + ":s:{" + id + "}").getBytes(UTF_8)))
        .isEqualTo(1);
    assertThat(nodes.raw().zscore((nodes.namespace() + ":expirations").getBytes(UTF_8),
        id.getBytes(UTF_8))).isNotNull();
    assertThat(nodes.b().findById(id).<String>getAttribute("cart")).isEqualTo("two books");
  }

  @Test
  void createSession_springsUuidGenerator_isAUuidThatDefaultNodesReadAndMoveToTheirIds() {
    LazySession created;
    try (LazyRedisSessionRepository uuidNode = nodes.another(nodes.clientA(), nodes.eventsA(),
        builder -> builder.sessionIdGenerator(UuidSessionIdGenerator.getInstance()))) {
      created = savedSession(uuidNode, Map.of("cart", "two books"));
    }
    assertThat(UUID.fromString(created.getId()).toString()).isEqualTo(created.getId());

    // A session of an older build or another node keeps its UUID until its id changes.
    LazySession read = nodes.b().findById(created.getId());
    String newId = read.changeSessionId();
    nodes.b().save(read);

    assertThat(newId).matches("[A-Za-z0-9_-]{22}");
    assertThat(nodes.a().findById(created.getId())).isNull();
    assertThat(nodes.a().findById(newId).<String>getAttribute("cart")).isEqualTo("two books");
  }

  /** A node whose every new session gets the id {@code fixed}, standing for a re-sent create. */
  LazyRedisSessionRepository fixedIdNode() {
    return nodes.another(nodes.clientA(), nodes.eventsA(),
        builder -> builder.sessionIdGenerator(() -> "fixed"));
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

      LazySession stored = nodes.b().findById("fixed");
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
      nodes.clock().advance(Duration.ofSeconds(1));
      LazySession duplicate = node.createSession();
      duplicate.setAttribute(principal, "bob");

      assertThatThrownBy(() -> node.save(duplicate)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("already exists");
      assertThat(nodes.b().findByPrincipalName("bob")).isEmpty();
      assertThat(nodes.raw().exists((nodes.namespace() + ":principal:bob").getBytes(UTF_8))).isZero();
      assertThat(nodes.b().findByPrincipalName("ada")).containsOnlyKeys("fixed");
    }
  }

  @Test
  void findById_unknownId_returnsNull() {
    assertThat(nodes.a().findById("no-such-session")).isNull();
  }

  @Test
  void findById_hashWithoutMetadata_returnsNull() {
    nodes.raw().hset(nodes.sessionKey("partial"), "cart".getBytes(UTF_8), new byte[] {1, 2, 3});

    assertThat(nodes.a().findById("partial")).isNull();
  }

  @Test
  void findById_afterMaxInactiveInterval_returnsNull() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "x"));
    nodes.clock().advance(created.getMaxInactiveInterval());

    assertThat(nodes.b().findById(created.getId())).isNull();
  }

  @Test
  void save_newSession_setsTtlToMaxInactivePlusGrace() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "x"));

    long ttl = nodes.raw().pttl(nodes.sessionKey(created.getId()));

    Duration expected = created.getMaxInactiveInterval()
        .plus(LazyRedisSessionRepository.DEFAULT_EXPIRY_GRACE);
    assertThat(ttl).isBetween(expected.toMillis() - 60_000, expected.toMillis());
  }

  @Test
  void save_newSession_storesMetadataAsAsciiNumbers() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "x"));

    Map<byte[], byte[]> hash = nodes.raw().hgetall(nodes.sessionKey(created.getId()));
    Map<String, String> metadata = new java.util.TreeMap<>();
    hash.forEach((field, value) -> {
      String name = new String(field, UTF_8);
      if (name.startsWith("#") && !name.startsWith(StoredPack.FIELD)) {
        metadata.put(name, new String(value, UTF_8));
      }
    });

    // One field: creation:lastAccess:maxInactive:version
    long creation = created.getCreationTime().toEpochMilli();
    assertThat(metadata).containsOnlyKeys("#")
        .containsEntry("#", creation + ":" + creation + ":1800:1");
  }

  @Test
  void setAttribute_nameStartingWithHash_doesNotCollideWithMetadata() {
    LazySession created = savedSession(nodes.a(), Map.of("#v", "mine", "#c", 7));

    LazySession loaded = nodes.b().findById(created.getId());

    assertThat(loaded.<String>getAttribute("#v")).isEqualTo("mine");
    assertThat(loaded.<Integer>getAttribute("#c")).isEqualTo(7);
    assertThat(loaded.version()).isEqualTo(1);
  }

  @Test
  void save_newSession_publishesCreatedEventOnce() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "x"));

    assertThat(nodes.eventsA().ofType(SessionCreatedEvent.class)).singleElement()
        .extracting(event -> event.getSessionId()).isEqualTo(created.getId());
    assertThat(nodes.eventsB().events).isEmpty();
  }

  @Test
  void deleteById_liveSession_removesItAndPublishesDeletedEvent() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "x"));

    nodes.b().deleteById(created.getId());

    assertThat(nodes.a().findById(created.getId())).isNull();
    assertThat(nodes.eventsB().ofType(SessionDeletedEvent.class)).singleElement()
        .extracting(event -> event.getSessionId()).isEqualTo(created.getId());
  }

  @Test
  void changeSessionId_savedSession_movesEveryAttributeAndRetiresTheOldId() {
    LazySession created = savedSession(nodes.a(), ShopFixtures.attributes());
    LazySession loaded = nodes.b().findById(created.getId());
    loaded.getAttribute("cart");
    String oldId = loaded.getId();

    String newId = loaded.changeSessionId();
    nodes.b().save(loaded);

    assertThat(newId).isNotEqualTo(oldId);
    assertThat(nodes.a().findById(oldId)).isNull();
    assertThat(nodes.raw().exists(nodes.sessionKey(oldId))).isZero();
    LazySession moved = nodes.a().findById(newId);
    ShopFixtures.attributes().forEach((name, value) ->
        assertThat((Object) moved.getAttribute(name)).as(name).isEqualTo(value));
    assertThat(moved.getCreationTime()).isEqualTo(created.getCreationTime());
  }

  @Test
  void findByPrincipalName_loggedInSessions_findsThemAndForgetsDeletedOnes() {
    LazySession first = savedSession(nodes.a(),
        Map.of(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "ada"));
    LazySession second = savedSession(nodes.b(),
        Map.of(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "ada"));
    savedSession(nodes.b(), Map.of(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "bob"));

    assertThat(nodes.a().findByPrincipalName("ada")).containsOnlyKeys(first.getId(), second.getId());

    nodes.a().deleteById(first.getId());
    assertThat(nodes.b().findByPrincipalName("ada")).containsOnlyKeys(second.getId());
    assertThat(nodes.raw().smembers((nodes.namespace() + ":principal:ada").getBytes(UTF_8))).hasSize(1);
  }

  @Test
  void changeSessionId_loggedInSession_movesThePrincipalIndexEntry() {
    LazySession created = savedSession(nodes.a(),
        Map.of(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "ada"));
    LazySession loaded = nodes.a().findById(created.getId());
    String newId = loaded.changeSessionId();
    nodes.a().save(loaded);

    assertThat(nodes.b().findByPrincipalName("ada")).containsOnlyKeys(newId);
  }

  @Test
  void findById_afterScriptFlush_reloadsTheScriptTransparently() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "x"));
    nodes.raw().scriptFlush();

    LazySession loaded = nodes.a().findById(created.getId());
    loaded.setAttribute("b", "y");
    nodes.a().save(loaded);

    assertThat(nodes.b().findById(created.getId()).<String>getAttribute("b")).isEqualTo("y");
    // save.lua is sent again, and so is find.lua unless it is called as a Redis 7 function, which
    // SCRIPT FLUSH leaves alone.
    boolean findByFunction = RedisVersion.parse(nodes.raw().info("server")).atLeast(7, 0);
    assertThat(nodes.a().metrics().scriptReloads()).isEqualTo(findByFunction ? 1 : 2);
  }

  @Test
  void attributeInfo_afterReadingOne_reportsSizesAndWhatWasInflated() {
    LazySession created = savedSession(nodes.a(), ShopFixtures.attributes());
    LazySession loaded = nodes.b().findById(created.getId());
    loaded.getAttribute("cart");

    List<AttributeInfo> info = loaded.attributeInfo();

    assertThat(info).hasSize(12).allSatisfy(entry -> assertThat(entry.storedBytes()).isPositive());
    assertThat(info).filteredOn(AttributeInfo::inflated).extracting(AttributeInfo::name)
        .containsExactly("cart");
  }

  @Test
  void metrics_afterLoadAndSave_countRoundTripsAndBytes() {
    LazySession created = savedSession(nodes.a(), ShopFixtures.attributes());
    LazySession loaded = nodes.b().findById(created.getId());
    loaded.getAttribute("cart");
    loaded.setAttribute("visits", 43);
    nodes.b().save(loaded);

    RepositoryMetrics metrics = nodes.b().metrics();
    assertThat(metrics.loads()).isEqualTo(1);
    assertThat(metrics.saves()).isEqualTo(1);
    assertThat(metrics.attributesInflated()).isEqualTo(1);
    assertThat(metrics.attributesLeftCompressed()).isEqualTo(10);
    assertThat(metrics.bytesRead()).isPositive();
    assertThat(metrics.bytesWritten()).isPositive();
  }


  @Test
  void micrometerBinding_afterLoads_publishesTheRepositoryCounters() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "x"));
    nodes.a().findById(created.getId());
    nodes.a().findById(created.getId());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    new LazySessionMetrics(nodes.a()).bindTo(registry);

    assertThat(registry.get("lazysession.loads").tag("namespace", nodes.namespace()).functionCounter()
        .count()).isEqualTo(2);
    assertThat(registry.get("lazysession.saves").functionCounter().count()).isEqualTo(1);
    assertThat(registry.get("lazysession.near.cache.hits").functionCounter().count())
        .isEqualTo(nearCache ? 2 : 0);
    assertThat(registry.get("lazysession.near.cache.trusted.hits").functionCounter().count())
        .isZero();
  }

  @Test
  void setAttribute_nameWithLoneSurrogate_isRejectedNamingTheAttribute() {
    LazySession session = nodes.a().createSession();

    assertThatThrownBy(() -> session.setAttribute("cart\uD83D", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cart\\uD83D").hasMessageContaining("surrogate");
    assertThatThrownBy(() -> session.setAttribute("\uDC00", "x"))
        .isInstanceOf(IllegalArgumentException.class);
    session.setAttribute("smile\uD83D\uDE00", "a whole character is fine");
  }

  @Test
  void save_valueOverTheSizeLimit_failsNamingTheAttributeAndTheSetting() {
    LazyRedisSessionRepository small = nodes.another(nodes.clientA(), nodes.eventsA(),
        builder -> builder.serializer(TestRedis.serializer().toBuilder().maxPayloadBytes(1024)
            .build()));
    LazySession session = small.createSession();
    session.setAttribute("note", "short");
    session.setAttribute("upload", new java.util.Random(7).ints(4096).boxed().toList());

    assertThatThrownBy(() -> small.save(session))
        .isInstanceOf(io.lazysession.serializer.SerializationException.class)
        .hasMessageContaining("'upload'").hasMessageContaining(session.getId())
        .isInstanceOf(AttributeTooLargeException.class)
        .hasMessageContaining("lazysession.max-value-bytes");
  }

  @Test
  void changeSessionId_anotherRequestSavedTheOldIdMeanwhile_keepsItsChanges() {
    LazySession created = savedSession(nodes.a(), Map.of("a", "1", "b", "1", "gone", "1"));
    LazySession login = nodes.a().findById(created.getId());
    LazySession other = nodes.b().findById(created.getId());
    other.setAttribute("b", "2");
    other.setAttribute("c", "3");
    other.removeAttribute("gone");
    nodes.b().save(other);

    String newId = login.changeSessionId();
    login.setAttribute("user", "ada");
    nodes.a().save(login);

    assertThat(nodes.b().findById(created.getId())).isNull();
    LazySession moved = nodes.b().findById(newId);
    assertThat(moved.getAttributeNames()).containsExactlyInAnyOrder("a", "b", "c", "user");
    assertThat(moved.<String>getAttribute("b")).isEqualTo("2");
    assertThat(moved.<String>getAttribute("c")).isEqualTo("3");
    assertThat(moved.<String>getAttribute("user")).isEqualTo("ada");
  }
}
