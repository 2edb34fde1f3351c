package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.codec.DecodeLimitException;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.envelope.EnvelopeCompression;
import io.lazysession.serializer.forbidden.Gadget;
import io.lazysession.serializer.reference.ReferenceSession;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input gives a {@link SerializationException}: never another exception, an error (out of memory,
 * stack overflow), a hang or a disallowed class constructed. A bounded mutation loop (seeded, fixed
 * count) runs over the golden vectors and hostile seeds; inputs that once broke the decoder are kept in
 * src/test/resources/regressions and replayed.
 */
class FuzzTest {
  /** Per seed; raise with -Dlazysession.fuzz.mutations=N for a longer hunt outside CI. */
  private static final int MUTATIONS_PER_SEED = Integer.getInteger("lazysession.fuzz.mutations", 400);
  private static final ClassAllowList ALLOW = ClassAllowList.builder()
      .allowPackage("io.lazysession.serializer.fixtures").allowPackage(ReferenceSession.PACKAGE).build();

  private static AttributeSerializer reader() {
    return AttributeSerializer.builder().allowList(ALLOW).maxPayloadBytes(1 << 20)
        .dictionaries(List.of(GoldenVectorsTest.dictionary())).build();
  }

  /** Decodes, accepting a value or a serialization exception and nothing else. */
  private static void decodeOrRefuse(AttributeSerializer reader, byte[] input) {
    try {
      reader.deserialize(input);
    } catch (SerializationException expected) {
      // the contract
    } catch (Throwable t) {
      fail("decoding threw " + t + " for input " + HexFormat.of().formatHex(input), t);
    }
  }

  static List<byte[]> seeds() {
    List<byte[]> seeds = new ArrayList<>();
    GoldenVectorsTest.vectors().forEach(args -> {
      Object[] a = args.get();
      String name = (String) a[2];
      if (!name.equals("report")) {
        seeds.add(GoldenFiles.read(GoldenVectorsTest.resource((CodecKind) a[0],
            (EnvelopeCompression) a[1], name)));
      }
    });
    AttributeSerializer permissive = AttributeSerializer.builder().compression(Compression.none())
        .allowList(ClassAllowList.builder().allowPackage("io.lazysession.serializer").build()).build();
    for (CodecKind codec : CodecKind.values()) {
      seeds.add(permissive.toBuilder().codec(codec).build()
          .serialize(new ArrayList<>(List.of("a", new Gadget(), Map.of("k", new Gadget())))));
    }
    return seeds;
  }

  static Stream<Integer> seedIndexes() {
    return Stream.iterate(0, i -> i + 1).limit(seeds().size());
  }

  @ParameterizedTest
  @MethodSource("seedIndexes")
  void deserialize_mutatedVector_onlySerializationExceptions(int seedIndex) {
    byte[] seed = seeds().get(seedIndex);
    AttributeSerializer reader = reader();
    Random random = new Random(seedIndex * 7919L);
    Gadget.reset();
    for (int i = 0; i < MUTATIONS_PER_SEED; i++) {
      decodeOrRefuse(reader, mutate(seed, random));
    }
    assertThat(Gadget.CALLS.get()).as("gadget calls").isZero();
  }

  @Test
  void deserialize_randomBytes_onlySerializationExceptions() {
    AttributeSerializer reader = reader();
    Random random = new Random(42);
    for (int i = 0; i < 2000; i++) {
      byte[] input = new byte[random.nextInt(64)];
      random.nextBytes(input);
      if (input.length > 2 && random.nextBoolean()) {
        input[0] = (byte) 0xA1;
        input[1] = (byte) (1 + random.nextInt(2));
        input[2] = (byte) random.nextInt(3);
      }
      decodeOrRefuse(reader, input);
    }
  }

  @Test
  void deserialize_hugeDeclaredDecodedLength_refusedBeforeAllocating() {
    byte[] bomb = {(byte) 0xA1, 2, 1, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F, 0x28};

    assertThatThrownBy(() -> reader().deserialize(bomb)).isInstanceOf(CorruptDataException.class)
        .hasMessageContaining("decoded length");
  }

  @Test
  void deserialize_zstdFrameLargerThanDeclared_refused() {
    AttributeSerializer writer = AttributeSerializer.builder().compression(Compression.zstd(3, 0)).build();
    byte[] envelope = writer.serialize("x".repeat(5000));
    // declare 100 decoded bytes (varint 0x64) instead of the real ~5000
    byte[] lying = new byte[envelope.length - 1];
    lying[0] = envelope[0];
    lying[1] = envelope[1];
    lying[2] = envelope[2];
    lying[3] = 0x64;
    System.arraycopy(envelope, 5, lying, 4, envelope.length - 5);

    assertThatThrownBy(() -> reader().deserialize(lying)).isInstanceOf(CorruptDataException.class);
  }

  /**
   * Kryo: class ArrayList (0x12), new object (0x01), then a flagged varint size of about 2^33. A list
   * of nulls is written as its size alone, so the size is not checked against the bytes but against
   * the element limit.
   */
  @Test
  void deserialize_kryoHugeCollectionCount_refusedBeforeAllocating() {
    byte[] huge = HexFormat.of().parseHex("a102001201ffffffff0f");

    assertThatThrownBy(() -> reader().deserialize(huge)).isInstanceOf(DecodeLimitException.class)
        .hasMessageContaining("maxElements");
  }

