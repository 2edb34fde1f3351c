package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lazysession.redis.planted.ExhaustsMemoryOnRead;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.reference.ReferenceSession;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.events.SessionDeletedEvent;

/**
 * One attribute field holds bytes the reader cannot decode; the session must stay usable according
 * to the configured policy, and nothing another node could read is ever deleted. One test runs every
 * policy against every kind of planted data.
 */
class DecodeFailureIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  /** What is planted in the "cart" field. */
  enum Planted {
    /** Bytes that are no envelope at all. */
    CORRUPT_BYTES,
    /** A valid envelope naming a class outside the reader's allow-list. */
    DISALLOWED_CLASS,
    /** A valid envelope naming an allowed class the reader does not have (a newer node wrote it). */
    MISSING_CLASS,
    /** A valid envelope whose decoding throws an Error (a valid value too large for this heap). */
    ERROR_WHILE_DECODING;

    /** Whether DROP_ATTRIBUTE keeps the stored bytes: only corrupt ones are deleted. */
    boolean keptByDropAttribute() {
      return this != CORRUPT_BYTES;
    }
  }

  static Stream<Arguments> policiesAndPlantedData() {
    return Arrays.stream(DecodeFailurePolicy.values()).flatMap(policy ->
        Arrays.stream(Planted.values()).map(planted -> Arguments.of(policy, planted)));
  }

  static final String PLANTED_PACKAGE = ExhaustsMemoryOnRead.class.getPackageName();

  static RedisClient client;
  static RedisCommands<byte[], byte[]> raw;
  final RecordingEventPublisher events = new RecordingEventPublisher();
  final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  final Logger repositoryLogger = (Logger) LoggerFactory.getLogger(DecodeFailureHandler.class);
  String namespace;

  @BeforeAll
  static void connect() {
    client = RedisClient.create(redis.uri());
    raw = TestRedis.rawCommands(client);
  }

  @AfterAll
  static void shutdown() {
    client.shutdown();
  }

  @BeforeEach
  void captureLogs() {
    logs.start();
    repositoryLogger.addAppender(logs);
  }

  @AfterEach
  void releaseLogs() {
    repositoryLogger.detachAppender(logs);
  }

  /** A node that decodes JDK value types and the reference session's package. */
  LazyRedisSessionRepository reader(DecodeFailurePolicy policy) {
    return LazyRedisSessionRepository.builder(client)
        .serializer(AttributeSerializer.builder()
            .allowList(ClassAllowList.builder().allowPackage(ReferenceSession.PACKAGE)
                .allowPackage(PLANTED_PACKAGE).build())
            .build())
        .namespace(namespace)
        .cleanupInterval(Duration.ZERO)
        .onDecodeFailure(policy)
        .eventPublisher(events)
        .build();
  }

  /**
   * A Kryo envelope (uncompressed) of a reference-session value whose class name was changed to one
   * of the same length that no node has: what a newer version's class looks like to an older one.
   */
  static byte[] missingClassEnvelope() {
    byte[] envelope = AttributeSerializer.builder().compression(Compression.none())
        .allowList(ClassAllowList.builder().allowPackage(ReferenceSession.PACKAGE).build())
        .build().serialize(ReferenceSession.create().get("user"));
    byte[] from = "reference.UserProf".getBytes(UTF_8);
    byte[] to = "reference.GoneProf".getBytes(UTF_8);
    int replaced = 0;
    for (int i = 0; i + from.length <= envelope.length; i++) {
      if (Arrays.equals(envelope, i, i + from.length, from, 0, from.length)) {
        System.arraycopy(to, 0, envelope, i, to.length);
        replaced++;
      }
    }
    assertThat(replaced).as("class names replaced").isPositive();
    return envelope;
  }

  /** Stores a session with three readable attributes and the planted "cart" field. */
  String plantedSession(LazyRedisSessionRepository repository, Planted planted) {
    LazySession session = repository.createSession();
    session.setAttribute("currency", "EUR");
    session.setAttribute("visits", 42);
    session.setAttribute("cart", "placeholder");
    repository.save(session);
    byte[] bad = switch (planted) {
      case CORRUPT_BYTES -> new byte[] {(byte) 0xFF, 0x13, 0x37, 0x00, 0x42, 0x42};
      case DISALLOWED_CLASS -> TestRedis.serializer().serialize(ShopFixtures.attributes().get("cart"));
      case MISSING_CLASS -> missingClassEnvelope();
      case ERROR_WHILE_DECODING -> AttributeSerializer.builder().codec(CodecKind.JDK)
          .allowList(ClassAllowList.builder().allowPackage(PLANTED_PACKAGE).build()).build()
          .serialize(new ExhaustsMemoryOnRead());
    };
    byte[] key = (namespace + ":s:{" + session.getId() + "}").getBytes(UTF_8);
    raw.hset(key, "cart".getBytes(UTF_8), bad);
    TestRedis.bumpVersion(raw, key); // as every writer does, so near caches notice
    return session.getId();
  }

  /**
   * A class outside the allow-list (as after taking sessions over from Spring Session Data Redis):
   * hidden at every request, counted each time, but logged once per class, not once per request.
   */
  @org.junit.jupiter.api.Test
  void getAttribute_classOutsideTheListOnEveryRequest_hiddenEachTimeLoggedOncePerClass() {
    namespace = TestRedis.uniqueNamespace("refused-once");
    try (LazyRedisSessionRepository repository = reader(DecodeFailurePolicy.DROP_ATTRIBUTE)) {
      String id = plantedSession(repository, Planted.DISALLOWED_CLASS);
      String other = plantedSession(repository, Planted.DISALLOWED_CLASS);

      for (int request = 0; request < 3; request++) {
        for (String session : new String[] {id, other}) {
          LazySession loaded = repository.findById(session);
          assertThat((Object) loaded.getAttribute("cart")).isNull();
          repository.save(loaded);
        }
      }

      assertThat(repository.metrics().decodeFailures()).isEqualTo(6);
      assertThat(logs.list).singleElement().satisfies(event -> {
        assertThat(event.getLevel()).isEqualTo(Level.WARN);
        assertThat(event.getFormattedMessage()).contains(ShopFixtures.Cart.class.getName())
            .contains("logged once per class")
            .contains("lazysession.allowed-packages=io.lazysession.redis");
      });
    }
  }

  @ParameterizedTest(name = "{0} x {1}")
  @MethodSource("policiesAndPlantedData")
  void getAttributeThenSave_plantedField_followsThePolicyAndKeepsWhatIsValid(
      DecodeFailurePolicy policy, Planted planted) {
    namespace = TestRedis.uniqueNamespace(policy.propertyValue() + "-" + planted);
    try (LazyRedisSessionRepository repository = reader(policy)) {
      String id = plantedSession(repository, planted);
      byte[] key = (namespace + ":s:{" + id + "}").getBytes(UTF_8);
      byte[] plantedBytes = raw.hget(key, "cart".getBytes(UTF_8));

      LazySession session = repository.findById(id);
      // Loading decodes nothing, so it never fails.
      assertThat(session.getAttributeNames()).containsExactlyInAnyOrder("currency", "visits", "cart");
      assertThat(session.attributeInfo()).noneMatch(AttributeInfo::inflated);
      session.setAttribute("currency", "CHF");

      if (planted == Planted.ERROR_WHILE_DECODING) {
        // An Error says nothing about the bytes: it propagates, and no policy applies.
        assertThatThrownBy(() -> session.getAttribute("cart"))
            .isInstanceOf(OutOfMemoryError.class);
        assertThat(session.getAttributeNames()).contains("cart");
        assertThat(repository.metrics().decodeFailures()).isZero();
      } else if (policy == DecodeFailurePolicy.FAIL) {
        assertThatThrownBy(() -> session.getAttribute("cart"))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'cart'").hasMessageContaining(id);
      } else {
        assertThat((Object) session.getAttribute("cart")).isNull();
        assertThat(repository.metrics().decodeFailures()).isEqualTo(1);
        assertThat(logs.list).singleElement().satisfies(event -> {
          assertThat(event.getLevel()).isEqualTo(Level.WARN);
          assertThat(event.getFormattedMessage()).contains(id).contains("'cart'");
          if (planted == Planted.DISALLOWED_CLASS) {
            assertThat(event.getFormattedMessage()).contains(ShopFixtures.Cart.class.getName());
          }
        });
      }
      boolean invalidated = policy == DecodeFailurePolicy.INVALIDATE_SESSION
          && planted != Planted.ERROR_WHILE_DECODING;
      if (invalidated) {
        assertThat(session.getAttributeNames()).isEmpty();
        assertThat(session.isExpired()).isTrue();
      } else {
        assertThat(session.<Integer>getAttribute("visits")).isEqualTo(42);
      }
      if (policy == DecodeFailurePolicy.DROP_ATTRIBUTE && planted != Planted.ERROR_WHILE_DECODING) {
        assertThat(session.getAttributeNames()).containsExactlyInAnyOrder("currency", "visits");
        assertThat(session.attributeInfo()).extracting(AttributeInfo::name).doesNotContain("cart");
      }

      repository.save(session);

      if (invalidated) {
        assertThat(repository.findById(id)).isNull();
        assertThat(events.ofType(SessionDeletedEvent.class)).singleElement()
            .extracting(SessionDeletedEvent::getSessionId).isEqualTo(id);
        return;
      }
      boolean deleted = policy == DecodeFailurePolicy.DROP_ATTRIBUTE
          && !planted.keptByDropAttribute();
      assertThat(raw.hget(key, "cart".getBytes(UTF_8))).isEqualTo(deleted ? null : plantedBytes);
      LazySession again = repository.findById(id);
      assertThat(again.<String>getAttribute("currency")).isEqualTo("CHF");
      if (deleted) {
        assertThat(again.getAttributeNames()).containsExactlyInAnyOrder("currency", "visits");
      } else {
        assertThat(again.getAttributeNames()).containsExactlyInAnyOrder("currency", "visits", "cart");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = Planted.class, names = {"DISALLOWED_CLASS", "MISSING_CLASS"})
  void changeSessionId_hiddenAttribute_movesItsBytesUnchanged(Planted planted) {
    namespace = TestRedis.uniqueNamespace("drop-change-id-" + planted);
    try (LazyRedisSessionRepository repository = reader(DecodeFailurePolicy.DROP_ATTRIBUTE)) {
      String id = plantedSession(repository, planted);
      byte[] plantedBytes = raw.hget((namespace + ":s:{" + id + "}").getBytes(UTF_8),
          "cart".getBytes(UTF_8));
      LazySession session = repository.findById(id);
      session.getAttribute("cart");

      String newId = session.changeSessionId();
      repository.save(session);

      // Small, so written into the new hash's pack: the same envelope, unchanged.
      byte[] newKey = (namespace + ":s:{" + newId + "}").getBytes(UTF_8);
      assertThat(raw.hget(newKey, "cart".getBytes(UTF_8))).isNull();
      assertThat(AttributeSerializer.builder().build()
          .unpack(TestRedis.pack(raw, newKey)).get("cart"))
          .isEqualTo(plantedBytes);
    }
  }

  /**
   * Stores a logged-in session whose security context field holds corrupt bytes; returns its id.
   * The principal index attribute names the user, so loading it decodes nothing.
   */
  String sessionWithCorruptSecurityContext(LazyRedisSessionRepository repository) {
    LazySession session = repository.createSession();
    session.setAttribute("currency", "EUR");
    session.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "ada");
    session.setAttribute(LazySession.SPRING_SECURITY_CONTEXT, "placeholder");
    repository.save(session);
    byte[] key = (namespace + ":s:{" + session.getId() + "}").getBytes(UTF_8);
    raw.hset(key, LazySession.SPRING_SECURITY_CONTEXT.getBytes(UTF_8),
        new byte[] {(byte) 0xFF, 0x13, 0x37, 0x00, 0x42, 0x42});
    TestRedis.bumpVersion(raw, key);
    return session.getId();
  }

  @Test
  void save_principalResolutionMeetsCorruptContext_dropAttributePolicy_deletesTheField() {
    namespace = TestRedis.uniqueNamespace("principal-drop");
    try (LazyRedisSessionRepository repository = reader(DecodeFailurePolicy.DROP_ATTRIBUTE)) {
      String id = sessionWithCorruptSecurityContext(repository);
      LazySession session = repository.findById(id);
      session.removeAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME);

      repository.save(session); // resolving the principal now decodes the security context

      byte[] key = (namespace + ":s:{" + id + "}").getBytes(UTF_8);
      assertThat(raw.hexists(key, LazySession.SPRING_SECURITY_CONTEXT.getBytes(UTF_8))).isFalse();
      assertThat(repository.findById(id).getAttributeNames()).containsExactly("currency");
    }
  }

  @Test
  void save_principalResolutionMeetsCorruptContext_invalidateSessionPolicy_deletesTheSession() {
    namespace = TestRedis.uniqueNamespace("principal-invalidate");
    try (LazyRedisSessionRepository repository = reader(DecodeFailurePolicy.INVALIDATE_SESSION)) {
      String id = sessionWithCorruptSecurityContext(repository);
      LazySession session = repository.findById(id);
      session.removeAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME);

      repository.save(session);

      assertThat(repository.findById(id)).isNull();
      assertThat(events.ofType(SessionDeletedEvent.class)).singleElement()
          .extracting(SessionDeletedEvent::getSessionId).isEqualTo(id);
      assertThat(repository.findByPrincipalName("ada")).isEmpty();
    }
  }

}
