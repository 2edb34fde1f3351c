package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lazysession.testing.RedisServerExtension;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * The Redis format as a contract (docs/redis-layout.md, "Format"; docs/versioning.md): nodes
 * announce what they read, a session hash in a later format reads as missing here, is said once at
 * WARN, and is never written over, moved nor deleted by this version; finalizing moves only as far
 * as every live node reads.
 */
class RedisFormatIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();
  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(RedisFormat.class);

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
  void everyNodeAnnouncesWhatItReadsAndLeavesWhenClosed() {
    LazyRedisSessionRepository a = nodes.a();
    nodes.b();
    bothAnnounced(a);

    RedisFormatStatus status = a.formatStatus();
    assertThat(status.reads()).isEqualTo(2);
    assertThat(status.writes()).isEqualTo(1);
    assertThat(status.finalized()).isEqualTo(1);
    assertThat(status.nodes()).hasSize(2).allSatisfy(node -> {
      assertThat(node.live()).isTrue();
      assertThat(node.reads()).isEqualTo(2);
      assertThat(node.writes()).isEqualTo(1);
      assertThat(node.version()).isNotBlank();
      assertThat(node.host()).isNotBlank();
    });
    assertThat(status.nodes()).filteredOn(RedisFormatStatus.Node::self).hasSize(1);
    assertThat(status.readByAllLiveNodes()).isEqualTo(2);

    nodes.b().close();
    assertThat(a.formatStatus().nodes()).singleElement()
        .satisfies(node -> assertThat(node.self()).isTrue());
  }

  @Test
  void aSessionInALaterFormatReadsAsMissingIsSaidOnceAndIsNeverWrittenOverMovedNorDeleted() {
    LazyRedisSessionRepository a = nodes.a();
    LazySession session = a.createSession();
    session.setAttribute("cart", "3 books");
    session.setAttribute("large", "x".repeat(5_000));
    a.save(session);
    LazySession loadedBefore = a.findById(session.getId());
    LazySession renamedBefore = a.findById(session.getId());
    byte[] key = sessionKey(session.getId());
    nodes.raw().hset(key, utf8("#f"), utf8("3"));
    nodes.raw().hset(key, utf8("#z"), utf8("what format 3 adds"));
    Map<String, String> stored = hash(key);

    LazyRedisSessionRepository b = nodes.b();
    assertThat(b.findById(session.getId())).isNull();
    assertThat(b.findById(session.getId())).isNull();
    assertThat(warnings()).singleElement().asString()
        .contains("reads Redis formats up to 2", "in format 3", session.getId(), "Finalizing");

    loadedBefore.setAttribute("cart", "written over by format 1");
    a.save(loadedBefore); // loaded before it was marked: the update finds a later format
    renamedBefore.changeSessionId();
    a.save(renamedBefore); // an id change would carry over only what this version reads
    assertThat(hash(key)).isEqualTo(stored);
    assertThat(nodes.raw().exists(sessionKey(renamedBefore.getId()))).isZero();

    a.deleteById(session.getId()); // missing here, as for a find
    assertThat(hash(key)).isEqualTo(stored);
  }

  @Test
  void theSweepLeavesAnExpiredSessionOfALaterFormatToTheNodesThatReadIt() {
    LazyRedisSessionRepository a = nodes.a();
    LazySession session = a.createSession();
    session.setMaxInactiveInterval(java.time.Duration.ofMinutes(1));
    session.setAttribute("cart", "3 books");
    a.save(session);
    byte[] key = sessionKey(session.getId());
    nodes.raw().hset(key, utf8("#f"), utf8("3"));
    Map<String, String> stored = hash(key);
    nodes.clock().advance(java.time.Duration.ofMinutes(2));

    assertThat(a.cleanUpExpiredSessions()).isZero();

    assertThat(hash(key)).isEqualTo(stored);
    assertThat(nodes.eventsA().ofType(
        org.springframework.session.events.SessionDestroyedEvent.class)).isEmpty();
    assertThat(nodes.raw().zscore(utf8(nodes.namespace() + ":expirations"),
        utf8(session.getId()))).as("back on the schedule, a minute later")
        .isGreaterThan((double) nodes.clock().millis());
  }

  /**
   * Without expiry events nothing tells a lookup that the session is live but its hash: read as
   * missing, with a principal this version cannot read (a later format may store it otherwise).
   */
  @Test
  void aPrincipalLookupKeepsTheEntryOfASessionOfALaterFormat() {
    nodes.configure(builder -> builder.expiryEvents(false));
    LazyRedisSessionRepository a = nodes.a();
    LazySession session = a.createSession();
    session.setAttribute(
        org.springframework.session.FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME,
        "alice");
    a.save(session);
    nodes.raw().hset(sessionKey(session.getId()), utf8("#f"), utf8("3"));
    nodes.raw().hset(sessionKey(session.getId()), utf8("#p"), utf8("stored otherwise"));

    assertThat(nodes.b().findByPrincipalName("alice")).isEmpty();

    assertThat(nodes.raw().smembers(utf8(nodes.namespace() + ":principal:alice")))
        .extracting(member -> new String(member, UTF_8)).containsExactly(session.getId());
  }

  @Test
  void finalizingMovesToFormatTwoOnceEveryLiveNodeReadsItAndEverySaveThenMarksItsHash() {
    LazyRedisSessionRepository a = nodes.a();
    LazyRedisSessionRepository b = nodes.b();
    bothAnnounced(a);
    LazySession before = a.createSession();
    before.setAttribute("cart", "1 book");
    a.save(before);
    assertThat(nodes.raw().hexists(sessionKey(before.getId()), utf8("#f")))
        .as("format 1 costs no byte per session").isFalse();

    RedisFormatStatus status = a.finalizeFormat();

    assertThat(status.finalized()).isEqualTo(2);
    assertThat(status.writes()).isEqualTo(2);
    assertThat(nodes.raw().hget(formatKey(), utf8("finalized"))).isEqualTo(utf8("2"));
    assertThat(warnings()).singleElement().asString()
        .contains("finalized at 2 (was 1)", "rolling back now signs those users out");
    assertThat(b.formatStatus().writes()).as("b, at its next announcement").isEqualTo(2);

    LazySession loaded = b.findById(before.getId()); // written in format 1, read in format 2
    assertThat(loaded.<String>getAttribute("cart")).isEqualTo("1 book");
    loaded.setAttribute("cart", "2 books");
    b.save(loaded);
    assertThat(nodes.raw().hget(sessionKey(before.getId()), utf8("#f"))).isEqualTo(utf8("2"));
    LazySession created = b.createSession();
    created.setAttribute("cart", "3 books");
    b.save(created);
    assertThat(nodes.raw().hget(sessionKey(created.getId()), utf8("#f"))).isEqualTo(utf8("2"));
    String firstId = created.getId();
    created.changeSessionId();
    b.save(created);
    assertThat(nodes.raw().hget(sessionKey(created.getId()), utf8("#f"))).isEqualTo(utf8("2"));
    assertThat(nodes.raw().exists(sessionKey(firstId))).isZero();

    assertThat(a.findById(before.getId()).<String>getAttribute("cart")).isEqualTo("2 books");
    assertThat(a.findById(created.getId()).<String>getAttribute("cart")).isEqualTo("3 books");
    assertThat(a.finalizeFormat().finalized()).as("never further than it reads").isEqualTo(2);
  }

  @Test
  void aLiveNodeReadingAnOlderFormatBlocksFinalizingAndIsNamed() {
    LazyRedisSessionRepository a = nodes.a();
    nodes.raw().hset(formatKey(), utf8("node:old"),
        utf8("reads=0 writes=0 version=0.0.9 host=web-7 seen=" + redisMillis()));

    assertThatThrownBy(a::finalizeFormat).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("web-7 (lazysession 0.0.9, node old, reads format 0)");
  }

  @Test
  void silentNodesStopCountingAndAreForgottenAfterADay() {
    LazyRedisSessionRepository a = nodes.a();
    long now = redisMillis();
    nodes.raw().hset(formatKey(), utf8("node:quiet"),
        utf8("reads=0 writes=0 version=0.0.9 host=web-8 seen=" + (now - 101_000)));
    nodes.raw().hset(formatKey(), utf8("node:gone"),
        utf8("reads=0 writes=0 version=0.0.9 host=web-9 seen=" + (now - 86_401_000L)));

    RedisFormatStatus status = a.finalizeFormat(); // neither blocks it

    assertThat(status.nodes()).extracting(RedisFormatStatus.Node::id)
        .doesNotContain("gone").contains("quiet");
    assertThat(status.nodes()).filteredOn(node -> node.id().equals("quiet"))
        .singleElement().satisfies(node -> assertThat(node.live()).isFalse());
    assertThat(nodes.raw().hexists(formatKey(), utf8("node:gone"))).isFalse();
  }

  @Test
  void aNamespaceFinalizedAtAFormatThisNodeDoesNotReadIsSaidAndThisNodeKeepsWritingItsOwn() {
    nodes.raw().hset(formatKey(), utf8("finalized"), utf8("3"));
    LazyRedisSessionRepository a = nodes.a();

    RedisFormatStatus status = a.formatStatus();
    assertThat(status.finalized()).isEqualTo(3);
    assertThat(status.writes()).isEqualTo(2);
    assertThat(warnings()).singleElement().asString()
        .contains("finalized at format 3", "keeps writing format 2");

    LazySession session = a.createSession();
    session.setAttribute("cart", "2 books");
    a.save(session);
    assertThat(nodes.b().findById(session.getId()).<String>getAttribute("cart"))
        .isEqualTo("2 books");
    assertThat(nodes.raw().hget(sessionKey(session.getId()), utf8("#f")))
        .isEqualTo(utf8("2"));
  }

  /**
   * Redis losing the field {@code finalized} (a flush, a failover to a replica that had not received
   * it) does not send the namespace back to format 1: the next heartbeat puts it back, as finalizing
   * would. An operator who lowers it on purpose sets it (docs/versioning.md), which nodes follow.
   */
  @Test
  void aFinalizedFormatThatRedisLostIsPutBackAndOneLoweredOnPurposeIsFollowed() {
    LazyRedisSessionRepository a = nodes.a();
    nodes.b();
    bothAnnounced(a);
    assertThat(a.finalizeFormat().finalized()).isEqualTo(2);

    nodes.raw().hdel(formatKey(), utf8("finalized"));
    assertThat(a.formatStatus().writes()).as("until the heartbeat").isEqualTo(2);
    a.shared().store().format().announceSoon();
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(nodes.raw().hget(formatKey(), utf8("finalized"))).isEqualTo(utf8("2")));
    assertThat(warnings()).anySatisfy(event ->
        assertThat(event.getFormattedMessage()).contains("put it back at 2"));

    nodes.raw().hset(formatKey(), utf8("finalized"), utf8("1"));
    RedisFormatStatus lowered = a.formatStatus();
    assertThat(lowered.finalized()).isEqualTo(1);
    assertThat(lowered.writes()).isEqualTo(1);
    a.shared().store().format().announceSoon();
    LazySession session = a.createSession();
    session.setAttribute("cart", "1 book");
    a.save(session);
    assertThat(nodes.raw().hexists(sessionKey(session.getId()), utf8("#f"))).isFalse();
    assertThat(nodes.raw().hget(formatKey(), utf8("finalized"))).isEqualTo(utf8("1"));
  }

  /** A node that cannot write format 2 (Redis refuses what it needs: an ACL) blocks finalizing. */
  @Test
  void aNodeThatCannotWriteFormatTwoAnnouncesFormatOneAndBlocksFinalizing() {
    LazyRedisSessionRepository a = nodes.a();
    LazyRedisSessionRepository b = nodes.b();
    b.shared().store().format().writesAtMost(1, "Redis refused SMOVE (NOPERM)");
    assertThat(b.formatStatus().reads()).isEqualTo(1);

    assertThatThrownBy(a::finalizeFormat).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("reads format 1");
    assertThat(nodes.raw().hget(formatKey(), utf8("finalized"))).isNull();
    assertThat(warnings()).anySatisfy(event -> assertThat(event.getFormattedMessage())
        .contains("writes Redis format 1 at most", "NOPERM"));
  }

  /** Waits until {@code a} lists both nodes (each announces itself as it starts). */
  private static void bothAnnounced(LazyRedisSessionRepository a) {
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
        .until(() -> a.formatStatus().nodes().size() == 2);
  }

  private List<ILoggingEvent> warnings() {
    return logs.list.stream().filter(event -> event.getLevel() == Level.WARN).toList();
  }

  private byte[] sessionKey(String id) {
    return utf8(nodes.namespace() + ":s:{" + id + "}");
  }

  private byte[] formatKey() {
    return utf8(nodes.namespace() + ":format");
  }

  private long redisMillis() {
    List<byte[]> time = nodes.raw().time();
    return Long.parseLong(new String(time.get(0), UTF_8)) * 1000
        + Long.parseLong(new String(time.get(1), UTF_8)) / 1000;
  }

  private Map<String, String> hash(byte[] key) {
    Map<String, String> fields = new TreeMap<>();
    nodes.raw().hgetall(key).forEach((name, value) ->
        fields.put(new String(name, UTF_8), java.util.HexFormat.of().formatHex(value)));
    return fields;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(UTF_8);
  }
}
