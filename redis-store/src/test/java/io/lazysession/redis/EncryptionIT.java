package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.bootapp.ShopApplication;
import io.lazysession.redis.planted.ExhaustsMemoryOnRead;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.session.FindByIndexNameSessionRepository;

/**
 * Protection of stored values (lazysession.encryption.keys, docs/security.md) on real Redis, each
 * test with nodes configured through the builder and through the Spring Boot property: forged and
 * copied values are refused before any codec sees them, keys rotate and protection rolls out across
 * two nodes without signing anybody out, and Redis holds no attribute plaintext.
 */
class EncryptionIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final String K1 = "k1:" + secret(1);
  static final String K2 = "k2:" + secret(2);
  static final String MARKER = "marker-7f3a91";
  static final String PLANTED_PACKAGE = ExhaustsMemoryOnRead.class.getPackageName();

  static RedisClient client;
  static RedisCommands<byte[], byte[]> raw;
  final List<AutoCloseable> open = new ArrayList<>();

  /** How a node is configured. */
  enum Config {
    BUILDER, BOOT
  }

  /** What a node is given: keys (null: none) and the two rollout flags. */
  record Keys(@Nullable String keys, boolean acceptUnprotected, boolean writeUnprotected) {
    static final Keys NONE = new Keys(null, true, false);

    static Keys strict(String keys) {
      return new Keys(keys, false, false);
    }

    static Keys lenient(String keys) {
      return new Keys(keys, true, false);
    }
  }

  @BeforeAll
  static void connect() {
    client = RedisClient.create(redis.uri());
    raw = TestRedis.rawCommands(client);
  }

  @AfterAll
  static void shutdown() {
    client.shutdown();
  }

  @AfterEach
  void closeNodes() throws Exception {
    for (AutoCloseable node : open) {
      node.close();
    }
  }

  static String secret(int seed) {
    byte[] bytes = new byte[EncryptionKey.SECRET_BYTES];
    new Random(seed).nextBytes(bytes);
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** A node of {@code namespace}, as {@code config} builds it; closed after the test. */
  LazyRedisSessionRepository node(Config config, String namespace, Keys keys) {
    if (config == Config.BUILDER) {
      LazyRedisSessionRepositoryBuilder builder = LazyRedisSessionRepository.builder(client)
          .namespace(namespace)
          .serializer(AttributeSerializer.builder().allowList(ClassAllowList.builder()
              .allowPackage(PLANTED_PACKAGE).build()).build());
      if (keys.keys() != null) {
        builder.encryption(SessionEncryption.builder().keys(keys.keys())
            .acceptUnprotected(keys.acceptUnprotected())
            .writeUnprotected(keys.writeUnprotected()).build());
      }
      LazyRedisSessionRepository node = builder.build();
      open.add(node);
      return node;
    }
    List<String> properties = new ArrayList<>(List.of("spring.data.redis.url=" + redis.url(),
        "lazysession.namespace=" + namespace, "spring.main.banner-mode=off",
        "lazysession.allowed-packages=" + PLANTED_PACKAGE));
    if (keys.keys() != null) {
      properties.add("lazysession.encryption.keys=" + keys.keys());
      properties.add("lazysession.encryption.accept-unprotected=" + keys.acceptUnprotected());
      properties.add("lazysession.encryption.write-unprotected=" + keys.writeUnprotected());
    }
    ConfigurableApplicationContext context = new SpringApplicationBuilder(ShopApplication.class)
        .web(WebApplicationType.SERVLET).properties("server.port=0")
        .properties(properties.toArray(String[]::new)).run();
    open.add(context);
    return context.getBean(LazyRedisSessionRepository.class);
  }

  static SecurityContext signedIn(String user, String... roles) {
    return new SecurityContextImpl(UsernamePasswordAuthenticationToken.authenticated(user, null,
        AuthorityUtils.createAuthorityList(roles)));
  }

  /** A session of {@code user}: security context, principal index, a small and a large value. */
  static String signIn(LazyRedisSessionRepository node, String user) {
    LazySession session = node.createSession();
    session.setAttribute(LazySession.SPRING_SECURITY_CONTEXT, signedIn(user, "ROLE_USER"));
    session.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, user);
    session.setAttribute("note", MARKER + " for " + user);
    session.setAttribute("report", (MARKER + " ").repeat(400) + new Random().nextLong());
    node.save(session);
    return session.getId();
  }

  static void assertSignedIn(LazyRedisSessionRepository node, String id, String user) {
    LazySession session = node.findById(id);
    assertThat(session).as("session of %s", user).isNotNull();
    SecurityContext context = session.getAttribute(LazySession.SPRING_SECURITY_CONTEXT);
    assertThat(context).as("security context of %s", user).isNotNull();
    assertThat(context.getAuthentication().getName()).isEqualTo(user);
    assertThat((String) session.getAttribute("note")).isEqualTo(MARKER + " for " + user);
    assertThat((String) session.getAttribute("report")).startsWith(MARKER);
  }

  /**
   * Where session {@code id} is stored: under its clear id, or else its keyed name, computed from
   * the names secret Redis holds for the namespace (opened with any of the test's keys).
   */
  static byte[] key(String namespace, String id) {
    byte[] clear = (namespace + ":s:{" + id + "}").getBytes(UTF_8);
    if (raw.exists(clear) > 0) {
      return clear;
    }
    Map<byte[], byte[]> wrapped = raw.hgetall(NamesKey.key(namespace));
    for (EncryptionKey key : EncryptionKey.parseList(K1 + "," + K2 + ",vault7:" + secret(7))) {
      for (Map.Entry<byte[], byte[]> field : wrapped.entrySet()) {
        byte[] secret = new String(field.getKey(), UTF_8).equals(key.id())
            ? NamesKey.unwrap(namespace, key, field.getValue()) : null;
        if (secret != null) {
          String name = new SessionNames(namespace, secret).sessionName(id);
          return (namespace + ":s:{" + name + "}").getBytes(UTF_8);
        }
      }
    }
    return clear;
  }

  /** Key ids of every protected value of a session hash ("-" for an unprotected one). */
  static List<String> keyIds(String namespace, String id) {
    List<String> ids = new ArrayList<>();
    PackFields pack = new PackFields();
    raw.hgetall(key(namespace, id)).forEach((name, value) -> {
      String field = new String(name, UTF_8);
      if (!pack.offer(name, value) && (field.equals(SessionKeys.PRINCIPAL)
          || SessionKeys.attributeName(field) != null)) {
        ids.add(keyIdOf(value));
      }
    });
    if (pack.pack() != null) {
      ids.add(keyIdOf(pack.pack()));
    }
    return ids;
  }

  static String keyIdOf(byte[] value) {
    String id = ValueProtection.keyId(value);
    return id == null ? "-" : id;
  }

  @ParameterizedTest
  @EnumSource(Config.class)
  void findById_adminContextWrittenWithoutKey_isRejectedAndNeverDecoded(Config config) {
    String namespace = TestRedis.uniqueNamespace("enc-forged-" + config);
    LazyRedisSessionRepository writer = node(config, namespace, Keys.strict(K1));
    LazySession written = writer.createSession();
    written.setAttribute("report", MARKER.repeat(100));
    writer.save(written);
    String id = written.getId();
    byte[] key = key(namespace, id);
    AttributeSerializer codec = AttributeSerializer.builder().allowList(ClassAllowList.builder()
        .allowPackage(PLANTED_PACKAGE).build()).build();
    // Encoded by the right codec, stored in clear: what anybody who can write to Redis can do.
    byte[] admin = codec.serialize(signedIn("eve", "ROLE_ADMIN"));
    raw.hset(key, LazySession.SPRING_SECURITY_CONTEXT.getBytes(UTF_8), admin);
    // Sealed with the right key id but another secret; and a value that fails if ever decoded.
    ValueProtection forger = new ValueProtection(namespace, SessionEncryption.builder()
        .keys("k1:" + secret(99)).build(), new MetricsRecorder());
    raw.hset(key, "grant".getBytes(UTF_8),
        forger.seal(id, "grant", codec.serialize("forged " + MARKER)));
    raw.hset(key, "bomb".getBytes(UTF_8),
        forger.seal(id, "bomb", codec.serialize(new ExhaustsMemoryOnRead())));
    TestRedis.bumpVersion(raw, key);
    LazyRedisSessionRepository reader = node(config, namespace, Keys.strict(K1));

    LazySession session = reader.findById(id);

    assertThat(session).isNotNull();
    assertThat((Object) session.getAttribute(LazySession.SPRING_SECURITY_CONTEXT)).isNull();
    assertThat((Object) session.getAttribute("grant")).isNull();
    assertThat((Object) session.getAttribute("bomb")).isNull(); // never decoded: no Error
    assertThat((String) session.getAttribute("report")).startsWith(MARKER);
    assertThat(reader.metrics().rejectedValues()).isEqualTo(3);
    assertThat(reader.metrics().decodeFailures()).isZero();
    // The planted context itself is valid: a node without keys (reading the hash under the
    // session's clear id) decodes it as an admin.
    raw.copy(key, (namespace + ":s:{" + id + "}").getBytes(UTF_8));
    LazySession unprotectedView = node(Config.BUILDER, namespace, Keys.NONE).findById(id);
    SecurityContext planted = unprotectedView.getAttribute(LazySession.SPRING_SECURITY_CONTEXT);
    assertThat(planted.getAuthentication().getAuthorities()).extracting(Object::toString)
        .containsExactly("ROLE_ADMIN");
  }

  @ParameterizedTest
  @EnumSource(Config.class)
  void findById_valuesCopiedFromAnotherSessionOrField_areRejected(Config config) {
    String namespace = TestRedis.uniqueNamespace("enc-copied-" + config);
    LazyRedisSessionRepository node = node(config, namespace, Keys.strict(K1));
    String alice = signIn(node, "alice");
    String mallory = signIn(node, "mallory");
    Map<byte[], byte[]> aliceHash = raw.hgetall(key(namespace, alice));
    byte[] malloryKey = key(namespace, mallory);
    for (Map.Entry<byte[], byte[]> field : aliceHash.entrySet()) {
      if (!new String(field.getKey(), UTF_8).equals(SessionKeys.METADATA)) {
        raw.hset(malloryKey, field.getKey(), field.getValue()); // alice's values, mallory's session
      }
    }
    byte[] aliceKey = key(namespace, alice);
    byte[] report = aliceHash.entrySet().stream()
        .filter(field -> new String(field.getKey(), UTF_8).equals("report"))
        .findFirst().orElseThrow().getValue();
    raw.hset(aliceKey, "copy".getBytes(UTF_8), report);
    TestRedis.bumpVersion(raw, malloryKey);
    TestRedis.bumpVersion(raw, aliceKey);
    LazyRedisSessionRepository reader = node(config, namespace, Keys.strict(K1));

    LazySession stolen = reader.findById(mallory);
    LazySession own = reader.findById(alice);

    assertThat(stolen).isNotNull();
    assertThat(stolen.getAttributeNames()).isEmpty();
    assertThat(reader.findByPrincipalName("alice")).containsOnlyKeys(alice);
    assertThat((Object) own.getAttribute("copy")).isNull();
    assertThat((String) own.getAttribute("report")).startsWith(MARKER);
    assertThat(reader.metrics().rejectedValues()).isPositive();
  }

  @ParameterizedTest
  @EnumSource(Config.class)
  void reencrypt_newFirstKey_movesEveryValueAndTheOldKeyCanGo(Config config) {
    String namespace = TestRedis.uniqueNamespace("enc-rotate-" + config);
    LazyRedisSessionRepository old = node(config, namespace, Keys.strict(K1));
    List<String> ids = List.of(signIn(old, "ada"), signIn(old, "bob"), signIn(old, "cy"));
    LazyRedisSessionRepository rotated = node(config, namespace, Keys.strict(K2 + "," + K1));
    LazySession changed = rotated.findById(ids.get(0));
    changed.setAttribute("note", MARKER + " for ada");
    changed.setAttribute("extra", "x");
    rotated.save(changed);
    assertThat(keyIds(namespace, ids.get(0))).contains("k1", "k2"); // rewritten values move

    ReencryptionReport report = rotated.reencrypt();

    assertThat(report.sessions()).isEqualTo(3);
    assertThat(report.rewritten()).isPositive();
    assertThat(report.remaining()).isZero();
    for (String id : ids) {
      assertThat(keyIds(namespace, id)).isNotEmpty().containsOnly("k2");
    }
    assertThat(rotated.reencrypt()).isEqualTo(new ReencryptionReport(3, 0, 0, 0));
    LazyRedisSessionRepository newOnly = node(config, namespace, Keys.strict(K2));
    assertSignedIn(newOnly, ids.get(0), "ada");
    assertSignedIn(newOnly, ids.get(1), "bob");
    assertSignedIn(newOnly, ids.get(2), "cy");
    assertThat(newOnly.findByPrincipalName("bob")).containsOnlyKeys(ids.get(1));
    assertThat(newOnly.metrics().rejectedValues()).isZero();
    // A node that lacks k2 (and no near-cache copy) keeps what it cannot read: hidden, not deleted.
    LazyRedisSessionRepository lacking = node(config, namespace, Keys.strict(K1));
    LazySession stale = lacking.findById(ids.get(1));
    assertThat(stale.getAttribute("report") == null).as("report hidden").isTrue();
    stale.setAttribute("seen", true);
    lacking.save(stale);
    assertSignedIn(newOnly, ids.get(1), "bob");
    assertThat(lacking.reencrypt().remaining()).isPositive();
  }

  @ParameterizedTest
  @EnumSource(Config.class)
  void rollout_twoNodesTurnProtectionOnThenOff_nobodyIsSignedOut(Config config) {
    String namespace = TestRedis.uniqueNamespace("enc-rollout-" + config);
    Keys learning = new Keys(K1, true, true);
    LazyRedisSessionRepository a = node(config, namespace, Keys.NONE);
    LazyRedisSessionRepository b = node(config, namespace, Keys.NONE);
    String id = signIn(a, "dora");
    // Step 1, node by node: keys, still writing unprotected (nodes without keys read everything).
    a = node(config, namespace, learning);
    touch(a, id, 1);
    assertSignedIn(b, id, "dora");
    b = node(config, namespace, learning);
    assertSignedIn(b, id, "dora");
    // Step 2, node by node: writing protected (every node reads both).
    a = node(config, namespace, Keys.lenient(K1));
    touch(a, id, 2);
    assertThat(keyIds(namespace, id)).contains("k1");
    assertSignedIn(b, id, "dora");
    touch(b, id, 3);
    b = node(config, namespace, Keys.lenient(K1));
    assertSignedIn(b, id, "dora");
    // Step 3: what is still unprotected is sealed; then unprotected values are refused.
    assertThat(b.reencrypt().remaining()).isZero();
    assertThat(keyIds(namespace, id)).containsOnly("k1");
    a = node(config, namespace, Keys.strict(K1));
    b = node(config, namespace, Keys.strict(K1));
    assertSignedIn(a, id, "dora");
    assertSignedIn(b, id, "dora");
    assertThat(b.findByPrincipalName("dora")).containsOnlyKeys(id);
    // Off, the same steps backwards: write unprotected everywhere, reencrypt, drop the keys.
    a = node(config, namespace, learning);
    b = node(config, namespace, learning);
    touch(a, id, 4);
    assertThat(b.reencrypt().remaining()).isZero();
    assertThat(keyIds(namespace, id)).containsOnly("-");
    a = node(config, namespace, Keys.NONE);
    assertSignedIn(a, id, "dora");
    assertThat(a.findByPrincipalName("dora")).containsOnlyKeys(id);
    assertThat(a.metrics().rejectedValues() + b.metrics().rejectedValues()).isZero();
  }

  @org.junit.jupiter.api.Test
  void startup_encryptionKeySourceBean_sealsWithItsFirstKey() {
    String namespace = TestRedis.uniqueNamespace("enc-source");
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
        ShopApplication.class, KeySourceConfiguration.class).web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(), "lazysession.namespace=" + namespace,
            "lazysession.encryption.accept-unprotected=false").run()) {
      LazyRedisSessionRepository node = context.getBean(LazyRedisSessionRepository.class);

      String id = signIn(node, "gus");

      assertThat(keyIds(namespace, id)).isNotEmpty().containsOnly("vault7");
      assertSignedIn(node(Config.BUILDER, namespace, Keys.strict("vault7:" + secret(7))), id,
          "gus");
    }
  }

  @org.junit.jupiter.api.Test
  void reactive_sealsAndOpensAsTheServletRepository() {
    String namespace = TestRedis.uniqueNamespace("enc-reactive");
    LazyReactiveRedisSessionRepository reactive = LazyReactiveRedisSessionRepository.of(
        node(Config.BUILDER, namespace, Keys.strict(K1)));
    LazySession session = reactive.createSession().block();
    session.setAttribute("note", MARKER);
    session.setAttribute("report", MARKER.repeat(200));
    session.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "hal");
    reactive.save(session).block();
    session.setAttribute("note", MARKER + "2");
    reactive.save(session).block();

    assertThat(keyIds(namespace, session.getId())).isNotEmpty().containsOnly("k1");
    LazyRedisSessionRepository other = node(Config.BUILDER, namespace, Keys.strict(K1));
    assertThat((String) other.findById(session.getId()).getAttribute("note"))
        .isEqualTo(MARKER + "2");
    LazySession read = LazyReactiveRedisSessionRepository.of(other).findById(session.getId())
        .block();
    assertThat((String) read.getAttribute("report")).isEqualTo(MARKER.repeat(200));
    assertThat(reactive.findByIndexNameAndIndexValue(
        FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "hal").block())
        .containsOnlyKeys(session.getId());
    assertThat(other.metrics().rejectedValues()).isZero();
  }

  /** Keys from a bean, as from Vault or a KMS. */
  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  static class KeySourceConfiguration {
    @org.springframework.context.annotation.Bean
    EncryptionKeySource keys() {
      return () -> EncryptionKey.parseList("vault7:" + secret(7));
    }
  }

  /** A request that reads the session and changes one value. */
  static void touch(LazyRedisSessionRepository node, String id, int visit) {
    LazySession session = node.findById(id);
    assertThat(session).isNotNull();
    session.setAttribute("visits", visit);
    node.save(session);
  }

  @ParameterizedTest
  @EnumSource(Config.class)
  void dump_afterSignIns_holdsNoAttributePlaintextNorPrincipalInValues(Config config) {
    String namespace = TestRedis.uniqueNamespace("enc-dump-" + config);
    LazyRedisSessionRepository node = node(config, namespace, Keys.strict(K1));
    List<String> users = List.of("erin-7f3a91", "frank-7f3a91");
    for (String user : users) {
      assertSignedIn(node, signIn(node, user), user);
    }

    ByteArrayOutputStream values = new ByteArrayOutputStream();
    List<String> keys = new ArrayList<>();
    ScanIterator<byte[]> scan =
        ScanIterator.scan(raw, KeyScanArgs.Builder.matches(namespace + ":*").limit(1000));
    while (scan.hasNext()) {
      byte[] key = scan.next();
      keys.add(new String(key, UTF_8));
      switch (raw.type(key)) {
        case "hash" -> raw.hgetall(key).forEach((field, value) -> values.writeBytes(value));
        case "set" -> raw.smembers(key).forEach(values::writeBytes);
        case "zset" -> raw.zrange(key, 0, -1).forEach(values::writeBytes);
        default -> values.writeBytes(raw.dump(key));
      }
    }

    assertThat(keys).hasSizeGreaterThanOrEqualTo(3);
    String dumped = new String(values.toByteArray(), java.nio.charset.StandardCharsets.ISO_8859_1);
    assertThat(dumped).doesNotContain(MARKER).doesNotContain("ROLE_USER")
        .doesNotContain("SecurityContextImpl");
    for (String user : users) {
      assertThat(dumped).doesNotContain(user);
    }
  }

  /**
   * A node that holds the key but cannot read the pack inside the seal (a later format, during a
   * rolling deploy) carries the pack on an id change. The seal binds the session id: carried
   * sealed as it is, no node could open it under the new id, and the next write of a pack would
   * replace it, losing every attribute in it. It is sealed again for the new id.
   */
  @Test
  void changeSessionId_packThisNodeCannotRead_staysReadableUnderTheNewId() {
    String namespace = TestRedis.uniqueNamespace("enc-carry");
    LazyRedisSessionRepository node = node(Config.BUILDER, namespace, Keys.strict(K1));
    LazySession written = node.createSession();
    written.setAttribute("report", MARKER.repeat(100)); // a field of its own
    node.save(written);
    String id = written.getId();
    ValueProtection protection = new ValueProtection(namespace,
        SessionEncryption.builder().keys(K1).build(), new MetricsRecorder());
    byte[] newerFormat = AttributePackIT.unreadablePack("newer-version");
    byte[] key = key(namespace, id);
    raw.hset(key, StoredPack.FIELD.getBytes(UTF_8), protection.seal(id, StoredPack.FIELD,
        newerFormat));
    TestRedis.bumpVersion(raw, key);

    LazySession loaded = node.findById(id);
    String newId = loaded.changeSessionId();
    node.save(loaded);

    byte[] moved = TestRedis.pack(raw, key(namespace, newId));
    assertThat(moved).as("the pack under the new id").isNotNull();
    assertThat(protection.open(newId, StoredPack.FIELD, moved)).as("opened under the new id")
        .isEqualTo(newerFormat);
    assertThat((String) node.findById(newId).getAttribute("report")).startsWith(MARKER);
  }
}
