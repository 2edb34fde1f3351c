package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Small attributes live together in the pack field ({@code #s}), larger ones in fields of their own:
 * the layout, concurrent changes on two nodes, moves between the two places, and a pack this node
 * cannot read (planted bytes on real Redis), which is never rewritten nor deleted; and a metadata
 * field that is not four numbers, which every script treats as a missing session.
 */
class AttributePackIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  private static final byte[] PACK = StoredPack.FIELD.getBytes(UTF_8);

  byte[] key(String id) {
    return (nodes.namespace() + ":s:{" + id + "}").getBytes(UTF_8);
  }

  Map<String, byte[]> packed(String id) {
    byte[] pack = TestRedis.pack(nodes.raw(), key(id));
    return pack == null ? Map.of() : TestRedis.serializer().unpack(pack);
  }

  List<String> fields(String id) {
    return nodes.raw().hkeys(key(id)).stream().map(f -> new String(f, UTF_8)).sorted()
        .collect(Collectors.toList());
  }

  static String large() {
    byte[] random = new byte[3000];
    new Random(7).nextBytes(random);
    return java.util.HexFormat.of().formatHex(random);
  }

  /** A saved session whose only attributes are {@code attributes}; its id. */
  String saved(Map<String, Object> attributes) {
    LazySession session = nodes.a().createSession();
    attributes.forEach(session::setAttribute);
    nodes.a().save(session);
    return session.getId();
  }

  /** A saved session with "note" packed and an own field "note" planted over it; its id. */
  String savedWithShadowedNote(Map<String, Object> others) {
    Map<String, Object> attributes = new java.util.LinkedHashMap<>(others);
    attributes.put("note", "packed");
    String id = saved(attributes);
    nodes.raw().hset(key(id), "note".getBytes(UTF_8),
        TestRedis.serializer().serialize("own field"));
    return id;
  }

  /** The session {@code id} as loaded on node a and on node b, both before either saves. */
  record Loaded(LazySession onA, LazySession onB) {}

  Loaded loadedOnBoth(String id) {
    return new Loaded(nodes.a().findById(id), nodes.b().findById(id));
  }

  @Test
  void save_newSession_smallAttributesInThePackLargeOnesInOwnFields() {
    LazySession session = nodes.a().createSession();
    session.setAttribute("visits", 42);
    session.setAttribute("#odd", "escaped name");
    session.setAttribute("document", large());
    nodes.a().save(session);

    assertThat(fields(session.getId())).containsExactly("#", "#s", "document");
    assertThat(packed(session.getId()).keySet()).containsExactly("visits", "#odd");
    LazySession loaded = nodes.b().findById(session.getId());
    assertThat(loaded.<Integer>getAttribute("visits")).isEqualTo(42);
    assertThat(loaded.<String>getAttribute("#odd")).isEqualTo("escaped name");
    assertThat(loaded.<String>getAttribute("document")).isEqualTo(large());
  }

  @Test
  void save_concurrentChangesOfPackedAttributesOnTwoNodes_keepBoth() {
    String id = TestRedis.storeShopSession(nodes.a());
    LazySession onA = nodes.a().findById(id);
    LazySession onB = nodes.b().findById(id);
    onA.setAttribute("fromA", "a");
    onB.setAttribute("fromB", "b");
    onB.removeAttribute("visits");

    nodes.a().save(onA);
    nodes.b().save(onB); // loaded the pack A replaced: re-applied onto A's

    LazySession result = nodes.a().findById(id);
    assertThat(result.<String>getAttribute("fromA")).isEqualTo("a");
    assertThat(result.<String>getAttribute("fromB")).isEqualTo("b");
    assertThat(result.<Object>getAttribute("visits")).isNull();
    assertThat(packed(id)).containsKeys("fromA", "fromB").doesNotContainKey("visits");
  }

  @Test
  void save_attributeGrowsAndShrinks_movesBetweenPackAndOwnFieldInOneCall() {
    LazySession session = nodes.a().createSession();
    session.setAttribute("note", "short");
    nodes.a().save(session);
    String id = session.getId();

    LazySession grown = nodes.b().findById(id);
    grown.setAttribute("note", large());
    nodes.b().save(grown);
    assertThat(fields(id)).contains("note").doesNotContain("#s");

    LazySession shrunk = nodes.a().findById(id);
    shrunk.setAttribute("note", "short again");
    nodes.a().save(shrunk);
    assertThat(fields(id)).contains("#s").doesNotContain("note");
    assertThat(nodes.b().findById(id).<String>getAttribute("note")).isEqualTo("short again");
  }

  @Test
  void findById_nameInOwnFieldAndPack_ownFieldWins() {
    String id = savedWithShadowedNote(Map.of());

    assertThat(nodes.b().findById(id).<String>getAttribute("note")).isEqualTo("own field");
  }

  @Test
  void removeAttribute_ownFieldShadowingAPackEntry_staysRemoved() {
    String id = savedWithShadowedNote(Map.of("visits", 1));

    LazySession loaded = nodes.b().findById(id);
    loaded.removeAttribute("note");
    nodes.b().save(loaded);

    assertThat(fields(id)).doesNotContain("note");
    assertThat(packed(id)).doesNotContainKey("note").containsKey("visits");
    assertThat(nodes.a().findById(id).<Object>getAttribute("note")).isNull();
  }

  @Test
  void setAttribute_smallValueOverAnOwnFieldShadowingAPackEntry_isTheOneRead() {
    String id = savedWithShadowedNote(Map.of());

    LazySession loaded = nodes.b().findById(id);
    loaded.setAttribute("note", "latest");
    nodes.b().save(loaded);

    assertThat(fields(id)).doesNotContain("note");
    assertThat(nodes.a().findById(id).<String>getAttribute("note")).isEqualTo("latest");
  }

  /** A pack of a later format version, one compressed with an unknown dictionary, a corrupt one. */
  static byte[] unreadablePack(String kind) {
    AttributeSerializer serializer = TestRedis.serializer();
    Map<String, byte[]> entries = Map.of("theirs", serializer.serialize("written elsewhere"));
    return switch (kind) {
      case "newer-version" -> {
        byte[] pack = serializer.pack(entries);
        pack[0] = (byte) 0xB3;
        yield pack;
      }
      // compression 2, dictionary id 12345 (varint B9 60), 10 bytes decoded from a 5-byte frame
      case "unknown-dictionary" -> new byte[] {(byte) 0xB1, 2, (byte) 0xB9, 0x60, 10, 1, 2, 3, 4, 5};
      default -> new byte[] {(byte) 0xB1, 1, 40, 1, 2, 3};
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"newer-version", "unknown-dictionary", "corrupt"})
  void unreadablePack_isHiddenNeverRewrittenAndMovesWithTheId(String kind) {
    LazySession session = nodes.a().createSession();
    session.setAttribute("document", large());
    nodes.a().save(session);
    RedisCommands<byte[], byte[]> raw = nodes.raw();
    byte[] planted = unreadablePack(kind);
    raw.hset(key(session.getId()), PACK, planted);
    TestRedis.bumpVersion(raw, key(session.getId()));

    LazySession loaded = nodes.b().findById(session.getId());
    assertThat(loaded.getAttributeNames()).containsExactly("document");
    assertThat(loaded.<String>getAttribute("document")).isEqualTo(large());
    loaded.setAttribute("visits", 1);
    nodes.b().save(loaded);

    assertThat(raw.hget(key(session.getId()), PACK)).isEqualTo(planted);
    assertThat(fields(session.getId())).contains("visits");
    LazySession again = nodes.a().findById(session.getId());
    assertThat(again.<Integer>getAttribute("visits")).isEqualTo(1);
    String newId = again.changeSessionId();
    nodes.a().save(again);
    assertThat(TestRedis.pack(raw, key(newId))).isEqualTo(planted);
    assertThat(nodes.b().findById(newId).<Integer>getAttribute("visits")).isEqualTo(1);
  }

  @Test
  void changeSessionId_packedAttributes_moveToTheNewId() {
    String id = TestRedis.storeShopSession(nodes.a());
    LazySession session = nodes.b().findById(id);
    String newId = session.changeSessionId();
    nodes.b().save(session);

    assertThat(nodes.raw().exists(key(id))).isZero();
    assertThat(packed(newId).keySet()).isNotEmpty();
    assertThat(nodes.a().findById(newId).getAttributeNames())
        .containsExactlyInAnyOrderElementsOf(ShopFixtures.attributes().keySet());
  }

  @Test
  void save_attributeMovedIntoThePackWhileAnotherNodeRemovesIt_staysRemoved() {
    String id = saved(Map.of("note", large()));
    Loaded loaded = loadedOnBoth(id);
    LazySession onA = loaded.onA();
    LazySession onB = loaded.onB();
    onA.setAttribute("note", "short");
    onB.removeAttribute("note");

    nodes.a().save(onA); // into the pack
    nodes.b().save(onB); // the later change: removed

    assertThat(packed(id)).doesNotContainKey("note");
    assertThat(nodes.a().findById(id).<Object>getAttribute("note")).isNull();
  }

  @Test
  void save_packedAttributeRemovedWhileAnotherNodeMovesItToItsOwnField_staysRemoved() {
    String id = saved(Map.of("note", "short"));
    Loaded loaded = loadedOnBoth(id);
    LazySession onA = loaded.onA();
    LazySession onB = loaded.onB();
    onA.setAttribute("note", large());
    onB.removeAttribute("note");

    nodes.a().save(onA); // out of the pack, into its own field
    nodes.b().save(onB);

    assertThat(fields(id)).doesNotContain("note");
    assertThat(nodes.a().findById(id).<Object>getAttribute("note")).isNull();
  }

  @Test
  void save_packedAttributeSetSmallWhileAnotherNodeMovesItToItsOwnField_laterValueWins() {
    String id = saved(Map.of("note", "short"));
    Loaded loaded = loadedOnBoth(id);
    LazySession onA = loaded.onA();
    LazySession onB = loaded.onB();
    onA.setAttribute("note", large());
    onB.setAttribute("note", "latest");

    nodes.a().save(onA);
    nodes.b().save(onB); // pack conflict: re-applied onto A's pack

    assertThat(nodes.a().findById(id).<String>getAttribute("note")).isEqualTo("latest");
  }

  @Test
  void save_newAttributeSetLargeOnOneNodeAndSmallOnTheOther_laterValueWins() {
    String id = saved(Map.of("visits", 1));
    Loaded loaded = loadedOnBoth(id);
    LazySession onA = loaded.onA();
    LazySession onB = loaded.onB();
    onA.setAttribute("note", large());
    onB.setAttribute("note", "latest");

    nodes.a().save(onA); // its own field; the pack is untouched, so B's save sees no conflict
    nodes.b().save(onB);

    assertThat(nodes.a().findById(id).<String>getAttribute("note")).isEqualTo("latest");
  }

  @Test
  void save_moreSmallAttributesThanOnePackHolds_everyOneReadBack() {
    LazySession session = nodes.a().createSession();
    int count = AttributeSerializer.MAX_PACK_ENTRIES + 5;
    for (int i = 0; i < count; i++) {
      session.setAttribute("a" + i, i);
    }
    nodes.a().save(session);

    LazySession loaded = nodes.b().findById(session.getId());
    assertThat(loaded.getAttributeNames()).hasSize(count);
    assertThat(loaded.<Integer>getAttribute("a" + (count - 1))).isEqualTo(count - 1);
    assertThat(packed(session.getId())).hasSize(AttributeSerializer.MAX_PACK_ENTRIES);
  }

  @ParameterizedTest
  @ValueSource(strings = {"1:abc:1800:1", "1::1800:1", ":::", "1:2:1800", "1:0x10:1800:1",
      "1:2:1e3:1", "1: 2:1800:1"})
  void metadataFieldNotFourNumbers_sessionIsMissingForEveryScript(String metadata) {
    LazySession session = nodes.a().createSession();
    session.setAttribute("visits", 1);
    nodes.a().save(session);
    String id = session.getId();
    LazySession loaded = nodes.b().findById(id);
    byte[] field = SessionKeys.METADATA.getBytes(UTF_8);
    nodes.raw().hset(key(id), field, metadata.getBytes(UTF_8));

    assertThat(nodes.a().findById(id)).isNull();
    assertThat(nodes.b().findById(id)).isNull();
    loaded.setAttribute("visits", 2);
    nodes.b().save(loaded); // missing: nothing written
    assertThat(nodes.raw().hget(key(id), field)).isEqualTo(metadata.getBytes(UTF_8));
    nodes.clock().advance(java.time.Duration.ofDays(1));
    nodes.a().cleanUpExpiredSessions();
    assertThat(nodes.raw().exists(key(id))).isZero();

    LazySession other = nodes.a().createSession();
    nodes.a().save(other);
    nodes.raw().hset(key(other.getId()), field, metadata.getBytes(UTF_8));
    nodes.b().deleteById(other.getId());
    assertThat(nodes.raw().exists(key(other.getId()))).isZero();
  }
}
