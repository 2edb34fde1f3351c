package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link LazyRedisSessionRepository#measure}: the numbers it reports are those Redis holds
 * ({@code HSTRLEN} of each field, {@code MEMORY USAGE} of the key), for a pack stored whole, a pack
 * in chunks and an attribute in a field of its own, with and without compression; and the size a
 * save reports to listeners and budgets is the one measured afterwards.
 */
class SessionSizeIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  static AttributeSerializer serializer(boolean compressed) {
    return TestRedis.serializer().toBuilder()
        .compression(compressed ? Compression.zstd() : Compression.none()).build();
  }

  /** 3,000 random hex characters: too big for the pack, in a field of its own. */
  static String large() {
    byte[] bytes = new byte[1500];
    new Random(5).nextBytes(bytes);
    return java.util.HexFormat.of().formatHex(bytes);
  }

  LazySession saved(Map<String, Object> attributes) {
    LazySession session = nodes.a().createSession();
    attributes.forEach(session::setAttribute);
    nodes.a().save(session);
    return session;
  }

  long hstrlen(String id, String field) {
    return hstrlen(id, field.getBytes(UTF_8));
  }

  long hstrlen(String id, byte[] field) {
    return nodes.raw().hstrlen(nodes.sessionKey(id), field);
  }

  /** The key plus every field's name and value, as Redis holds them. */
  long storedInRedis(String id) {
    RedisCommands<byte[], byte[]> raw = nodes.raw();
    long sum = nodes.sessionKey(id).length;
    for (byte[] field : raw.hkeys(nodes.sessionKey(id))) {
      sum += field.length + raw.hstrlen(nodes.sessionKey(id), field);
    }
    return sum;
  }

  /** The fields that hold the pack: {@code #s}, or its chunks (pack.lua: one byte each). */
  List<byte[]> packFields(String id) {
    List<byte[]> fields = new ArrayList<>();
    for (byte[] field : nodes.raw().hkeys(nodes.sessionKey(id))) {
      if (StoredPack.chunkIndex(field) >= 0 || StoredPack.FIELD.equals(new String(field, UTF_8))) {
        fields.add(field);
      }
    }
    return fields;
  }

  long packMembersStored(SessionSize size) {
    return size.attributes().stream().filter(a -> a.place() == SessionSize.Place.PACK)
        .mapToLong(SessionSize.AttributeSize::storedBytes).sum();
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void measure_packWholeAndOwnField_numbersAreWhatRedisHolds(boolean compressed) {
    nodes.configure(b -> b.serializer(serializer(compressed)));
    LazySession session = saved(Map.of("user", "ada", "visits", 42, "upload", large()));
    String id = session.getId();

    SessionSize size = nodes.a().measure(session, true);

    assertThat(packFields(id)).extracting(f -> new String(f, UTF_8)).containsExactly("#s");
    SessionSize.AttributeSize upload = size.attribute("upload");
    assertThat(upload.place()).isEqualTo(SessionSize.Place.OWN_FIELD);
    assertThat(upload.envelopeBytes()).isEqualTo(hstrlen(id, "upload"));
    assertThat(upload.storedBytes()).isEqualTo("upload".length() + hstrlen(id, "upload"));
    assertThat(upload.encodedBytes()).isGreaterThan(3000);
    if (compressed) {
      assertThat(upload.envelopeBytes()).isLessThan(upload.encodedBytes());
    }
    assertThat(size.attribute("user").place()).isEqualTo(SessionSize.Place.PACK);
    assertThat(size.packBytes()).isEqualTo(hstrlen(id, "#s"));
    assertThat(size.packFields()).isEqualTo(1);
    assertThat(packMembersStored(size)).isEqualTo("#s".length() + hstrlen(id, "#s"));
    assertThat(size.attribute("user").packShare() + size.attribute("visits").packShare())
        .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(size.metadataBytes()).isEqualTo(1 + hstrlen(id, "#"));
    assertThat(size.keyBytes()).isEqualTo(nodes.sessionKey(id).length);
    assertThat(size.storedBytes()).isEqualTo(storedInRedis(id));
    assertThat(size.storedBytes()).isEqualTo(size.keyBytes() + size.metadataBytes()
        + size.attributeStoredBytes());
    assertThat(size.memoryUsage()).isEqualTo(nodes.raw().memoryUsage(nodes.sessionKey(id)));
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void measure_packInChunks_sharesAddUpToTheChunksRedisHolds(boolean compressed) {
    nodes.configure(b -> b.serializer(serializer(compressed)));
    LazySession session = saved(PackChunksIT.smallAttributes(1));
    String id = session.getId();

    SessionSize size = nodes.a().measure(session, true);

    List<byte[]> chunks = packFields(id);
    assertThat(chunks).hasSizeGreaterThan(1).allMatch(f -> StoredPack.chunkIndex(f) >= 0);
    long chunkValues = chunks.stream().mapToLong(chunk -> hstrlen(id, chunk)).sum();
    long chunkNames = chunks.stream().mapToLong(chunk -> chunk.length).sum();
    assertThat(size.packFields()).isEqualTo(chunks.size());
    assertThat(size.packBytes()).isEqualTo(chunkValues);
    assertThat(packMembersStored(size)).isEqualTo(chunkValues + chunkNames);
    assertThat(size.attributes()).hasSize(7)
        .allMatch(a -> a.place() == SessionSize.Place.PACK && a.storedBytes() > 0);
    assertThat(size.storedBytes()).isEqualTo(storedInRedis(id));
    assertThat(size.memoryUsage()).isEqualTo(nodes.raw().memoryUsage(nodes.sessionKey(id)));
  }

  /** Nodes that seal what they store with a key of their own. */
  void configureWithKeys(boolean compressed) {
    byte[] secret = new byte[32];
    new Random(7).nextBytes(secret);
    nodes.configure(b -> b.serializer(serializer(compressed)).encryption(SessionEncryption
        .builder().keys(EncryptionKey.parseList("k1:"
            + java.util.Base64.getEncoder().encodeToString(secret))).build()));
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void measure_packInChunksWithEncryptionKeys_sharesAddUpToTheSealedChunks(boolean compressed) {
    configureWithKeys(compressed);
    LazySession session = saved(Map.of("user", "ada", "visits", 42, "theme", "dark"));
    String id = session.getId();

    SessionSize size = nodes.a().measure(session, true);

    List<byte[]> chunks = packFields(id);
    assertThat(chunks).hasSizeGreaterThan(1).allMatch(f -> StoredPack.chunkIndex(f) >= 0);
    long chunkValues = chunks.stream().mapToLong(chunk -> hstrlen(id, chunk)).sum();
    long chunkNames = chunks.stream().mapToLong(chunk -> chunk.length).sum();
    assertThat(size.packBytes()).isEqualTo(chunkValues);
    assertThat(packMembersStored(size)).isEqualTo(chunkValues + chunkNames);
    assertThat(size.attributes()).hasSize(3)
        .allMatch(a -> a.place() == SessionSize.Place.PACK && a.storedBytes() > 0
            && a.type() != null);
    assertThat(size.storedBytes()).isEqualTo(storedInRedis(id));
    assertThat(size.memoryUsage()).isEqualTo(nodes.raw().memoryUsage(nodes.sessionKey(id)));
  }

  /** With encryption keys, the sizes are those of the sealed bytes Redis holds. */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void measure_withEncryptionKeys_storedNumbersAreTheSealedBytesRedisHolds(boolean compressed) {
    configureWithKeys(compressed);
    LazySession session = saved(Map.of("user", "ada", "visits", 42, "upload", large()));
    String id = session.getId();

    SessionSize size = nodes.a().measure(session, true);

    assertThat(size.attribute("upload").place()).isEqualTo(SessionSize.Place.OWN_FIELD);
    assertThat(size.attribute("upload").storedBytes())
        .isEqualTo("upload".length() + hstrlen(id, "upload"));
    assertThat(size.attribute("user").place()).isEqualTo(SessionSize.Place.PACK);
    assertThat(size.packBytes()).isEqualTo(hstrlen(id, "#s"));
    assertThat(packMembersStored(size)).isEqualTo("#s".length() + hstrlen(id, "#s"));
    assertThat(size.storedBytes()).isEqualTo(storedInRedis(id));
    assertThat(size.memoryUsage()).isEqualTo(nodes.raw().memoryUsage(nodes.sessionKey(id)));
  }

  @Test
  void measure_withoutMemoryUsage_sendsNoMemoryCommandAndReportsNull() {
    LazySession session = saved(Map.of("user", "ada"));

    SessionSize size = nodes.a().measure(session, false);

    assertThat(size.memoryUsage()).isNull();
    assertThat(size.storedBytes()).isEqualTo(storedInRedis(session.getId()));
  }

  @Test
  void measure_jdkSizes_areJavaSerializationOfEachValue() throws Exception {
    LazySession session = saved(Map.of("user", "ada", "visits", 42));

    SessionSize size = nodes.a().measure(session, false);

    for (String name : List.of("user", "visits")) {
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
        out.writeObject(session.getAttribute(name));
      }
      assertThat(size.attribute(name).jdkBytes()).as(name).isEqualTo(bytes.size());
    }
    assertThat(size.attribute("visits").type()).isEqualTo("java.lang.Integer");
    assertThat(size.jdkStoredBytes()).isEqualTo(
        2 * "sessionAttr:".length() + "user".length() + "visits".length()
            + size.attribute("user").jdkBytes() + size.attribute("visits").jdkBytes());
  }

  @Test
  void measure_attributeTheRequestRead_isReportedInflated() {
    String id = saved(Map.of("user", "ada", "visits", 42)).getId();
    LazySession request = nodes.b().findById(id);
    request.getAttribute("user");

    SessionSize size = nodes.b().measure(request, false);

    assertThat(size.attribute("user").inflated()).isTrue();
    assertThat(size.attribute("visits").inflated()).isFalse();
    assertThat(request.attributeInfo()).filteredOn(AttributeInfo::inflated).hasSize(1);
  }

  @Test
  void measure_sessionNotSavedYet_isNull() {
    assertThat(nodes.a().measure(nodes.a().createSession(), true)).isNull();
  }

  @Test
  void addSizeListener_createWithPackAndOwnField_reportsTheSizeMeasuredAfterwards() {
    List<Long> sessions = new ArrayList<>();
    List<Map<String, Long>> attributes = new ArrayList<>();
    nodes.a().addSizeListener((stored, byName) -> {
      sessions.add(stored);
      attributes.add(byName);
    });
    LazySession session = saved(Map.of("user", "ada", "visits", 42, "upload", large()));

    SessionSize size = nodes.a().measure(session, false);

    assertThat(sessions).containsExactly(size.storedBytes());
    for (SessionSize.AttributeSize attribute : size.attributes()) {
      assertThat(attributes.get(0)).containsEntry(attribute.name(), attribute.storedBytes());
    }
  }

  @Test
  void addSizeListener_listenerThrows_saveGoesOn() {
    nodes.a().addSizeListener((stored, byName) -> {
      throw new IllegalStateException("boom");
    });
    LazySession session = saved(Map.of("user", "ada"));

    assertThat(nodes.b().findById(session.getId()).<String>getAttribute("user")).isEqualTo("ada");
  }
}
