package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The pack of a session whose hash Redis can keep compact (every value at most
 * hash-max-listpack-value) is stored in chunks of 63 bytes, in fields named by one byte each
 * (0x80, 0x81, ...; pack.lua; {@code <c0>}, {@code <c1>}... below), and whole ({@code #s}) once the
 * hash is a hashtable anyway, or when a pack of more than 12 chunks would take the listpack past 1,024
 * bytes: the layout, the memory it saves, the move between the two forms, concurrent changes and id
 * changes over chunks, chunks that are missing or stray, and the chunks of earlier builds
 * ({@code #s0}...).
 */
class PackChunksIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  byte[] key(String id) {
    return nodes.sessionKey(id);
  }

  /** The hash's field names, sorted; a chunk's as {@code <cN>}. */
  List<String> fields(String id) {
    return nodes.raw().hkeys(key(id)).stream().map(PackChunksIT::fieldName).sorted()
        .collect(Collectors.toList());
  }

  static String fieldName(byte[] name) {
    int chunk = StoredPack.chunkIndex(name);
    return chunk >= 0 ? "<c" + chunk + ">" : new String(name, UTF_8);
  }

  String encoding(String id) {
    return nodes.raw().objectEncoding(key(id));
  }

  /** Small attributes of 600 characters of random hex in all: a pack of 5 to 12 chunks. */
  static Map<String, Object> smallAttributes(long seed) {
    Random random = new Random(seed);
    Map<String, Object> attributes = new LinkedHashMap<>();
    for (int i = 0; i < 6; i++) {
      byte[] bytes = new byte[50];
      random.nextBytes(bytes);
      attributes.put("note" + i, java.util.HexFormat.of().formatHex(bytes));
    }
    attributes.put("visits", 42);
    return attributes;
  }

  String saved(Map<String, Object> attributes) {
    LazySession session = nodes.a().createSession();
    attributes.forEach(session::setAttribute);
    nodes.a().save(session);
    return session.getId();
  }

  static List<String> chunkFields(int count) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      names.add("<c" + i + ">");
    }
    return names;
  }

  void assertChunked(String id) {
    byte[] pack = TestRedis.pack(nodes.raw(), key(id));
    int chunks = (pack.length + 62) / 63;
    List<String> expected = new ArrayList<>(chunkFields(chunks));
    expected.add("#");
    assertThat(fields(id)).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(encoding(id)).isIn("listpack", "ziplist");
  }

  /** MEMORY USAGE of a copy of the session's hash (its metadata and pack) with the pack whole. */
  long memoryWhole(String id) {
    RedisCommands<byte[], byte[]> raw = nodes.raw();
    byte[] whole = (nodes.namespace() + ":whole:" + id).getBytes(UTF_8);
    raw.hset(whole, "#".getBytes(UTF_8), raw.hget(key(id), "#".getBytes(UTF_8)));
    raw.hset(whole, StoredPack.FIELD.getBytes(UTF_8), TestRedis.pack(raw, key(id)));
    return raw.memoryUsage(whole);
  }

  @Test
  void save_smallAttributesOnly_packInChunksAndTheHashCompact() {
    Map<String, Object> attributes = smallAttributes(1);
    String id = saved(attributes);

    assertChunked(id);
    assertThat(fields(id)).hasSizeGreaterThan(3); // several chunks, not one
    LazySession loaded = nodes.b().findById(id);
    assertThat(loaded.getAttributeNames()).containsExactlyInAnyOrderElementsOf(attributes.keySet());
    attributes.forEach((name, value) -> assertThat(loaded.<Object>getAttribute(name))
        .isEqualTo(value));
  }

  @Test
  void save_chunkedPack_takesLessRedisMemoryThanTheSamePackWhole() {
    String id = saved(smallAttributes(2));

    long chunked = nodes.raw().memoryUsage(key(id));
    long asOneField = memoryWhole(id);

    assertThat(chunked).isLessThan(asOneField);
  }

  @Test
  void save_largeAttributeJoinsAChunkedSession_packJoinedIntoOneField() {
    Map<String, Object> attributes = smallAttributes(3);
    String id = saved(attributes);
    assertChunked(id);

    LazySession session = nodes.b().findById(id);
    session.setAttribute("document", AttributePackIT.large()); // own field: a hashtable from now on
    nodes.b().save(session);

    assertThat(fields(id)).containsExactlyInAnyOrder("#", "#s", "document");
    LazySession loaded = nodes.a().findById(id);
    attributes.forEach((name, value) -> assertThat(loaded.<Object>getAttribute(name))
        .isEqualTo(value));
    assertThat(loaded.<String>getAttribute("document")).isEqualTo(AttributePackIT.large());

    loaded.setAttribute("visits", 43); // a new pack, written whole into the hashtable
    nodes.a().save(loaded);
    assertThat(fields(id)).containsExactlyInAnyOrder("#", "#s", "document");
    assertThat(nodes.b().findById(id).<Integer>getAttribute("visits")).isEqualTo(43);
  }

  /** A session whose pack is {@code bytes} of random data and a few bytes around them. */
  String savedWithBlob(int bytes) {
    byte[] blob = new byte[bytes];
    new Random(bytes).nextBytes(blob); // does not compress: the pack is about as long
    return saved(Map.of("blob", blob));
  }

  @Test
  void save_packOfThirteenToFifteenChunksWithinAKilobyte_inChunksAndSmallerThanWhole() {
    String id = savedWithBlob(840);

    assertThat(TestRedis.pack(nodes.raw(), key(id)).length).isBetween(12 * 63 + 1, 880);
    assertChunked(id);
    assertThat(nodes.raw().memoryUsage(key(id))).isLessThan(memoryWhole(id));
    assertThat(nodes.b().findById(id).<byte[]>getAttribute("blob")).hasSize(840);
  }

  @Test
  void save_packOfFifteenChunksPastAKilobyteOfListpack_storedWhole() {
    String id = savedWithBlob(925);

    assertThat(TestRedis.pack(nodes.raw(), key(id)).length).isBetween(925, 15 * 63);
    assertThat(fields(id)).containsExactlyInAnyOrder("#", "#s");
    assertThat(nodes.b().findById(id).<byte[]>getAttribute("blob")).hasSize(925);
  }

  @Test
  void save_packOverFifteenChunks_storedWhole() {
    Map<String, Object> attributes = new LinkedHashMap<>();
    Random random = new Random(4);
    for (int i = 0; i < 10; i++) {
      byte[] bytes = new byte[120];
      random.nextBytes(bytes);
      attributes.put("token" + i, java.util.HexFormat.of().formatHex(bytes));
    }
    String id = saved(attributes);

    assertThat(TestRedis.pack(nodes.raw(), key(id))).hasSizeGreaterThan(15 * 63);
    assertThat(fields(id)).containsExactlyInAnyOrder("#", "#s");
    assertThat(nodes.b().findById(id).<String>getAttribute("token7"))
        .isEqualTo(attributes.get("token7"));
  }

  @Test
  void save_concurrentChangesOnTwoNodes_overAChunkedPack_keepBoth() {
    String id = saved(smallAttributes(5));
    LazySession onA = nodes.a().findById(id);
    LazySession onB = nodes.b().findById(id);
    onA.setAttribute("fromA", "a");
    onB.setAttribute("fromB", "b");
    onB.removeAttribute("note0");

    nodes.a().save(onA);
    nodes.b().save(onB); // made from the pack A replaced: re-applied onto A's chunks

    assertChunked(id);
    LazySession result = nodes.a().findById(id);
    assertThat(result.<String>getAttribute("fromA")).isEqualTo("a");
    assertThat(result.<String>getAttribute("fromB")).isEqualTo("b");
    assertThat(result.<Object>getAttribute("note0")).isNull();
    assertThat(result.<Object>getAttribute("note1")).isNotNull();
  }

  @Test
  void changeSessionId_chunkedPack_movesToTheNewIdInChunks() {
    Map<String, Object> attributes = smallAttributes(6);
    String id = saved(attributes);
    LazySession session = nodes.b().findById(id);
    String newId = session.changeSessionId();
    nodes.b().save(session);

    assertThat(nodes.raw().exists(key(id))).isZero();
    assertChunked(newId);
    LazySession moved = nodes.a().findById(newId);
    attributes.forEach((name, value) -> assertThat(moved.<Object>getAttribute(name))
        .isEqualTo(value));
  }

  @Test
  void save_shrinkingPack_leavesNoChunkOfTheLongerOne() {
    Map<String, Object> attributes = smallAttributes(7);
    String id = saved(attributes);
    int before = fields(id).size();

    LazySession session = nodes.b().findById(id);
    attributes.keySet().stream().filter(name -> name.startsWith("note"))
        .forEach(session::removeAttribute);
    nodes.b().save(session);

    assertThat(fields(id).size()).isLessThan(before);
    assertChunked(id);
    LazySession loaded = nodes.a().findById(id);
    assertThat(loaded.getAttributeNames()).containsExactly("visits");

    LazySession emptied = nodes.a().findById(id);
    emptied.removeAttribute("visits");
    nodes.a().save(emptied);
    assertThat(fields(id)).containsExactly("#");
  }

  @Test
  void findById_chunkMissing_packHiddenTheSessionWorksAndTheRestIsKept() {
    String id = saved(smallAttributes(8));
    RedisCommands<byte[], byte[]> raw = nodes.raw();
    raw.hdel(key(id), StoredPack.chunkField(1));
    TestRedis.bumpVersion(raw, key(id));
    List<String> left = fields(id);

    LazySession loaded = nodes.b().findById(id);
    assertThat(loaded).isNotNull();
    assertThat(loaded.<Object>getAttribute("note0")).isNull();
    loaded.setAttribute("fresh", "written beside the pack it cannot read");
    nodes.b().save(loaded);

    assertThat(fields(id)).containsAll(left).contains("fresh"); // the chunks are never rewritten
    assertThat(nodes.a().findById(id).<String>getAttribute("fresh"))
        .isEqualTo("written beside the pack it cannot read");
  }

  @Test
  void findById_strayChunksBesideAWholePack_theWholeOneWinsAndTheNextPackClearsThem() {
    Map<String, Object> attributes = new LinkedHashMap<>(smallAttributes(9));
    attributes.put("document", AttributePackIT.large());
    String id = saved(attributes);
    RedisCommands<byte[], byte[]> raw = nodes.raw();
    assertThat(fields(id)).containsExactlyInAnyOrder("#", "#s", "document");
    raw.hset(key(id), StoredPack.chunkField(0), "stray".getBytes(UTF_8));
    raw.hset(key(id), StoredPack.chunkField(1), "chunks".getBytes(UTF_8));
    TestRedis.bumpVersion(raw, key(id));

    LazySession loaded = nodes.b().findById(id);
    assertThat(loaded.<Object>getAttribute("note3")).isEqualTo(attributes.get("note3"));
    loaded.setAttribute("visits", 44);
    nodes.b().save(loaded);

    assertThat(fields(id)).containsExactlyInAnyOrder("#", "#s", "document");
    assertThat(nodes.a().findById(id).<Integer>getAttribute("visits")).isEqualTo(44);
  }

  @Test
  void findById_chunksOfAnEarlierBuild_readAndReplacedByTheNextPack() {
    Map<String, Object> attributes = smallAttributes(13);
    String id = saved(attributes);
    RedisCommands<byte[], byte[]> raw = nodes.raw();
    byte[] pack = TestRedis.pack(raw, key(id));
    int chunks = (pack.length + 62) / 63;
    for (int i = 0; i < chunks; i++) { // as a development build before one-byte names wrote it
      raw.hdel(key(id), StoredPack.chunkField(i));
      raw.hset(key(id), ("#s" + i).getBytes(UTF_8), java.util.Arrays.copyOfRange(pack, i * 63,
          Math.min(pack.length, (i + 1) * 63)));
    }
    TestRedis.bumpVersion(raw, key(id));

    LazySession loaded = nodes.b().findById(id);
    attributes.forEach((name, value) -> assertThat(loaded.<Object>getAttribute(name))
        .isEqualTo(value));
    loaded.setAttribute("visits", 45);
    nodes.b().save(loaded);

    assertChunked(id); // no #s0... left
    LazySession after = nodes.a().findById(id);
    assertThat(after.<Integer>getAttribute("visits")).isEqualTo(45);
    assertThat(after.<Object>getAttribute("note4")).isEqualTo(attributes.get("note4"));
  }

  @Test
  void save_userWithoutTheObjectCommand_storesThePackWhole() {
    redis.sync(redis.primary(), c -> c.aclSetuser("lazysession-no-object",
        io.lettuce.core.AclSetuserArgs.Builder.on().addPassword("secret").allKeys().allChannels()
            .allCommands().removeCommand(io.lettuce.core.protocol.CommandType.OBJECT)));
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(
        io.lettuce.core.RedisURI.builder(redis.uri())
            .withAuthentication("lazysession-no-object", "secret").build());
    try {
      LazyRedisSessionRepository restricted = nodes.open(nodes.builder(client, nodes.eventsA()));
      Map<String, Object> attributes = smallAttributes(10);
      LazySession session = restricted.createSession();
      attributes.forEach(session::setAttribute);
      restricted.save(session);

      assertThat(fields(session.getId())).containsExactlyInAnyOrder("#", "#s");
      LazySession loaded = nodes.b().findById(session.getId());
      attributes.forEach((name, value) -> assertThat(loaded.<Object>getAttribute(name))
          .isEqualTo(value));
    } finally {
      client.shutdown();
      redis.sync(redis.primary(), c -> c.aclDeluser("lazysession-no-object"));
    }
  }

  @Test
  void save_verbatimScriptReplicationConfigured_stillSaves() {
    Map<String, String> setting =
        redis.sync(redis.primary(), c -> c.configGet("lua-replicate-commands"));
    org.junit.jupiter.api.Assumptions.assumeFalse(setting.isEmpty(),
        "lua-replicate-commands exists before Redis 7 only");
    redis.sync(redis.primary(), c -> c.configSet("lua-replicate-commands", "no"));
    try {
      Map<String, Object> attributes = smallAttributes(11);
      String id = saved(attributes);

      assertChunked(id);
      assertThat(nodes.b().findById(id).<Object>getAttribute("note2"))
          .isEqualTo(attributes.get("note2"));
    } finally {
      redis.sync(redis.primary(), c -> c.configSet("lua-replicate-commands",
          setting.values().iterator().next()));
    }
  }

  @Test
  void save_chunksWouldPassTheServersEntryLimit_packStoredWhole() {
    Map<String, String> setting =
        redis.sync(redis.primary(), c -> c.configGet("hash-max-ziplist-entries"));
    String limit = setting.values().iterator().next();
    redis.sync(redis.primary(), c -> c.configSet("hash-max-ziplist-entries", "4"));
    try {
      Map<String, Object> attributes = smallAttributes(12); // 5 chunks or more: past 4 entries
      String id = saved(attributes);

      assertThat(fields(id)).containsExactlyInAnyOrder("#", "#s");
      LazySession loaded = nodes.b().findById(id);
      attributes.forEach((name, value) -> assertThat(loaded.<Object>getAttribute(name))
          .isEqualTo(value));
    } finally {
      redis.sync(redis.primary(), c -> c.configSet("hash-max-ziplist-entries", limit));
    }
  }
}
