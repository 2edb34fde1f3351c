package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.sync.RedisCommands;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.Session;
import org.springframework.session.SessionRepository;
import org.springframework.session.data.redis.RedisIndexedSessionRepository;
import org.springframework.session.data.redis.RedisSessionRepository;
import org.springframework.session.events.SessionExpiredEvent;
import org.springframework.session.web.http.SessionRepositoryFilter;

/**
 * Taking sessions over from Spring Session Data Redis 4.1 (the real jar, both of its repositories,
 * on a Lettuce connection factory) on a real Redis, with two lazysession repositories standing for
 * two nodes.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(SpringSessionDataRedisMigrationIT.Ssdr.class)
class SpringSessionDataRedisMigrationIT {
  /** Spring Session Data Redis's two repositories. */
  enum Ssdr { REDIS_SESSION_REPOSITORY, REDIS_INDEXED_SESSION_REPOSITORY }

  @Parameter
  Ssdr kind;

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static TestRedis.TwoClients clients;
  static RedisCommands<byte[], byte[]> raw;
  static LettuceConnectionFactory connectionFactory;

  String namespace;
  String ssdrNamespace;
  SessionRepository<Session> ssdr;
  LazyRedisSessionRepository nodeA;
  LazyRedisSessionRepository nodeB;

  @BeforeAll
  static void connect() {
    clients = TestRedis.TwoClients.open(redis.uri());
    raw = clients.raw();
    RedisURI uri = redis.uri();
    connectionFactory = new LettuceConnectionFactory(
        new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
    connectionFactory.afterPropertiesSet();
    connectionFactory.start();
  }

  @AfterAll
  static void shutdown() {
    connectionFactory.destroy();
    clients.close();
  }

  @BeforeEach
  void nodes(TestInfo test) {
    namespace = TestRedis.uniqueNamespace(test.getTestMethod().orElseThrow().getName());
    ssdrNamespace = namespace + "-ssdr";
    ssdr = springSessionDataRedis();
    nodeA = node(clients.a(), ssdrNamespace);
    nodeB = node(clients.b(), ssdrNamespace);
  }

  @AfterEach
  void close() throws Exception {
    nodeA.close();
    nodeB.close();
    if ((Object) ssdr instanceof RedisIndexedSessionRepository indexed) {
      indexed.destroy();
    }
  }

  /**
   * The template Spring Session Data Redis's configuration gives its repositories: string keys and
   * hash keys, the default (JDK) serializer for values.
   */
  static RedisTemplate<String, Object> ssdrTemplate(RedisConnectionFactory factory) {
    RedisTemplate<String, Object> template = new RedisTemplate<>();
    template.setKeySerializer(RedisSerializer.string());
    template.setHashKeySerializer(RedisSerializer.string());
    template.setConnectionFactory(factory);
    template.afterPropertiesSet();
    return template;
  }

  /** A Spring Session Data Redis repository as its configuration builds it, default serializer. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  SessionRepository<Session> springSessionDataRedis() {
    RedisTemplate<String, Object> template = ssdrTemplate(connectionFactory);
    if (kind == Ssdr.REDIS_SESSION_REPOSITORY) {
      RedisSessionRepository repository = new RedisSessionRepository(template);
      repository.setRedisKeyNamespace(ssdrNamespace);
      return (SessionRepository) repository;
    }
    RedisIndexedSessionRepository repository = new RedisIndexedSessionRepository(template);
    repository.setRedisKeyNamespace(ssdrNamespace);
    repository.setCleanupCron("-");
    repository.afterPropertiesSet();
    return (SessionRepository) repository;
  }

  LazyRedisSessionRepository node(RedisClient client, String migrateFrom) {
    LazyRedisSessionRepositoryBuilder builder = LazyRedisSessionRepository.builder(client)
        .serializer(serializer())
        .namespace(namespace)
        .cleanupInterval(Duration.ZERO)
        .nearCacheMaxBytes(1 << 20);
    if (migrateFrom != null) {
      builder.migrateFrom(SpringSessionDataRedis.namespace(migrateFrom));
    }
    return builder.build();
  }

  static AttributeSerializer serializer() {
    return AttributeSerializer.builder()
        .allowList(ClassAllowList.builder().allowPackage("io.lazysession.redis")
            .allowPackage("org.springframework.security").build())
        .build();
  }

  /** The shop attributes, a plain map, and a signed-in user's security context. */
  static Map<String, Object> attributes(String user) {
    Map<String, Object> attributes = new LinkedHashMap<>(ShopFixtures.attributes());
    Map<String, Object> wizard = new HashMap<>();
    wizard.put("step", 3);
    wizard.put("answers", new ArrayList<>(List.of("yes", "no")));
    attributes.put("wizard", wizard);
    attributes.put("greeting", "hello, " + user);
    attributes.put("SPRING_SECURITY_CONTEXT", new SecurityContextImpl(
        UsernamePasswordAuthenticationToken.authenticated(user, null,
            List.of(new SimpleGrantedAuthority("ROLE_USER")))));
    return attributes;
  }

  /** A session stored by Spring Session Data Redis; returns its id. */
  String ssdrSession(String user) {
    Session session = ssdr.createSession();
    attributes(user).forEach(session::setAttribute);
    ssdr.save(session);
    return session.getId();
  }

  static void assertHoldsAll(Session session, Map<String, Object> expected) {
    assertThat(session.getAttributeNames()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    expected.forEach((name, value) ->
        assertThat((Object) session.getAttribute(name)).as(name).isEqualTo(value));
  }

  byte[] key(String suffix) {
    return (ssdrNamespace + ":" + suffix).getBytes(UTF_8);
  }

  /** Every key of SSDR's namespace, as strings. */
  List<String> ssdrKeys() {
    List<String> keys = new ArrayList<>();
    ScanIterator.scan(raw, KeyScanArgs.Builder.matches(ssdrNamespace + ":*"))
        .forEachRemaining(key -> keys.add(new String(key, UTF_8)));
    return keys;
  }

  /** The keys of SSDR's namespace that name {@code id} or hold it as a set member. */
  List<String> ssdrKeysHolding(String id) {
    byte[] member = SsdrLayout.jdkString(id);
    byte[] expiresMember = SsdrLayout.jdkString("expires:" + id);
    List<String> holding = new ArrayList<>();
    for (String key : ssdrKeys()) {
      byte[] k = key.getBytes(UTF_8);
      String type = raw.type(k);
      boolean holds = switch (type) {
        case "set" -> raw.sismember(k, member) || raw.sismember(k, expiresMember);
        case "zset" -> raw.zscore(k, member) != null;
        default -> key.contains(id);
      };
      if (holds) {
        holding.add(key);
      }
    }
    return holding;
  }

  @Test
  void findById_sessionStoredBySpringSessionDataRedis_everyAttributeEqual() {
    String id = ssdrSession("alice");
    Session original = ssdr.findById(id);

    LazySession found = nodeA.findById(id);

    assertThat(found).isNotNull();
    assertHoldsAll(found, attributes("alice"));
    assertThat(found.getCreationTime()).isEqualTo(original.getCreationTime());
    assertThat(found.getLastAccessedTime()).isEqualTo(original.getLastAccessedTime());
    assertThat(found.getMaxInactiveInterval()).isEqualTo(original.getMaxInactiveInterval());
    assertThat(raw.exists(key("sessions:" + id))).as("a read moves nothing").isEqualTo(1L);
  }

  @Test
  void save_takenOverSession_writesHereAndRemovesEverySpringSessionDataRedisKey() {
    String id = ssdrSession("alice");
    if (kind == Ssdr.REDIS_INDEXED_SESSION_REPOSITORY) {
      // The layout this store removes, as the 4.1 jar wrote it: hash, expiry key, expirations set
      // entry and principal index entry.
      assertThat(ssdrKeysHolding(id)).containsExactlyInAnyOrder(
          ssdrNamespace + ":sessions:" + id, ssdrNamespace + ":sessions:expires:" + id,
          new String(new SsdrLayout(SpringSessionDataRedis.namespace(ssdrNamespace))
              .minuteExpirations(ssdr.findById(id).getLastAccessedTime()
                  .plus(ssdr.findById(id).getMaxInactiveInterval()).toEpochMilli()), UTF_8),
          ssdrNamespace + ":index:" + FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME
              + ":alice");
    } else {
      assertThat(ssdrKeysHolding(id)).containsExactly(ssdrNamespace + ":sessions:" + id);
    }

    LazySession onA = nodeA.findById(id);
    assertThat((String) onA.getAttribute("greeting")).isEqualTo("hello, alice");
    onA.setAttribute("checkoutStep", "PAYMENT");
    nodeA.save(onA);

    assertThat(ssdrKeysHolding(id)).isEmpty();
    assertThat(ssdr.findById(id)).isNull();
    assertThat(nodeA.metrics().sessionsMigrated()).isEqualTo(1);
    LazySession onB = nodeB.findById(id);
    Map<String, Object> expected = attributes("alice");
    expected.put("checkoutStep", "PAYMENT");
    assertHoldsAll(onB, expected);
    assertThat(onB.getCreationTime()).isEqualTo(onA.getCreationTime());
    assertThat(nodeB.findByPrincipalName("alice")).containsOnlyKeys(id);
    // Never-read attributes are copied as the JDK envelopes they were read as; read ones are
    // re-encoded with the configured codec (Kryo).
    byte[] hash = (namespace + ":s:{" + id + "}").getBytes(UTF_8);
    // (The re-encoded one is small: it moved into the pack.)
    assertThat(raw.hget(hash, "cart".getBytes(UTF_8))).startsWith(0xA1, 0x01, 0x00, 0xAC, 0xED);
    assertThat(TestRedis.storedAttributes(raw, hash).get("greeting")).startsWith(0xA1, 0x02);
    assertThat(new String(raw.hget(hash, "#p".getBytes(UTF_8)), UTF_8)).isEqualTo("alice");
  }

  /** A node with encryption keys taking over SSDR's sessions (accepting unprotected values). */
  LazyRedisSessionRepository keyedNode(RedisClient client, MutableClock clock,
      org.springframework.context.ApplicationEventPublisher events) {
    return LazyRedisSessionRepository.builder(client).serializer(serializer())
        .namespace(namespace).cleanupInterval(Duration.ZERO).clock(clock).eventPublisher(events)
        .migrateFrom(SpringSessionDataRedis.namespace(ssdrNamespace))
        .encryption(SessionEncryption.builder()
            .keys(List.of(EncryptionKey.of("k1", KeyedNamesIT.secret(1))))
            .acceptUnprotected(true).build())
        .build();
  }

  @Test
  void save_takenOverByNodesWithKeys_keyedNamesOnlyAndFoundOnAnotherKeyedNode() throws Exception {
    String id = ssdrSession("alice");
    MutableClock clock = new MutableClock(java.time.Instant.now());
    List<Object> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (LazyRedisSessionRepository a = keyedNode(clients.a(), clock, events::add);
        LazyRedisSessionRepository b = keyedNode(clients.b(), clock, events::add)) {
      LazySession onA = a.findById(id);
      assertHoldsAll(onA, attributes("alice"));
      onA.setAttribute("checkoutStep", "PAYMENT");
      a.save(onA);

      assertThat(ssdrKeysHolding(id)).isEmpty();
      assertThat(a.metrics().sessionsMigrated()).isEqualTo(1);
      // Under its keyed name, with its sealed id and principal, scheduled and indexed keyed: no
      // key, member or value of lazysession's (claim keys included) holds the id or the principal.
      String dump = KeyedNamesIT.dump(raw, namespace + ":*");
      assertThat(dump).contains(namespace + ":s:{").contains("#i=").contains(namespace
          + ":expirations").contains(namespace + ":principal:").doesNotContain(":taken:");
      assertThat(dump).doesNotContain(id).doesNotContain("alice");
      Map<String, Object> expected = attributes("alice");
      expected.put("checkoutStep", "PAYMENT");
      LazySession onB = b.findById(id);
      assertHoldsAll(onB, expected);
      assertThat(b.findByPrincipalName("alice")).containsOnlyKeys(id);
      ReencryptionReport report = b.reencrypt();
      assertThat(report.renamed()).isZero();
      assertThat(report.remaining()).isZero();
      assertThat(b.findByPrincipalName("alice")).containsOnlyKeys(id);
      // The sweep reads the id back from the schedule: the event carries it.
      onB.setMaxInactiveInterval(Duration.ofMinutes(1));
      b.save(onB);
      clock.advance(Duration.ofMinutes(2));
      assertThat(b.cleanUpExpiredSessions()).isEqualTo(1);
      assertThat(events).filteredOn(SessionExpiredEvent.class::isInstance)
          .extracting(e -> ((SessionExpiredEvent) e).getSessionId()).containsExactly(id);
      assertThat(a.findById(id)).isNull();
      assertThat(a.findByPrincipalName("alice")).isEmpty();
    }
  }

  @Test
  void save_manySessionsOnTwoNodes_everySessionKeepsAllAttributesAndLeavesSpringSessionDataRedis() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      ids.add(ssdrSession("user" + i));
    }
    assertThat(nodeA.countSessionsWaitingForMigration()).isEqualTo(12);

    for (int i = 0; i < ids.size(); i++) {
      LazyRedisSessionRepository node = i % 2 == 0 ? nodeA : nodeB;
      LazySession session = node.findById(ids.get(i));
      assertHoldsAll(session, attributes("user" + i));
      node.save(session);
      assertThat(ssdrKeysHolding(ids.get(i))).as("SSDR keys of " + i).isEmpty();
    }

    assertThat(nodeB.countSessionsWaitingForMigration()).isZero();
    for (int i = 0; i < ids.size(); i++) {
      LazyRedisSessionRepository other = i % 2 == 0 ? nodeB : nodeA;
      assertHoldsAll(other.findById(ids.get(i)), attributes("user" + i));
      assertThat(other.findByPrincipalName("user" + i)).containsOnlyKeys(ids.get(i));
    }
    assertThat(nodeA.metrics().sessionsMigrated() + nodeB.metrics().sessionsMigrated())
        .isEqualTo(12);
  }

  @Test
  void save_sameSessionTakenOverOnTwoNodesAtOnce_bothChangesKept() throws Exception {
    String id = ssdrSession("alice");
    LazySession onA = nodeA.findById(id);
    LazySession onB = nodeB.findById(id);
    onA.setAttribute("fromA", "a");
    onB.setAttribute("fromB", "b");
    CountDownLatch start = new CountDownLatch(1);
    CompletableFuture<Void> saveA = CompletableFuture.runAsync(() -> {
      await(start);
      nodeA.save(onA);
    });
    CompletableFuture<Void> saveB = CompletableFuture.runAsync(() -> {
      await(start);
      nodeB.save(onB);
    });
    start.countDown();
    saveA.get();
    saveB.get();

    Map<String, Object> expected = attributes("alice");
    expected.put("fromA", "a");
    expected.put("fromB", "b");
    assertHoldsAll(nodeA.findById(id), expected);
    assertThat(ssdrKeysHolding(id)).isEmpty();
  }

  @Test
  void save_sessionDeletedOnOtherNodeAfterLoad_isNotBroughtBack() {
    String id = ssdrSession("alice");
    LazySession onA = nodeA.findById(id);
    onA.setAttribute("late", "write");

    nodeB.deleteById(id);
    nodeA.save(onA);

    assertThat(nodeA.findById(id)).isNull();
    assertThat(nodeB.findById(id)).isNull();
    assertThat(ssdr.findById(id)).isNull();
  }

  @Test
  void save_idChangedOnFirstRequest_sessionMovesToNewIdAndOriginalIsRemoved() {
    String id = ssdrSession("alice");
    LazySession onA = nodeA.findById(id);
    String newId = onA.changeSessionId();

    nodeA.save(onA);

    assertThat(nodeB.findById(id)).isNull();
    assertThat(ssdrKeysHolding(id)).isEmpty();
    assertHoldsAll(nodeB.findById(newId), attributes("alice"));
    assertThat(nodeB.findByPrincipalName("alice")).containsOnlyKeys(newId);
  }

  @Test
  void save_attributeOutsideAllowList_carriedUnchangedUntilAllowed() {
    String id = ssdrSession("alice");
    // JDK types and Spring Security only: the shop's Cart is outside.
    LazyRedisSessionRepository strict = LazyRedisSessionRepository.builder(clients.a())
        .serializer(AttributeSerializer.builder().allowList(ClassAllowList.jdkOnly()).build())
        .namespace(namespace)
        .cleanupInterval(Duration.ZERO)
        .migrateFrom(SpringSessionDataRedis.namespace(ssdrNamespace))
        .build();
    try (strict) {
      LazySession session = strict.findById(id);
      assertThat((Object) session.getAttribute("cart")).isNull();
      session.setAttribute("step", 2);
      strict.save(session);
    }

    assertThat(ssdr.findById(id)).isNull();
    Map<String, Object> expected = attributes("alice");
    expected.put("step", 2);
    assertHoldsAll(nodeB.findById(id), expected);
  }

  @Test
  void save_takenOverInFlushModeImmediate_endOfRequestSaveWritesNothing() {
    String id = ssdrSession("alice");
    try (LazyRedisSessionRepository immediate = LazyRedisSessionRepository.builder(clients.a())
        .serializer(serializer()).namespace(namespace).cleanupInterval(Duration.ZERO)
        .flushMode(org.springframework.session.FlushMode.IMMEDIATE)
        .migrateFrom(SpringSessionDataRedis.namespace(ssdrNamespace)).build()) {
      LazySession session = immediate.findById(id);
      assertThat((String) session.getAttribute("greeting")).isEqualTo("hello, alice");
      session.setAttribute("checkoutStep", "PAYMENT"); // saved at once: the take-over
      byte[] hash = (namespace + ":s:{" + id + "}").getBytes(UTF_8);
      byte[] takenOver = TestRedis.storedAttributes(raw, hash).get("greeting");
      long version = session.version();

      immediate.save(session); // the end of the request

      assertThat(takenOver).startsWith(0xA1, 0x02);
      assertThat(TestRedis.storedAttributes(raw, hash).get("greeting")).isEqualTo(takenOver);
      assertThat(session.version()).isEqualTo(version);
    }
  }

  @Test
  void deleteById_sessionNotYetTakenOver_goneFromBothStores() {
    String id = ssdrSession("alice");

    nodeA.deleteById(id);

    assertThat(nodeB.findById(id)).isNull();
    assertThat(ssdr.findById(id)).isNull();
  }

  @Test
  void findByPrincipalName_sessionNotYetTakenOver_isFound() {
    assumeTrue(kind == Ssdr.REDIS_INDEXED_SESSION_REPOSITORY, "only the indexed repository "
        + "keeps a principal index");
    String id = ssdrSession("alice");

    Map<String, LazySession> found = nodeA.findByPrincipalName("alice");

    assertThat(found).containsOnlyKeys(id);
    assertHoldsAll(found.get(id), attributes("alice"));
  }

  @Test
  void rollingSwitch_oneNodeOnEachStore_readsLoseNothing() {
    List<String> before = List.of(ssdrSession("u1"), ssdrSession("u2"), ssdrSession("u3"));

    // The new node reads every session; the old node still does, before and after.
    for (String id : before) {
      assertHoldsAll(nodeA.findById(id), attributes(ssdr.findById(id).getAttribute("greeting")
          .toString().substring("hello, ".length())));
      assertThat(ssdr.findById(id)).as("still on the old node").isNotNull();
    }
    // A session the old node creates during the switch is read by the new node.
    String during = ssdrSession("u4");
    assertHoldsAll(nodeB.findById(during), attributes("u4"));
    // A change made on the old node after the new node read the session is seen by the new node.
    Session onOld = ssdr.findById(before.get(0));
    onOld.setAttribute("fromOldNode", 1);
    ssdr.save(onOld);
    assertThat((Integer) nodeA.findById(before.get(0)).getAttribute("fromOldNode")).isEqualTo(1);
    for (String id : before) {
      assertThat(ssdr.findById(id)).isNotNull();
    }
  }

  @Test
  void findById_migrationOff_springSessionDataRedisIsNeverRead() {
    String id = ssdrSession("alice");
    try (LazyRedisSessionRepository off = node(clients.a(), null)) {
      long hitsBefore = keyspaceHits();
      long roundTripsBefore = off.metrics().roundTrips();

      assertThat(off.findById(id)).isNull();
      assertThat(off.findByPrincipalName("alice")).isEmpty();

      assertThat(keyspaceHits()).as("no key that exists was read").isEqualTo(hitsBefore);
      assertThat(off.metrics().sessionsMigrated()).isZero();
      assertThat(off.countSessionsWaitingForMigration()).isZero();
      assertThat(off.metrics().roundTrips() - roundTripsBefore).isPositive();
    }
    assertThat(raw.exists(key("sessions:" + id))).isEqualTo(1L);
    long missRoundTrips = nodeA.metrics().roundTrips();
    assertThat(nodeA.findById("no-such-session")).isNull();
    // With migration on, a miss still costs one call: the find script also looks at SSDR's hash.
    assertThat(nodeA.metrics().roundTrips() - missRoundTrips).isEqualTo(1);
    long takeOverRoundTrips = nodeA.metrics().roundTrips();
    assertThat(nodeA.findById(id)).isNotNull();
    assertThat(nodeA.metrics().roundTrips() - takeOverRoundTrips).isEqualTo(1);
  }

  @Test
  void request_withSpringSessionDataRedisCookie_continuesTheSessionAndKeepsTheCookie()
      throws Exception {
    String id = ssdrSession("alice");
    // The SESSION cookie as SSDR's default configuration writes it (DefaultCookieSerializer: the
    // Base64 of the id), through Spring Session's filter with its default cookie resolver, which
    // lazysession's Spring configurations keep.
    MockHttpServletRequest request = new MockHttpServletRequest();
    request.setCookies(new Cookie("SESSION",
        Base64.getEncoder().encodeToString(id.getBytes(UTF_8))));
    MockHttpServletResponse response = new MockHttpServletResponse();
    AtomicReference<Object> seen = new AtomicReference<>();
    SessionRepositoryFilter<LazySession> filter = new SessionRepositoryFilter<>(nodeA);

    filter.doFilter(request, response, (req, res) -> {
      HttpSession session = ((HttpServletRequest) req).getSession(false);
      seen.set(session.getAttribute("SPRING_SECURITY_CONTEXT"));
      session.setAttribute("visited", true);
    });

    assertThat(seen.get()).isEqualTo(attributes("alice").get("SPRING_SECURITY_CONTEXT"));
    assertThat(response.getCookie("SESSION")).as("the browser keeps its cookie").isNull();
    assertThat(ssdrKeysHolding(id)).isEmpty();
    Map<String, Object> expected = attributes("alice");
    expected.put("visited", true);
    assertHoldsAll(nodeB.findById(id), expected);
  }

  // ---- the take-over while an SSDR node still serves the session (a rolling switch) -------------

  /** What a request on the SSDR node does to alice's session: the cart grows, a coupon is added. */
  void ssdrNodeAddsToCart(String id, String item, String coupon) {
    Session onSsdr = ssdr.findById(id);
    @SuppressWarnings("unchecked")
    List<String> cart = new ArrayList<>((List<String>) onSsdr.getAttribute("items"));
    cart.add(item);
    onSsdr.setAttribute("items", cart);
    onSsdr.setAttribute("coupon", coupon);
    ssdr.save(onSsdr);
  }

  /** Alice's session on SSDR with a cart holding a book. */
  String ssdrSessionWithBook() {
    Session session = ssdr.createSession();
    attributes("alice").forEach(session::setAttribute);
    session.setAttribute("items", new ArrayList<>(List.of("book")));
    ssdr.save(session);
    return session.getId();
  }

  /** The claim key of {@code id}, as docs/migration.md names it. */
  byte[] claimKey(String id) {
    String ssdrKey = ssdrNamespace + ":sessions:" + id;
    return (namespace + ":taken:{" + ssdrKey + "}:" + ssdrKey).getBytes(UTF_8);
  }

  ScriptReplies.SsdrClaim claim(String id, SsdrSession expected, boolean force) {
    byte[][] keys = {key("sessions:" + id), claimKey(id)};
    return ScriptReplies.ssdrClaim(raw.eval(RedisScript.CLAIM_SSDR.source(),
        io.lettuce.core.ScriptOutputType.MULTI, keys,
        SpringSessionDataRedisMigration.claimArguments(expected, force)));
  }

  @Test
  void claimScript_hashAsLoaded_movedToTheClaimKeyWithItsTtlAtTheFirstTry() {
    String id = ssdrSessionWithBook();
    byte[] ssdrKey = key("sessions:" + id);
    SsdrSession loaded = SsdrLayout.read(raw.hgetall(ssdrKey));
    long ttl = raw.pttl(ssdrKey);

    assertThat(claim(id, loaded, false).outcome()).isEqualTo(ScriptReplies.SsdrClaimOutcome.TAKEN);

    assertThat(raw.exists(ssdrKey)).isZero();
    assertThat(SsdrLayout.read(raw.hgetall(claimKey(id))).digest()).isEqualTo(loaded.digest());
    assertThat(raw.pttl(claimKey(id))).isPositive().isLessThanOrEqualTo(ttl);
    // Sent again (an answer lost with its connection): the same session, claimed before.
    ScriptReplies.SsdrClaim again = claim(id, loaded, false);
    assertThat(again.outcome()).isEqualTo(ScriptReplies.SsdrClaimOutcome.TAKEN_BEFORE);
    assertThat(SsdrLayout.read(again.hash()).digest()).isEqualTo(loaded.digest());
  }

  @Test
  void claimScript_hashChangedSinceLoaded_keptUnlessForcedAndAnsweredAsItIs() {
    String id = ssdrSessionWithBook();
    SsdrSession loaded = SsdrLayout.read(raw.hgetall(key("sessions:" + id)));
    ssdrNodeAddsToCart(id, "pen", "SAVE10");

    ScriptReplies.SsdrClaim kept = claim(id, loaded, false);

    assertThat(kept.outcome()).isEqualTo(ScriptReplies.SsdrClaimOutcome.CHANGED);
    assertThat(raw.exists(key("sessions:" + id))).isEqualTo(1L);
    SsdrSession current = SsdrLayout.read(kept.hash());
    assertThat(current.attributes()).containsKey("coupon");
    ScriptReplies.SsdrClaim forced = claim(id, loaded, true);
    assertThat(forced.outcome()).isEqualTo(ScriptReplies.SsdrClaimOutcome.TAKEN_CHANGED);
    assertThat(SsdrLayout.read(forced.hash()).digest()).isEqualTo(current.digest());
    assertThat(raw.exists(key("sessions:" + id))).isZero();
  }

  @Test
  void claimScript_afterADelete_nothingToClaim() {
    String id = ssdrSessionWithBook();
    SsdrSession loaded = SsdrLayout.read(raw.hgetall(key("sessions:" + id)));

    nodeB.deleteById(id);

    assertThat(claim(id, loaded, true).outcome()).isEqualTo(ScriptReplies.SsdrClaimOutcome.GONE);
    assertThat(raw.hgetall(claimKey(id)).keySet()).extracting(k -> new String(k, UTF_8))
        .containsExactly("#deleted");
    assertThat(raw.pttl(claimKey(id))).isPositive();
  }

  @Test
  void findById_takeOverLeftUnfinished_sessionServedFromTheClaimKeyAndTakenOver() {
    String id = ssdrSessionWithBook();
    SsdrSession loaded = SsdrLayout.read(raw.hgetall(key("sessions:" + id)));
    // A node claimed it, then died before writing it here.
    assertThat(claim(id, loaded, false).outcome()).isEqualTo(ScriptReplies.SsdrClaimOutcome.TAKEN);

    LazySession found = nodeA.findById(id);
    assertThat(found).isNotNull();
    assertThat((Object) found.getAttribute("items")).isEqualTo(List.of("book"));
    found.setAttribute("theme", "dark");
    nodeA.save(found);

    assertThat(raw.exists(claimKey(id))).isZero();
    LazySession onB = nodeB.findById(id);
    assertThat((String) onB.getAttribute("theme")).isEqualTo("dark");
    assertThat((Object) onB.getAttribute("items")).isEqualTo(List.of("book"));
  }

  /** Node A again, reading {@code clock}: a test acts at an exact step of its saves. */
  LazyRedisSessionRepository hookedNode(HookedClock clock) {
    return LazyRedisSessionRepository.builder(clients.a()).serializer(serializer())
        .namespace(namespace).cleanupInterval(Duration.ZERO).clock(clock)
        .migrateFrom(SpringSessionDataRedis.namespace(ssdrNamespace)).build();
  }

  /** What a lazysession request ends with, after loading the session. */
  enum LazyRequest {
    /** Reads nothing, changes nothing. */
    UNTOUCHED,
    /** Reads the cart (so the take-over re-encodes it), changes nothing. */
    READS_CART,
    /** Sets an attribute the SSDR node does not touch. */
    SETS_THEME,
    /** Changes the session id (a sign-in). */
    CHANGES_ID
  }

  @ParameterizedTest
  @EnumSource(LazyRequest.class)
  void save_springSessionDataRedisNodeWroteAfterTheLoad_nothingLost(LazyRequest request) {
    String id = ssdrSessionWithBook();
    LazySession onA = nodeA.findById(id);
    ssdrNodeAddsToCart(id, "pen", "SAVE10");
    String finalId = id;
    switch (request) {
      case UNTOUCHED -> { }
      case READS_CART -> assertThat((Object) onA.getAttribute("items")).isEqualTo(List.of("book"));
      case SETS_THEME -> onA.setAttribute("theme", "dark");
      case CHANGES_ID -> finalId = onA.changeSessionId();
    }

    nodeA.save(onA);

    LazySession onB = nodeB.findById(finalId);
    assertThat(onB).isNotNull();
    assertThat((Object) onB.getAttribute("items")).isEqualTo(List.of("book", "pen"));
    assertThat((String) onB.getAttribute("coupon")).isEqualTo("SAVE10");
    assertThat((String) onB.getAttribute("theme"))
        .isEqualTo(request == LazyRequest.SETS_THEME ? "dark" : null);
    assertHoldsAll(nodeA.findById(finalId), withCart(request, "pen"));
    assertThat(ssdrKeysHolding(id)).isEmpty();
    assertThat(nodeB.findByPrincipalName("alice")).containsOnlyKeys(finalId);
  }

  Map<String, Object> withCart(LazyRequest request, String... added) {
    Map<String, Object> expected = attributes("alice");
    List<String> cart = new ArrayList<>(List.of("book"));
    cart.addAll(List.of(added));
    expected.put("items", cart);
    expected.put("coupon", "SAVE10");
    if (request == LazyRequest.SETS_THEME) {
      expected.put("theme", "dark");
    }
    return expected;
  }

  @Test
  void save_springSessionDataRedisNodeRemovedAnAttributeAfterTheLoad_removedHereToo() {
    String id = ssdrSessionWithBook();
    LazySession onA = nodeA.findById(id);
    assertThat((String) onA.getAttribute("greeting")).isEqualTo("hello, alice");
    Session onSsdr = ssdr.findById(id);
    onSsdr.removeAttribute("greeting");
    onSsdr.setMaxInactiveInterval(Duration.ofHours(2));
    ssdr.save(onSsdr);

    nodeA.save(onA);

    LazySession onB = nodeB.findById(id);
    assertThat(onB.getAttributeNames()).doesNotContain("greeting");
    assertThat(onB.getMaxInactiveInterval()).isEqualTo(Duration.ofHours(2));
    assertThat(ssdrKeysHolding(id)).isEmpty();
  }

  @Test
  void save_bothNodesChangeTheSameAttribute_thisRequestsChangeWinsAndTheOthersStay() {
    String id = ssdrSessionWithBook();
    LazySession onA = nodeA.findById(id);
    onA.setAttribute("coupon", "WELCOME");
    ssdrNodeAddsToCart(id, "pen", "SAVE10");

    nodeA.save(onA);

    LazySession onB = nodeB.findById(id);
    assertThat((String) onB.getAttribute("coupon")).isEqualTo("WELCOME");
    assertThat((Object) onB.getAttribute("items")).isEqualTo(List.of("book", "pen"));
  }

  /**
   * Every point of the take-over at which an SSDR node may write: the write lands at the n-th
   * reading of the taking node's clock (the save's steps read it as they go). A write SSDR
   * acknowledged while its hash was still there is never lost.
   */
  @Test
  void save_springSessionDataRedisWritesAtEveryStepOfTheTakeOver_everyAcknowledgedWriteKept() {
    for (int n = 1; n <= 12; n++) {
      String id = ssdrSessionWithBook();
      HookedClock clock = new HookedClock(java.time.Clock.systemUTC());
      AtomicReference<Boolean> acknowledged = new AtomicReference<>();
      try (LazyRedisSessionRepository hooked = hookedNode(clock)) {
        LazySession onA = hooked.findById(id);
        onA.setAttribute("theme", "dark");
        String item = "pen" + n;
        clock.onRead(n, () -> {
          if (raw.exists(key("sessions:" + id)) == 0) {
            acknowledged.set(false); // after the claim: the SSDR node's session is gone
            return;
          }
          ssdrNodeAddsToCart(id, item, "SAVE10");
          acknowledged.set(true);
        });
        hooked.save(onA);
        if (acknowledged.get() == null) {
          break; // the save read the clock fewer than n times: every step was covered
        }
        LazySession onB = nodeB.findById(id);
        assertThat((String) onB.getAttribute("theme")).as("step " + n).isEqualTo("dark");
        if (acknowledged.get()) {
          assertThat((Object) onB.getAttribute("items")).as("step " + n)
              .isEqualTo(List.of("book", item));
          assertThat((String) onB.getAttribute("coupon")).as("step " + n).isEqualTo("SAVE10");
        }
        assertThat(ssdrKeysHolding(id)).as("step " + n).isEmpty();
      }
    }
  }

  /**
   * Two lazysession nodes take the same session over while an SSDR node changes it: the second
   * node's save runs at every step of the first one's (at the n-th reading of its clock). Nothing
   * any of them saved is lost.
   */
  @Test
  void save_otherLazysessionNodeSavesAtEveryStepOfATakeOver_nothingLost() {
    for (int n = 1; n <= 10; n++) {
      String id = ssdrSessionWithBook();
      HookedClock clock = new HookedClock(java.time.Clock.systemUTC());
      AtomicReference<Boolean> ran = new AtomicReference<>(false);
      try (LazyRedisSessionRepository hooked = hookedNode(clock)) {
        LazySession onA = hooked.findById(id); // the cart as it was: [book]
        assertThat((Object) onA.getAttribute("items")).isEqualTo(List.of("book"));
        ssdrNodeAddsToCart(id, "pen", "SAVE10");
        LazySession onB = nodeB.findById(id); // [book, pen]
        @SuppressWarnings("unchecked")
        List<String> cart = new ArrayList<>((List<String>) onB.getAttribute("items"));
        cart.add("cup");
        onB.setAttribute("items", cart);
        onA.setAttribute("theme", "dark");
        clock.onRead(n, () -> {
          nodeB.save(onB);
          ran.set(true);
        });
        hooked.save(onA);
        if (!ran.get()) {
          nodeB.save(onB); // after: every step was covered
        }
        LazySession after = nodeA.findById(id);
        assertThat((Object) after.getAttribute("items")).as("step " + n)
            .isEqualTo(List.of("book", "pen", "cup"));
        assertThat((String) after.getAttribute("coupon")).as("step " + n).isEqualTo("SAVE10");
        assertThat((String) after.getAttribute("theme")).as("step " + n).isEqualTo("dark");
        assertThat(ssdrKeysHolding(id)).as("step " + n).isEmpty();
        assertThat(raw.exists(claimKey(id))).as("step " + n).isZero();
        if (!ran.get()) {
          break;
        }
      }
    }
  }

  /**
   * A sign-in (an id change) on another node at every step of a take-over: the old id never comes
   * back, and the new one holds everything.
   */
  @Test
  void save_idChangedOnOtherNodeAtEveryStepOfATakeOver_oldIdNeverComesBack() {
    for (int n = 1; n <= 10; n++) {
      String id = ssdrSessionWithBook();
      HookedClock clock = new HookedClock(java.time.Clock.systemUTC());
      AtomicReference<String> newId = new AtomicReference<>();
      try (LazyRedisSessionRepository hooked = hookedNode(clock)) {
        LazySession onA = hooked.findById(id);
        LazySession onB = nodeB.findById(id);
        onA.setAttribute("theme", "dark");
        clock.onRead(n, () -> {
          newId.set(onB.changeSessionId());
          nodeB.save(onB);
        });
        hooked.save(onA);
        if (newId.get() == null) {
          break;
        }
        assertThat(nodeB.findById(id)).as("old id, step " + n).isNull();
        assertThat(ssdr.findById(id)).as("step " + n).isNull();
        LazySession moved = nodeB.findById(newId.get());
        assertThat(moved).as("new id, step " + n).isNotNull();
        assertThat((Object) moved.getAttribute("items")).as("step " + n).isEqualTo(List.of("book"));
        assertThat(nodeB.findByPrincipalName("alice")).as("step " + n)
            .containsKey(newId.get()).doesNotContainKey(id);
      }
    }
  }

  @Test
  void save_takeOverWithDurabilityAndNoReplica_failsAndLosesNothing() {
    String id = ssdrSessionWithBook();
    try (LazyRedisSessionRepository durable = LazyRedisSessionRepository.builder(clients.a())
        .serializer(serializer()).namespace(namespace).cleanupInterval(Duration.ZERO)
        .durability(1, Duration.ofMillis(200))
        .migrateFrom(SpringSessionDataRedis.namespace(ssdrNamespace)).build()) {
      LazySession onA = durable.findById(id);
      onA.setAttribute("theme", "dark");

      org.assertj.core.api.Assertions.assertThatThrownBy(() -> durable.save(onA))
          .isInstanceOf(SessionNotReplicatedException.class);

      // SSDR's copy is still held (the claim key) and the created one is readable.
      assertThat(raw.exists(claimKey(id))).isEqualTo(1L);
      LazySession onB = nodeB.findById(id);
      assertThat((Object) onB.getAttribute("items")).isEqualTo(List.of("book"));
      onB.setAttribute("theme", "dark");
      nodeB.save(onB);
      assertThat((String) nodeA.findById(id).getAttribute("theme")).isEqualTo("dark");
    }
  }

  @Test
  void save_neverIdleExpiringSessionTakenOverWithAnAbsoluteTimeout_getsATtlUpToTheDeadline() {
    assumeTrue(kind == Ssdr.REDIS_INDEXED_SESSION_REPOSITORY, "RedisSessionRepository sends "
        + "EXPIRE with the negative interval, which deletes the hash: nothing to take over");
    Session original = ssdr.createSession();
    original.setMaxInactiveInterval(Duration.ofSeconds(-1));
    original.setAttribute("greeting", "hello");
    ssdr.save(original);
    Duration absolute = Duration.ofHours(1);
    Duration grace = Duration.ofMinutes(5);
    try (LazyRedisSessionRepository node = LazyRedisSessionRepository.builder(clients.a())
        .serializer(serializer()).namespace(namespace).cleanupInterval(Duration.ZERO)
        .migrateFrom(SpringSessionDataRedis.namespace(ssdrNamespace))
        .absoluteTimeout(absolute).expiryGrace(grace).build()) {
      LazySession found = node.findById(original.getId());
      node.save(found); // a read-only first request: the take-over alone writes

      byte[] hash = (namespace + ":s:{" + original.getId() + "}").getBytes(UTF_8);
      assertThat(raw.exists(hash)).isEqualTo(1L);
      assertThat(raw.pttl(hash)).isPositive().isLessThanOrEqualTo(absolute.plus(grace).toMillis());
    }
  }

  @Test
  void findById_idWithBraces_neverLooksAtSpringSessionDataRedis() {
    long before = keyspaceHits();

    assertThat(nodeA.findById("x}y{")).isNull();
    nodeA.deleteById("a{b}c");

    assertThat(keyspaceHits()).isEqualTo(before);
    assertThat(raw.exists(claimKey("a{b}c"))).isZero();
  }

  /** A sign-out on another node at every step of a take-over: the session never comes back. */
  @Test
  void save_deletedOnOtherNodeAtEveryStepOfATakeOver_neverBroughtBack() {
    for (int n = 1; n <= 10; n++) {
      String id = ssdrSessionWithBook();
      HookedClock clock = new HookedClock(java.time.Clock.systemUTC());
      AtomicReference<Boolean> ran = new AtomicReference<>(false);
      try (LazyRedisSessionRepository hooked = hookedNode(clock)) {
        LazySession onA = hooked.findById(id);
        onA.setAttribute("theme", "dark");
        clock.onRead(n, () -> {
          nodeB.deleteById(id);
          ran.set(true);
        });
        hooked.save(onA);
        if (!ran.get()) {
          break;
        }
        assertThat(nodeB.findById(id)).as("step " + n).isNull();
        assertThat(ssdr.findById(id)).as("step " + n).isNull();
        assertThat(nodeB.findByPrincipalName("alice")).as("step " + n).doesNotContainKey(id);
      }
    }
  }

  long keyspaceHits() {
    String stats = raw.info("stats");
    for (String line : stats.split("\r?\n")) {
      if (line.startsWith("keyspace_hits:")) {
        return Long.parseLong(line.substring("keyspace_hits:".length()).trim());
      }
    }
    throw new IllegalStateException("no keyspace_hits in INFO stats");
  }

  static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
