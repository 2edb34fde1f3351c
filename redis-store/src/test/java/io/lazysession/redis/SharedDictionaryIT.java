package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * The shared dictionary (docs/redis-layout.md, "Dictionaries"): trained by the nodes from what they
 * save, agreed on through Redis, written with only once the namespace writes format 2, loaded by a
 * node that starts later or meets an id it lacks, put back when Redis loses it, sealed with keys.
 */
class SharedDictionaryIT {
  /** Every save sampled, 60 samples train a 4 KiB dictionary, Redis read every 200 ms. */
  static final DictionarySettings FAST = new DictionarySettings(true, null, 1, 60, 4L << 20,
      4096, Duration.ofMillis(200), Duration.ofHours(24), 0.15);
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();
  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder.dictionarySettings(FAST));

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(SharedDictionary.class);
  private final Random random = new Random(7);

  @BeforeEach
  void captureLogs() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void releaseLogs() {
    logger.detachAppender(logs);
  }

  @Test
  void twoNodesAgreeOnOneDictionary_writtenWithOnlyOnceFinalized() {
    LazyRedisSessionRepository a = nodes.a();
    LazyRedisSessionRepository b = nodes.b();
    int current = agree(a, b);

    // Format 1 still: the dictionary is trained and published, but nothing is written with it.
    String before = save(a);
    assertThat(nodes.raw().hexists(nodes.sessionKey(before), utf8("#f"))).isFalse();
    assertThat(largeValue(before)[2]).as("zstd without dictionary").isEqualTo((byte) 1);

    finalizeFormat(a, b);
    String withA = save(a);
    String withB = save(b);
    for (String id : List.of(withA, withB)) {
      assertThat(nodes.raw().hget(nodes.sessionKey(id), utf8("#f"))).isEqualTo(utf8("2"));
      byte[] large = largeValue(id);
      assertThat(large[2]).as("zstd with dictionary").isEqualTo((byte) 2);
      assertThat(SaveRequest.varint(large, 3)).isEqualTo(current);
      byte[] pack = packStart(id);
      assertThat(pack[1]).as("the pack, with dictionary").isEqualTo((byte) 2);
      assertThat(SaveRequest.varint(pack, 2)).isEqualTo(current);
    }
    assertThat(packStart(before)[1]).as("the pack of format 1, without").isEqualTo((byte) 1);
    assertThat(b.findById(withA).<String>getAttribute("large")).startsWith("words ");
    assertThat(a.findById(withB).<String>getAttribute("large")).startsWith("words ");
    assertThat(a.findById(before).<String>getAttribute("visit")).isNotNull();
  }

  @Test
  void aLostDictionaryKeyIsRestoredAndNoSessionIsLost() {
    LazyRedisSessionRepository a = nodes.a();
    LazyRedisSessionRepository b = nodes.b();
    int current = agree(a, b);
    finalizeFormat(a, b);
    Map<String, String> saved = new LinkedHashMap<>();
    for (int i = 0; i < 10; i++) {
      String id = save(i % 2 == 0 ? a : b);
      saved.put(id, a.findById(id).getAttribute("large"));
    }
    byte[] key = dictionaryKey();
    Map<byte[], byte[]> before = nodes.raw().hgetall(key);

    nodes.raw().del(key); // a flush of that key, an eviction, a failover to a replica without it

    await().atMost(DEADLINE).until(() -> nodes.raw().hexists(key, field(current))
        && nodes.raw().hexists(key, utf8(SharedDictionary.CURRENT)));
    assertThat(nodes.raw().hget(key, utf8(SharedDictionary.CURRENT))).isEqualTo(field(current));
    assertThat(nodes.raw().hlen(key)).isEqualTo(before.size());
    assertThat(warnings()).anySatisfy(event -> assertThat(event.getFormattedMessage())
        .contains("Redis had lost zstd dictionary " + Integer.toUnsignedString(current)));
    LazyRedisSessionRepository later = nodes.another(nodes.clientB(),
        new RecordingEventPublisher(), builder -> builder);
    saved.forEach((id, large) ->
        assertThat(later.findById(id).<String>getAttribute("large")).isEqualTo(large));
  }

  @Test
  void aNodeThatStartsLaterReadsSessionsCompressedWithAnOlderDictionary() {
    // Started before any dictionary existed, and polling only hourly: it meets the ids first in
    // the sessions it reads.
    LazyRedisSessionRepository early = nodes.another(nodes.clientB(),
        new RecordingEventPublisher(),
        builder -> builder.dictionarySettings(FAST.training(1, 60, Duration.ofHours(1))));
    LazyRedisSessionRepository earlyReactive = nodes.another(nodes.clientB(),
        new RecordingEventPublisher(),
        builder -> builder.dictionarySettings(FAST.training(1, 60, Duration.ofHours(1))));
    LazyRedisSessionRepository a = nodes.a();
    LazyRedisSessionRepository b = nodes.b();
    int first = agree(a, b);
    finalizeFormat(a, b);
    String old = save(a);
    String oldLarge = a.findById(old).getAttribute("large");
    String oldVisit = a.findById(old).getAttribute("visit");

    // On the reactive face the pack is read on a non-blocking thread: the dictionary is loaded in
    // the background and the session read again, never handed out with its pack hidden.
    LazySession reactive = LazyReactiveRedisSessionRepository.of(earlyReactive).findById(old)
        .block(DEADLINE);
    assertThat(reactive.<String>getAttribute("visit")).isEqualTo(oldVisit);
    assertThat(dictionary(earlyReactive).known()).extracting(ZstdDictionary::id)
        .containsExactly(first);

    ZstdDictionary second = ZstdDictionary.train(samples(), 4096);
    nodes.raw().hset(dictionaryKey(), field(second.id()), second.bytes());
    nodes.raw().hset(dictionaryKey(), utf8(SharedDictionary.CURRENT), field(second.id()));
    await().atMost(DEADLINE).until(() -> dictionary(a).current() != null
        && dictionary(a).current().id() == second.id());
    String recent = save(a);
    assertThat(SaveRequest.varint(largeValue(recent), 3)).isEqualTo(second.id());
    assertThat(SaveRequest.varint(largeValue(old), 3)).isEqualTo(first);

    LazyRedisSessionRepository later = nodes.another(nodes.clientB(),
        new RecordingEventPublisher(), builder -> builder);
    assertThat(later.findById(old).<String>getAttribute("large")).isEqualTo(oldLarge);
    assertThat(later.findById(recent).<String>getAttribute("large")).startsWith("words ");
    assertThat(dictionary(early).known()).isEmpty();
    assertThat(early.findById(old).<String>getAttribute("large")).isEqualTo(oldLarge);
    assertThat(early.findById(recent).<String>getAttribute("large")).startsWith("words ");
    assertThat(dictionary(early).known()).extracting(ZstdDictionary::id)
        .containsExactlyInAnyOrder(first, second.id());
  }

  @Test
  void withKeysTheDictionaryIsNotReadableInRedis() {
    String keys = "k1:" + EncryptionIT.secret(5);
    nodes.configure(builder -> builder.encryption(
        SessionEncryption.builder().keys(keys).acceptUnprotected(false).build()));
    LazyRedisSessionRepository a = nodes.a();
    LazyRedisSessionRepository b = nodes.b();
    int current = agree(a, b);
    finalizeFormat(a, b);
    String id = save(a);

    byte[] stored = nodes.raw().hget(dictionaryKey(), field(current));
    byte[] plain = dictionary(a).current().bytes();
    assertThat(ValueProtection.isSealed(stored)).isTrue();
    assertThat(latin1(stored)).doesNotContain(latin1(java.util.Arrays.copyOfRange(plain, 8, 40)));
    assertThatThrownBy(() -> ZstdDictionary.of(stored))
        .isInstanceOf(IllegalArgumentException.class);
    LazyRedisSessionRepository later = nodes.another(nodes.clientB(),
        new RecordingEventPublisher(), builder -> builder);
    assertThat(later.findById(id).<String>getAttribute("large")).startsWith("words ");
    assertThat(dictionary(later).known()).extracting(ZstdDictionary::id).contains(current);
  }

  /** Saves sessions on both nodes until both write with one dictionary; its id. */
  private int agree(LazyRedisSessionRepository a, LazyRedisSessionRepository b) {
    await().atMost(DEADLINE).pollInterval(Duration.ofMillis(50)).until(() -> {
      save(a);
      save(b);
      ZstdDictionary onA = dictionary(a).current();
      ZstdDictionary onB = dictionary(b).current();
      return onA != null && onB != null && onA.id() == onB.id();
    });
    int id = dictionary(a).current().id();
    assertThat(nodes.raw().hget(dictionaryKey(), utf8(SharedDictionary.CURRENT)))
        .isEqualTo(field(id));
    return id;
  }

  private static void finalizeFormat(LazyRedisSessionRepository a, LazyRedisSessionRepository b) {
    await().atMost(DEADLINE).until(() -> a.formatStatus().nodes().size() >= 2);
    assertThat(a.finalizeFormat().finalized()).isEqualTo(2);
    assertThat(b.formatStatus().writes()).isEqualTo(2);
  }

  /** A session of varied content: a pack of small attributes and one larger text. */
  private String save(LazyRedisSessionRepository node) {
    LazySession session = node.createSession();
    ShopFixtures.attributes().forEach(session::setAttribute);
    session.setAttribute("visit", "visit-" + random.nextInt(1_000_000) + " from "
        + WORDS.get(random.nextInt(WORDS.size())));
    session.setAttribute("large", text(2_000));
    node.save(session);
    return session.getId();
  }

  private String text(int length) {
    StringBuilder text = new StringBuilder("words ");
    while (text.length() < length) {
      text.append(WORDS.get(random.nextInt(WORDS.size()))).append(random.nextInt(100)).append(' ');
    }
    return text.toString();
  }

  private List<byte[]> samples() {
    List<byte[]> samples = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      samples.add(text(300 + random.nextInt(1500)).getBytes(UTF_8));
    }
    return samples;
  }

  private static final List<String> WORDS = List.of("analytical", "engine", "fountain", "pen",
      "notes", "cart", "coupon", "gold", "Lyon", "dark", "newsletter", "beta", "checkout",
      "shipping", "address", "invoice", "catalogue", "wishlist", "payment", "order");

  /** The pack's first bytes: the field #s, or its first chunk. */
  private byte[] packStart(String id) {
    byte[] pack = nodes.raw().hget(nodes.sessionKey(id), utf8("#s"));
    if (pack == null) {
      pack = nodes.raw().hget(nodes.sessionKey(id), StoredPack.chunkField(0));
    }
    assertThat(pack).as("the pack of %s", id).isNotNull();
    return pack;
  }

  private byte[] largeValue(String id) {
    byte[] value = nodes.raw().hget(nodes.sessionKey(id), utf8("large"));
    assertThat(value).as("the field of attribute large").isNotNull();
    return value;
  }

  private static SharedDictionary dictionary(LazyRedisSessionRepository node) {
    return node.shared().store().dictionary();
  }

  private byte[] dictionaryKey() {
    return utf8(nodes.namespace() + ":dictionaries");
  }

  private static byte[] field(int id) {
    return utf8(Integer.toUnsignedString(id));
  }

  private List<ILoggingEvent> warnings() {
    return logs.list.stream().filter(event -> event.getLevel() == Level.WARN).toList();
  }

  private static String latin1(byte[] bytes) {
    return new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(UTF_8);
  }
}