  @Test
  void deserialize_kryoHugeStringOrArrayLength_refusedBeforeAllocating() {
    // 0x03 String, then a UTF-8 length of about 2^31 chars; 0x39 byte[] (id 55+2), then varint 2^31
    for (String hex : List.of("a1020003c1ffffffff07", "a1020039" + "01" + "ffffffff07",
        "a1020054" + "01" + "ffffffff07")) {
      byte[] input = HexFormat.of().parseHex(hex);
      decodeOrRefuse(reader(), input);
      assertThatThrownBy(() -> reader().deserialize(input)).isInstanceOf(CorruptDataException.class);
    }
  }

  @Test
  void deserialize_kryoDeepNesting_refusedWithoutStackOverflow() {
    AttributeSerializer writer = AttributeSerializer.builder().compression(Compression.none()).build();
    byte[] one = writer.serialize(nested(1));
    byte[] two = writer.serialize(nested(2));
    // two = header + unit + rest of one after its header: repeat the unit to nest 200,000 deep
    int unit = two.length - one.length;
    byte[] deep = new byte[3 + unit * 200_000 + one.length - 3];
    System.arraycopy(two, 0, deep, 0, 3);
    for (int i = 0; i < 200_000; i++) {
      System.arraycopy(two, 3, deep, 3 + i * unit, unit);
    }
    System.arraycopy(one, 3, deep, 3 + unit * 200_000, one.length - 3);

    assertThatThrownBy(() -> reader().deserialize(deep)).isInstanceOf(DecodeLimitException.class)
        .hasMessageContaining("maxDepth");
  }

  @Test
  void deserialize_jdkDeepNesting_refusedByFilter() {
    AttributeSerializer writer = AttributeSerializer.builder().codec(CodecKind.JDK)
        .compression(Compression.none()).build();
    byte[] deep = writer.serialize(nested(400));

    assertThatThrownBy(() -> reader().deserialize(deep)).isInstanceOf(IncompatibleDataException.class);
  }

  @Test
  void deserialize_unknownDictionary_clearError() {
    byte[] envelope = GoldenFiles.read(GoldenVectorsTest.resource(CodecKind.KRYO,
        EnvelopeCompression.ZSTD_DICTIONARY, "cart"));
    AttributeSerializer withoutDictionary = AttributeSerializer.builder().allowList(ALLOW).build();

    assertThat(withoutDictionary.header(envelope).compression())
        .isEqualTo(EnvelopeCompression.ZSTD_DICTIONARY);
    assertThatThrownBy(() -> withoutDictionary.deserialize(envelope))
        .isInstanceOf(UnknownDictionaryException.class)
        .satisfies(e -> assertThat(((UnknownDictionaryException) e).dictionaryId())
            .isEqualTo(GoldenVectorsTest.dictionary().id()));
  }

  @Test
  void deserialize_regressionInputs_onlySerializationExceptions() throws IOException {
    AttributeSerializer reader = reader();
    try (InputStream index = FuzzTest.class.getResourceAsStream("/regressions/index.txt")) {
      if (index == null) {
        return;
      }
      AttributeSerializer defaults = AttributeSerializer.builder().allowList(ALLOW).build();
      for (String line : new String(index.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] fields = line.trim().split("\\s+", 3);
        String name = fields[0];
        byte[] input = GoldenFiles.read("regressions/" + name);
        if (fields.length == 1) {
          assertThatThrownBy(() -> reader.deserialize(input)).as(name)
              .isInstanceOf(SerializationException.class);
        } else if (fields[1].equals("value")) {
          assertThat(defaults.deserialize(input)).as(name).isNotNull();
        } else {
          assertThatThrownBy(() -> defaults.deserialize(input)).as(name)
              .isInstanceOf(SerializationException.class)
              .satisfies(e -> assertThat(e.getClass().getSimpleName()).as(name).isEqualTo(fields[1]))
              .hasMessageContaining(fields[2]);
        }
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static List<Object> nested(int depth) {
    List<Object> list = new ArrayList<>();
    list.add("leaf");
    for (int i = 1; i < depth; i++) {
      List<Object> outer = new ArrayList<>();
      outer.add(list);
      list = outer;
    }
    return list;
  }

  private static byte[] mutate(byte[] seed, Random random) {
    byte[] b = seed.clone();
    int edits = 1 + random.nextInt(4);
    for (int e = 0; e < edits && b.length > 0; e++) {
      int at = random.nextInt(b.length);
      switch (random.nextInt(7)) {
        case 0 -> b[at] ^= (byte) (1 << random.nextInt(8));
        case 1 -> b[at] = (byte) random.nextInt(256);
        case 2 -> b = java.util.Arrays.copyOf(b, at); // truncate
        case 3 -> { // a run of 0xFF: huge varints and lengths
          int n = Math.min(b.length - at, 1 + random.nextInt(5));
          java.util.Arrays.fill(b, at, at + n, (byte) 0xFF);
        }
        case 4 -> { // delete one byte
          byte[] c = new byte[b.length - 1];
          System.arraycopy(b, 0, c, 0, at);
          System.arraycopy(b, at + 1, c, at, b.length - at - 1);
          b = c;
        }
        case 5 -> { // insert a random byte
          byte[] c = new byte[b.length + 1];
          System.arraycopy(b, 0, c, 0, at);
          c[at] = (byte) random.nextInt(256);
          System.arraycopy(b, at, c, at + 1, b.length - at);
          b = c;
        }
        default -> { // duplicate a slice (repeated structure, references)
          int n = Math.min(b.length - at, 1 + random.nextInt(16));
          byte[] c = new byte[b.length + n];
          System.arraycopy(b, 0, c, 0, at + n);
          System.arraycopy(b, at, c, at + n, b.length - at);
          b = c;
        }
      }
    }
    return b;
  }
}
