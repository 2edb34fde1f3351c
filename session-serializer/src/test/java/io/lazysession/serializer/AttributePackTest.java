package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.codec.DecodeLimitException;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdCompressor;
import io.lazysession.serializer.compress.ZstdDictionary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AttributePackTest {
  private static final AttributeSerializer RAW = serializer(Compression.none());
  private static final AttributeSerializer ZSTD = serializer(Compression.zstd(3, 256));
  private static final AttributeSerializer DICTIONARY =
      serializer(Compression.zstd(3, 32,
          ZstdDictionary.of(GoldenFiles.read("golden/dictionary.hex"))));

  private static AttributeSerializer serializer(Compression compression) {
    return AttributeSerializer.builder().codec(CodecKind.KRYO).compression(compression)
        .allowList(GoldenVectorsTest.ALLOW).build();
  }

  /** Three small attributes of a shop session, as envelopes of the writer. */
  private static Map<String, byte[]> entries(AttributeSerializer writer) {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    entries.put("csrfToken", writer.serialize("3f2b8c1e-54a7-4d0b-9e61-1c0b7a9d2e44"));
    entries.put("checkoutStep", writer.serialize("SHIPPING"));
    entries.put("recentlyViewed", writer.serialize(List.of("sku-1001", "sku-1002", "sku-1003")));
    return entries;
  }

  @Test
  void unpack_nonAsciiName_readBack() {
    Map<String, byte[]> entries = Map.of("préférence→", RAW.serialize("x"));

    assertThat(RAW.unpack(RAW.pack(entries)).keySet()).containsExactly("préférence→");
  }

  @Test
  void unpack_nameNotUtf8_corrupt() {
    byte[] envelope = RAW.serialize("x");
    byte[] pack = new byte[2 + 1 + 1 + 2 + 1 + envelope.length];
    pack[0] = (byte) 0xB1;
    pack[2] = 1; // one entry
    pack[3] = 2; // a name of two bytes: a lone continuation byte and 'a'
    pack[4] = (byte) 0x80;
    pack[5] = 'a';
    pack[6] = (byte) envelope.length;
    System.arraycopy(envelope, 0, pack, 7, envelope.length);

    assertThatThrownBy(() -> RAW.unpack(pack)).isInstanceOf(CorruptDataException.class)
        .hasMessageContaining("not UTF-8");
  }

  @Test
  void dictionarySamples_smallAndLargeAttributes_packBodyAndEachLargePayload() {
    String large = "x".repeat(3000);
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("csrfToken", "3f2b8c1e-54a7-4d0b-9e61-1c0b7a9d2e44");
    attributes.put("document", large);
    attributes.put("checkoutStep", "SHIPPING");

    List<byte[]> samples = ZSTD.dictionarySamples(attributes);

    // What the pack of the two small ones compresses, and the large one's payload, compressed alone.
    Map<String, byte[]> small = new LinkedHashMap<>();
    small.put("csrfToken", RAW.serialize("3f2b8c1e-54a7-4d0b-9e61-1c0b7a9d2e44"));
    small.put("checkoutStep", RAW.serialize("SHIPPING"));
    byte[] rawPack = RAW.pack(small);
    assertThat(samples).hasSize(2);
    assertThat(samples.get(0)).isEqualTo(java.util.Arrays.copyOfRange(rawPack, 2, rawPack.length));
    assertThat(samples.get(1)).isEqualTo(ZSTD.encodePayload(large));
    assertThat(ZSTD.payload(ZSTD.serialize(large))).isEqualTo(samples.get(1));
  }

  @Test
  void dictionarySamples_packingOff_eachPayload() {
    AttributeSerializer unpacked = ZSTD.toBuilder().packMaxBytes(0).build();

    List<byte[]> samples = unpacked.dictionarySamples(Map.of("checkoutStep", "SHIPPING"));

    assertThat(samples).containsExactly(unpacked.encodePayload("SHIPPING"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "zstd", "dictionary"})
  void pack_pinnedEntries_writesCommittedBytesAndReadsThemBack(String compression) {
    AttributeSerializer writer = writer(compression);
    Map<String, byte[]> entries = entries(writer);

    byte[] pack = writer.pack(entries);

    assertThat(pack).isEqualTo(GoldenFiles.readOrWrite("golden/pack2-" + compression + ".hex", pack));
    assertThat(pack[0] & 0xFF).isEqualTo(0xB2);
    assertReadBack(pack, entries);
  }

  /** Packs of version 1, written by earlier builds, are still read (the writer no longer makes them). */
  @ParameterizedTest
  @ValueSource(strings = {"none", "zstd", "dictionary"})
  void unpack_version1Vectors_readBack(String compression) {
    byte[] pack = GoldenFiles.read("golden/pack-" + compression + ".hex");

    assertThat(pack[0] & 0xFF).isEqualTo(0xB1);
    assertReadBack(pack, entries(writer(compression)));
  }

  private static AttributeSerializer writer(String compression) {
    return switch (compression) {
      case "none" -> RAW;
      case "zstd" -> ZSTD;
      default -> DICTIONARY;
    };
  }

  private static void assertReadBack(byte[] pack, Map<String, byte[]> entries) {
    Map<String, byte[]> read = DICTIONARY.unpack(pack);
    assertThat(read.keySet()).containsExactly("csrfToken", "checkoutStep", "recentlyViewed");
    entries.forEach((name, envelope) -> assertThat(read.get(name)).isEqualTo(envelope));
    assertThat(DICTIONARY.deserialize(read.get("checkoutStep"))).isEqualTo("SHIPPING");
  }

  @Test
  void pack_envelopesThatAreNotBare_areStoredWhole() {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    entries.put("kryo", RAW.serialize("x"));
    entries.put("jdk", RAW.toBuilder().codec(CodecKind.JDK).build().serialize("y"));
    entries.put("compressed", ZSTD.serialize("z".repeat(2000)));

    byte[] pack = RAW.pack(entries);

    // The body's codec is the first bare entry's (Kryo); the JDK and the compressed one are whole.
    assertThat(pack[2]).isEqualTo((byte) CodecKind.KRYO.id());
    Map<String, byte[]> read = RAW.unpack(pack);
    entries.forEach((name, envelope) -> assertThat(read.get(name)).isEqualTo(envelope));
    assertThat(RAW.deserialize(read.get("jdk"))).isEqualTo("y");
    assertThat(RAW.deserialize(read.get("compressed"))).isEqualTo("z".repeat(2000));
  }

  @Test
  void pack_uncompressed_isHeaderThenBody() {
    byte[] envelope = RAW.serialize("x");

    byte[] pack = RAW.pack(Map.of("a", envelope));

    // 0xB2, compression 0, codec, count 1, name length 1 << 1 (bare), "a", payload length, the
    // envelope without its 3-byte header
    assertThat(pack).hasSize(2 + 1 + 1 + 1 + 1 + 1 + envelope.length - 3);
    assertThat(pack[1]).isZero();
    assertThat(pack[2]).isEqualTo(envelope[1]);
    assertThat(pack[3]).isEqualTo((byte) 1);
    assertThat(pack[4]).isEqualTo((byte) 2);
    assertThat(pack[5]).isEqualTo((byte) 'a');
    assertThat(java.util.Arrays.copyOfRange(pack, 7, pack.length))
        .isEqualTo(java.util.Arrays.copyOfRange(envelope, 3, envelope.length));
  }

  @Test
  void pack_zstd_sharesWhatEntriesHaveInCommon() {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    for (int i = 0; i < 12; i++) {
      entries.put("recentlyViewed" + i, ZSTD.serialize(List.of("sku-100" + i, "sku-200" + i)));
    }

    byte[] pack = ZSTD.pack(entries);

    assertThat(pack[1]).isEqualTo((byte) 1);
    assertThat(pack.length).isLessThan(RAW.pack(entries).length / 2);
  }

  @Test
  void pack_incompressible_isWrittenUncompressed() {
    byte[] pack = ZSTD.pack(Map.of("a", ZSTD.serialize("x")));

    assertThat(pack[1]).isZero();
    assertThat(ZSTD.unpack(pack).keySet()).containsExactly("a");
  }

  @Test
  void packable_smallUncompressedEnvelope_only() {
    AttributeSerializer small = ZSTD.toBuilder().packMaxBytes(16).build();

    assertThat(small.packable(small.serialize("short"))).isTrue();
    assertThat(small.packable(small.serialize("a string longer than sixteen bytes"))).isFalse();
    assertThat(ZSTD.toBuilder().packMaxBytes(0).build().packable(ZSTD.serialize("short")))
        .isFalse();
    byte[] compressed = ZSTD.toBuilder().packMaxBytes(0).build().serialize("x".repeat(2000));
    assertThat(ZSTD.packable(compressed)).isFalse();
  }

  @Test
  void serialize_payloadWithinPackLimit_isNotCompressedOnItsOwn() {
    String value = "y".repeat(600);

    assertThat(ZSTD.header(ZSTD.serialize(value)).compression().id()).isZero();
    assertThat(ZSTD.toBuilder().packMaxBytes(0).build().header(ZSTD.toBuilder().packMaxBytes(0)
        .build().serialize(value)).compression().id()).isEqualTo(1);
  }

  @Test
  void packMaxBytes_outOfRange_throwsNamingParameter() {
    assertThatThrownBy(() -> AttributeSerializer.builder().packMaxBytes(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("packMaxBytes must be between 0 and 65536, was -1");
    assertThat(AttributeSerializer.builder().packMaxBytes(77).build().toBuilder().build()
        .packMaxBytes()).isEqualTo(77);
  }

  @Test
  void unpack_unknownVersion_isIncompatible() {
    byte[] pack = ZSTD.pack(entries(ZSTD));
    pack[0] = (byte) 0xB3;

    assertThatThrownBy(() -> ZSTD.unpack(pack)).isInstanceOf(IncompatibleDataException.class)
        .hasMessageContaining("format version 3");
  }

  @Test
  void unpack_unknownCompression_isIncompatible() {
    byte[] pack = ZSTD.pack(entries(ZSTD));
    pack[1] = 7;

    assertThatThrownBy(() -> ZSTD.unpack(pack)).isInstanceOf(IncompatibleDataException.class)
        .hasMessageContaining("compression id 7");
  }

  @Test
  void unpack_unknownDictionary_isUnknownDictionary() {
    byte[] pack = DICTIONARY.pack(entries(DICTIONARY));

    assertThatThrownBy(() -> ZSTD.unpack(pack)).isInstanceOf(UnknownDictionaryException.class);
  }

  @Test
  void unpack_bodyOverPayloadLimit_isIncompatible() {
    AttributeSerializer small = RAW.toBuilder().maxPayloadBytes(1024).build();
    byte[] pack = RAW.pack(Map.of("big", RAW.serialize("z".repeat(1100))));

    assertThatThrownBy(() -> small.unpack(pack)).isInstanceOf(IncompatibleDataException.class)
        .hasMessageContaining(ValueTooLargeException.PROPERTY);
  }

  @Test
  void unpack_frameBeyondRatioCap_isRefusedBeforeDecompressing() {
    // zstd header claiming 64 MiB from a 10-byte frame
    byte[] pack = {(byte) 0xB1, 1, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x20, 1, 2, 3, 4, 5, 6,
        7, 8, 9, 10};
    AttributeSerializer roomy = RAW.toBuilder().maxPayloadBytes(128 * 1024 * 1024).build();

    assertThatThrownBy(() -> roomy.unpack(pack)).isInstanceOf(DecodeLimitException.class);
    assertThat(ZstdCompressor.MAX_RATIO).isPositive();
  }

  @Test
  void unpack_hostileBodies_areCorruptOrLimited() {
    byte[] envelope = RAW.serialize("x");
    byte[] good = RAW.pack(Map.of("a", envelope));
    for (byte[] hostile : Set.of(
        new byte[0],
        new byte[] {(byte) 0xA1, 0},
        new byte[] {(byte) 0xB1, 0},
        java.util.Arrays.copyOf(good, good.length - 1),
        java.util.Arrays.copyOf(good, good.length + 1),
        new byte[] {(byte) 0xB1, 0, 2, 1, 'a', 3, (byte) 0xA1, 2, 0, 1, 'a', 3, (byte) 0xA1, 2, 0},
        new byte[] {(byte) 0xB1, 0, 1, 1, 'a', 3, 1, 2, 3},
        new byte[] {(byte) 0xB1, 0, 1, 1, (byte) 0xFF, 3, (byte) 0xA1, 2, 0},
        new byte[] {(byte) 0xB1, 0, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F},
        new byte[] {(byte) 0xB1, 0, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
            (byte) 0x80, 0},
        new byte[] {(byte) 0xB0, 0, 2, 1, 2, 'a', 1, 7},
        // version 2: a bare entry in a body without a codec; a name twice; a whole entry that is
        // not an envelope; a payload past the end; more entries than the bytes hold
        new byte[] {(byte) 0xB2, 0, 0, 1, 2, 'a', 1, 7},
        new byte[] {(byte) 0xB2, 0, 2, 2, 2, 'a', 1, 7, 2, 'a', 1, 7},
        new byte[] {(byte) 0xB2, 0, 2, 1, 3, 'a', 3, 1, 2, 3},
        new byte[] {(byte) 0xB2, 0, 2, 1, 2, 'a', 9, 7},
        new byte[] {(byte) 0xB2, 0, 2, 1, 2, 'a', (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
            (byte) 0xFF, 0x07, 7},
        new byte[] {(byte) 0xB2, 0, 2, 100, 2, 'a', 1, 7},
        new byte[] {(byte) 0xB2, 0, 2, 1, 4, (byte) 0xFF, 'a', 1, 7})) {
      assertThatThrownBy(() -> RAW.unpack(hostile)).as(java.util.HexFormat.of().formatHex(hostile))
          .isInstanceOfAny(CorruptDataException.class, DecodeLimitException.class);
    }
  }

  @Test
  void packEntryBytes_entries_boundTheBodyOfAnUncompressedPack() {
    Map<String, byte[]> entries = entries(RAW);
    entries.put("é".repeat(100), ZSTD.serialize("w".repeat(3000))); // not bare: stored whole

    int sum = AttributeSerializer.PACK_BODY_HEADER_BYTES;
    for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
      sum += AttributeSerializer.packEntryBytes(entry.getKey(), entry.getValue());
    }

    // varint(2 << 1 | 1), "ab", varint(5), 5 bytes; the three bare entries take 3 bytes less each,
    // and the codec and count take 2 of the 6 header bytes
    assertThat(AttributeSerializer.packEntryBytes("ab", new byte[5])).isEqualTo(9);
    // Varints of 1, 2 and 3 bytes around their bounds.
    assertThat(AttributeSerializer.packEntryBytes("", new byte[127])).isEqualTo(1 + 1 + 127);
    assertThat(AttributeSerializer.packEntryBytes("", new byte[128])).isEqualTo(1 + 2 + 128);
    assertThat(AttributeSerializer.packEntryBytes("", new byte[16383])).isEqualTo(1 + 2 + 16383);
    assertThat(AttributeSerializer.packEntryBytes("", new byte[16384])).isEqualTo(1 + 3 + 16384);
    assertThat(RAW.pack(entries)).hasSize(2 + sum - 3 * 3 - 4);
  }

  /**
   * Mutated packs of both versions (bytes changed, cut, inserted) are read or refused with one of
   * the serializer's own exceptions, never another exception nor a huge allocation.
   */
  @ParameterizedTest
  @ValueSource(strings = {"pack2-none", "pack2-zstd", "pack-none", "pack-zstd"})
  void unpack_mutatedPacks_readOrRefusedCleanly(String vector) {
    byte[] valid = GoldenFiles.read("golden/" + vector + ".hex");
    java.util.SplittableRandom random = new java.util.SplittableRandom(vector.hashCode());
    for (int i = 0; i < 5_000; i++) {
      byte[] mutated = mutate(valid, random);
      try {
        DICTIONARY.unpack(mutated);
      } catch (SerializationException expected) {
        // refused: CorruptDataException, IncompatibleDataException, DecodeLimitException, ...
      } catch (RuntimeException e) {
        throw new AssertionError("unexpected " + e + " for "
            + java.util.HexFormat.of().formatHex(mutated), e);
      }
    }
  }

  private static byte[] mutate(byte[] valid, java.util.SplittableRandom random) {
    byte[] bytes = valid.clone();
    int edits = 1 + random.nextInt(3);
    for (int e = 0; e < edits; e++) {
      int at = random.nextInt(bytes.length);
      switch (random.nextInt(4)) {
        case 0 -> bytes[at] = (byte) random.nextInt(256);
        case 1 -> bytes[at] ^= (byte) (1 << random.nextInt(8));
        case 2 -> bytes = java.util.Arrays.copyOf(bytes, Math.max(1, at));
        default -> {
          byte[] longer = new byte[bytes.length + 5];
          System.arraycopy(bytes, 0, longer, 0, at);
          for (int k = 0; k < 5; k++) {
            longer[at + k] = (byte) (k == 4 ? 0x07 : 0xFF); // a varint near 2^31
          }
          System.arraycopy(bytes, at, longer, at + 5, bytes.length - at);
          bytes = longer;
        }
      }
    }
    return bytes;
  }

  @Test
  void pack_bodyOverTheLimit_refusedNamingTheSetting() {
    AttributeSerializer small = RAW.toBuilder().maxPayloadBytes(1024).build();
    Map<String, byte[]> entries = Map.of("a", RAW.serialize("x".repeat(600)),
        "b", RAW.serialize("y".repeat(600)));

    assertThatThrownBy(() -> small.pack(entries)).isInstanceOf(ValueTooLargeException.class)
        .hasMessageContaining(ValueTooLargeException.PROPERTY);
  }

  @Test
  void pack_loneSurrogateName_refused() {
    Map<String, byte[]> entries = Map.of("a\uD800", RAW.serialize("x"));

    assertThatThrownBy(() -> RAW.pack(entries)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lone surrogate");
    assertThat(RAW.unpack(RAW.pack(Map.of("\uD83D\uDE00", RAW.serialize("x")))).keySet())
        .containsExactly("\uD83D\uDE00");
  }

  @Test
  void utf8Length_names_isTheLengthOfTheirUtf8Bytes() {
    String[] names = {"", "cart", "préférence→", "emoji\uD83D\uDE00x", "lone\uD800", "\uDC00lone",
        "\u07FF\u0800\uFFFF", "end\uD83D"};
    for (String name : names) {
      assertThat(AttributePack.utf8Length(name)).as(name)
          .isEqualTo(name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    }
  }

  /**
   * The writer against the format written out the plain way (docs/envelope-format.md): the same
   * bytes for entries of every size (one- and two-byte varints), non-ASCII names, compressible and
   * incompressible bodies, with and without a dictionary.
   */
  @ParameterizedTest
  @ValueSource(strings = {"none", "zstd", "dictionary"})
  void pack_randomEntries_sameBytesAsThePlainEncoding(String kind) {
    Compression compression = switch (kind) {
      case "none" -> Compression.none();
      case "zstd" -> Compression.zstd(3, 256);
      default -> DICTIONARY.compression();
    };
    java.util.SplittableRandom random = new java.util.SplittableRandom(3);
    List<byte[]> packs = new java.util.ArrayList<>();
    List<byte[]> expected = new java.util.ArrayList<>();
    for (int i = 0; i < 300; i++) {
      Map<String, byte[]> entries = new LinkedHashMap<>();
      int count = 1 + random.nextInt(20);
      for (int e = 0; e < count; e++) {
        String name = (random.nextInt(5) == 0 ? "n\u00e9\u2192" : "attr") + e + "x".repeat(
            random.nextInt(140));
        byte[] envelope = new byte[3 + random.nextInt(random.nextBoolean() ? 100 : 400)];
        if (random.nextBoolean()) {
          random.nextBytes(envelope); // incompressible
        } else {
          java.util.Arrays.fill(envelope, (byte) ('a' + random.nextInt(3)));
        }
        envelope[0] = (byte) 0xA1;
        entries.put(name, envelope);
      }

      byte[] pack = AttributePack.write(entries, compression, Integer.MAX_VALUE);

      assertThat(pack).isEqualTo(plainPack(entries, compression));
      Map<String, byte[]> read = DICTIONARY.unpack(pack);
      assertThat(read.keySet()).containsExactlyElementsOf(entries.keySet());
      packs.add(pack);
      expected.add(pack.clone());
    }
    // No pack shares an array with a later write.
    for (int i = 0; i < packs.size(); i++) {
      assertThat(packs.get(i)).isEqualTo(expected.get(i));
    }
  }

  /** The pack format (version 2) written with streams, one step after another. */
  private static byte[] plainPack(Map<String, byte[]> envelopes, Compression compression) {
    java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
    int codec = envelopes.values().stream().filter(e -> e.length >= 3 && (e[0] & 0xFF) == 0xA1
        && e[2] == 0 && e[1] != 0).mapToInt(e -> e[1] & 0xFF).findFirst().orElse(0);
    body.write(codec);
    varint(body, envelopes.size());
    envelopes.forEach((name, envelope) -> {
      byte[] bytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      boolean bare = envelope.length >= 3 && (envelope[0] & 0xFF) == 0xA1 && envelope[2] == 0
          && envelope[1] != 0 && (envelope[1] & 0xFF) == codec;
      varint(body, bytes.length << 1 | (bare ? 0 : 1));
      body.writeBytes(bytes);
      int skip = bare ? 3 : 0;
      varint(body, envelope.length - skip);
      body.write(envelope, skip, envelope.length - skip);
    });
    byte[] raw = body.toByteArray();
    if (compression.enabled()) {
      ZstdDictionary dictionary = compression.dictionary();
      byte[] frame = ZstdCompressor.compress(raw, 0, raw.length, compression.level(), dictionary);
      java.io.ByteArrayOutputStream pack = new java.io.ByteArrayOutputStream();
      pack.write(0xB2);
      pack.write(dictionary == null ? 1 : 2);
      if (dictionary != null) {
        varint(pack, dictionary.id());
      }
      varint(pack, raw.length);
      pack.writeBytes(frame);
      if (pack.size() < raw.length + 2 && ZstdCompressor.withinRatio(raw.length, frame.length)) {
        return pack.toByteArray();
      }
    }
    java.io.ByteArrayOutputStream pack = new java.io.ByteArrayOutputStream();
    pack.write(0xB2);
    pack.write(0);
    pack.writeBytes(raw);
    return pack.toByteArray();
  }

  private static void varint(java.io.ByteArrayOutputStream out, int value) {
    long v = value & 0xFFFFFFFFL;
    while (v >= 0x80) {
      out.write((int) (v | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }
}
