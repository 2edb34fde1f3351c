package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lazysession.serializer.envelope.EnvelopeCompression;
import io.lazysession.serializer.fixtures.Point;
import io.lazysession.serializer.reference.ReferenceSession;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Envelopes written by this version, committed under src/test/resources/golden: they must keep
 * decoding in every later version, and the writer must keep producing exactly them (a change here is a
 * wire format change: bump the format or add a codec id, never silently re-encode). The dictionary they
 * use is committed too. Regenerate only on purpose, with {@code -Dlazysession.golden.write=true}.
 */
class GoldenVectorsTest {
  static final ClassAllowList ALLOW = ClassAllowList.builder()
      .allowPackage("io.lazysession.serializer.fixtures").allowPackage(ReferenceSession.PACKAGE).build();

  /** The values pinned, by name. */
  static Map<String, Object> values() {
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("string", "hello, session");
    values.put("long", 1_700_000_000_000L);
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("price", new BigDecimal("19.99"));
    map.put("at", LocalDateTime.of(2025, 6, 1, 10, 15, 30));
    map.put("tags", List.of("espresso", "grinder"));
    values.put("map", map);
    values.put("record", new Point(3, 4, "p"));
    Point shared = new Point(1, 1, "shared");
    values.put("shared", new ArrayList<>(List.of(shared, shared)));
    values.put("cart", ReferenceSession.create().get("cart"));
    values.put("report", ReferenceSession.create().get("report"));
    return values;
  }

  static ZstdDictionary dictionary() {
    return ZstdDictionary.of(GoldenFiles.readOrWrite("golden/dictionary.hex",
        TestDictionaries.reference().bytes()));
  }

  static Stream<Arguments> vectors() {
    List<Arguments> vectors = new ArrayList<>();
    for (CodecKind codec : CodecKind.values()) {
      for (EnvelopeCompression compression : EnvelopeCompression.values()) {
        for (Map.Entry<String, Object> e : values().entrySet()) {
          vectors.add(Arguments.of(codec, compression, e.getKey(), e.getValue()));
        }
      }
    }
    return vectors.stream();
  }

  static AttributeSerializer writer(CodecKind codec, EnvelopeCompression compression) {
    Compression c = switch (compression) {
      case NONE -> Compression.none();
      case ZSTD -> Compression.zstd(3, 0);
      case ZSTD_DICTIONARY -> Compression.zstd(3, 0, dictionary());
    };
    // Packing off: these vectors pin each envelope compressed on its own (AttributePackTest pins
    // the pack, in which small payloads are compressed together instead).
    return AttributeSerializer.builder().codec(codec).compression(c).allowList(ALLOW)
        .packMaxBytes(0).build();
  }

  static String resource(CodecKind codec, EnvelopeCompression compression, String name) {
    return "golden/" + codec.name().toLowerCase(Locale.ROOT) + "-"
        + compression.name().toLowerCase(Locale.ROOT) + "-" + name + ".hex";
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("vectors")
  void deserialize_committedVector_decodesToValue(CodecKind codec, EnvelopeCompression compression,
      String name, Object value) {
    byte[] committed = GoldenFiles.readOrWrite(resource(codec, compression, name),
        writer(codec, compression).serialize(value));
    AttributeSerializer reader = AttributeSerializer.builder().allowList(ALLOW)
        .dictionaries(List.of(dictionary())).build();

    assertThat(reader.deserialize(committed)).isEqualTo(value);
    assertThat(reader.header(committed).codec()).isEqualTo(codec);
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("vectors")
  void serialize_pinnedValue_writesCommittedBytes(CodecKind codec, EnvelopeCompression compression,
      String name, Object value) {
    byte[] written = writer(codec, compression).serialize(value);

    assertThat(written).isEqualTo(GoldenFiles.read(resource(codec, compression, name)));
  }
}
