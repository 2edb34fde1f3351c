package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lazysession.serializer.envelope.EnvelopeCompression;
import io.lazysession.serializer.fixtures.Parcel;
import io.lazysession.serializer.fixtures.Shipment;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AttributeSerializerTest {

  static Stream<Arguments> matrix() {
    return Stream.of(CodecKind.values()).flatMap(codec -> Stream.of(
        Arguments.of(codec, Compression.none()),
        Arguments.of(codec, Compression.zstd()),
        Arguments.of(codec, Compression.zstd(3, 0))));
  }

  private static AttributeSerializer serializer(CodecKind codec, Compression compression) {
    return AttributeSerializer.builder().codec(codec).compression(compression).build();
  }

  @Test
  void builder_defaults_kryoZstdLevel3Above256JdkOnly() {
    AttributeSerializer serializer = AttributeSerializer.builder().build();

    assertThat(serializer.codec()).isEqualTo(CodecKind.KRYO);
    assertThat(serializer.compression()).isEqualTo(Compression.zstd(3, 256));
    assertThat(serializer.allowList()).isEqualTo(ClassAllowList.jdkOnly());
    assertThat(serializer.dictionaries()).isEmpty();
    assertThat(serializer.maxPayloadBytes()).isEqualTo(16 * 1024 * 1024);
  }

  @Test
  void toBuilder_everyOptionSurvivesCopy() {
    io.lazysession.serializer.compress.ZstdDictionary dictionary = TestDictionaries.reference();
    ClassLoader loader = new ClassLoader(getClass().getClassLoader()) {};
    AttributeSerializer original = AttributeSerializer.builder().codec(CodecKind.JDK)
        .compression(Compression.zstd(7, 100)).allowList(ClassAllowList.builder().allowPackage("a.b").build())
        .dictionaries(List.of(dictionary)).classLoader(loader).maxPayloadBytes(4096).build();

    AttributeSerializer copy = original.toBuilder().build();

    assertThat(copy.codec()).isEqualTo(CodecKind.JDK);
    assertThat(copy.compression()).isEqualTo(Compression.zstd(7, 100));
    assertThat(copy.allowList().packages()).containsExactly("a.b");
    assertThat(copy.dictionaries()).containsExactly(dictionary);
    assertThat(copy.maxPayloadBytes()).isEqualTo(4096);
  }

  /** The same header and id, other content: what a second training that met the same id gives. */
  private static ZstdDictionary sameIdOtherContent(ZstdDictionary dictionary) {
    byte[] bytes = dictionary.bytes();
    for (int i = bytes.length / 2, j = bytes.length - 1; i < j; i++, j--) {
      byte b = bytes[i];
      bytes[i] = bytes[j];
      bytes[j] = b;
    }
    return ZstdDictionary.of(bytes);
  }

  /** Frames carry no checksum: the other dictionary would decode garbage, not fail. */
  @Test
  void build_twoDifferentDictionariesWithOneId_refusedNamingTheId() {
    ZstdDictionary dictionary = TestDictionaries.reference();
    ZstdDictionary other = sameIdOtherContent(dictionary);
    String id = Integer.toUnsignedString(dictionary.id());
    assertThat(other.id()).isEqualTo(dictionary.id());
    assertThat(other).isNotEqualTo(dictionary);

    assertThatThrownBy(() -> AttributeSerializer.builder().dictionaries(List.of(dictionary, other)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dictionaries")
        .hasMessageContaining("two different ones have id " + id);
    assertThatThrownBy(() -> AttributeSerializer.builder().dictionaries(List.of(other))
        .compression(Compression.zstd(3, 32, dictionary)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("have id " + id)
        .hasMessageContaining("the writing one in compression");
  }

  @Test
  void build_sameDictionaryTwice_keptOnce() {
    ZstdDictionary dictionary = TestDictionaries.reference();
    ZstdDictionary copy = ZstdDictionary.of(dictionary.bytes());

    AttributeSerializer serializer = AttributeSerializer.builder().dictionaries(List.of(dictionary, copy))
        .compression(Compression.zstd(3, 32, dictionary)).build();

    assertThat(serializer.dictionaries()).containsExactly(dictionary);
  }

  @Test
  void maxPayloadBytes_tooSmall_throwsNamingParameter() {
    assertThatThrownBy(() -> AttributeSerializer.builder().maxPayloadBytes(10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxPayloadBytes must be >= 1024, was 10");
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void serialize_valueLargerThanMaximum_refused(CodecKind codec, Compression compression) {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec).compression(compression)
        .maxPayloadBytes(1024).build();

    assertThatThrownBy(() -> serializer.serialize("x".repeat(5000)))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("1024");
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void serialize_jdkValues_roundTrip(CodecKind codec, Compression compression) {
    AttributeSerializer serializer = serializer(codec, compression);
    Map<String, Object> value = Map.of("price", new BigDecimal("19.99"),
        "at", LocalDateTime.of(2025, 1, 2, 3, 4, 5), "tags", List.of("a", "b"), "n", 42L);

    byte[] envelope = serializer.serialize(value);

    assertThat(serializer.deserialize(envelope)).isEqualTo(value);
    assertThat(serializer.header(envelope).codec()).isEqualTo(codec);
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void deserialize_anyWriter_decodedByEveryReader(CodecKind codec, Compression compression) {
    List<String> value = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      value.add("item-" + i);
    }
    byte[] envelope = serializer(codec, compression).serialize(value);

    for (CodecKind readerCodec : CodecKind.values()) {
      assertThat(serializer(readerCodec, Compression.none()).deserialize(envelope)).isEqualTo(value);
    }
  }

  @Test
  void serialize_jdkValueHoldingNonSerializable_refusedNamingBothClasses() {
    AttributeSerializer serializer = serializer(CodecKind.JDK, Compression.none());
    List<Object> value = new ArrayList<>(List.of("ok", new Object()));

    assertThatThrownBy(() -> serializer.serialize(value))
        .isInstanceOf(SerializationException.class)
        .isNotInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("java.util.ArrayList holds a java.lang.Object, which is not Serializable");
  }

  /**
   * A record is built from its components once they are read, so a component pointing back at it
   * read back as null, silently, with Kryo as with Java serialization: refused when written, and
   * not handed to the JDK codec.
   */
  @Test
  void serialize_recordReachedAgainFromItsComponents_refusedNamingRecordAndHolder() {
    AttributeSerializer serializer = AttributeSerializer.builder().allowList(ClassAllowList.builder()
        .allowPackage(Shipment.class.getPackageName()).build()).build();
    Parcel parcel = new Parcel();
    Shipment shipment = new Shipment("S-1", parcel);
    parcel.shipment = shipment;

    assertThatThrownBy(() -> serializer.serialize(shipment)).isInstanceOf(RecordCycleException.class)
        .hasMessageContaining("cannot store a " + Shipment.class.getName())
        .hasMessageContaining("a " + Parcel.class.getName() + " in it refers back to it")
        .hasMessageContaining("read back as null");
    assertThat(serializer.codecFallbacks()).isZero();
    parcel.shipment = null;
    Shipment read = (Shipment) serializer.deserialize(serializer.serialize(shipment));
    assertThat(read.id()).isEqualTo("S-1");
    assertThat(read.parcel()).isNotNull();
  }

  @Test
  void serialize_largeCompressibleValue_storedCompressed() {
    AttributeSerializer serializer = AttributeSerializer.builder().build();
    String value = "abc".repeat(1000);

    byte[] envelope = serializer.serialize(value);

    assertThat(serializer.header(envelope).compression()).isEqualTo(EnvelopeCompression.ZSTD);
    assertThat(envelope.length).isLessThan(100);
    assertThat(serializer.deserialize(envelope)).isEqualTo(value);
  }

  @Test
  void serialize_smallValue_storedRaw() {
    AttributeSerializer serializer = AttributeSerializer.builder().build();

    byte[] envelope = serializer.serialize("abc".repeat(10));

    assertThat(serializer.header(envelope).compression()).isEqualTo(EnvelopeCompression.NONE);
    assertThat(serializer.header(envelope).length()).isEqualTo(3);
  }

  @Test
  void serialize_incompressibleValue_storedRaw() {
    AttributeSerializer serializer = AttributeSerializer.builder().compression(Compression.zstd(3, 0)).build();
    byte[] random = new byte[1000];
    new java.util.Random(1).nextBytes(random);

    byte[] envelope = serializer.serialize(random);

    assertThat(serializer.header(envelope).compression()).isEqualTo(EnvelopeCompression.NONE);
    assertThat((byte[]) serializer.deserialize(envelope)).isEqualTo(random);
  }

  @Test
  void lazy_neverRead_returnsOriginalBytesUntouched() {
    AttributeSerializer serializer = AttributeSerializer.builder().build();
    byte[] envelope = serializer.serialize(new ArrayList<>(List.of("x")));

    LazyValue lazy = serializer.lazy(envelope);

    assertThat(lazy.isInflated()).isFalse();
    assertThat(lazy.originalBytes()).isSameAs(envelope);
    assertThat(lazy.currentBytes()).isSameAs(envelope);
    assertThat(lazy.isModified()).isFalse();
    assertThat(lazy.isInflated()).isFalse();
  }

  @Test
  void lazy_get_inflatesOnce() {
    AttributeSerializer serializer = AttributeSerializer.builder().build();
    LazyValue lazy = serializer.lazy(serializer.serialize(new ArrayList<>(List.of("x"))));

    Object first = lazy.get();

    assertThat(lazy.isInflated()).isTrue();
    assertThat(lazy.get()).isSameAs(first);
    assertThat(lazy.isModified()).isFalse();
  }

  @Test
  @SuppressWarnings("unchecked")
  void lazy_mutatedInPlace_isModifiedAndCurrentBytesDecodeToMutation() {
    AttributeSerializer serializer = AttributeSerializer.builder().build();
    byte[] envelope = serializer.serialize(new ArrayList<>(List.of("x")));
    LazyValue lazy = serializer.lazy(envelope);

    ((List<String>) lazy.get()).add("y");

    assertThat(lazy.isModified()).isTrue();
    assertThat(lazy.originalBytes()).isSameAs(envelope);
    assertThat(serializer.deserialize(lazy.currentBytes())).isEqualTo(List.of("x", "y"));
  }

  @Test
  void ofValue_bytesEncodedOnDemand() {
    AttributeSerializer serializer = AttributeSerializer.builder().build();

    LazyValue lazy = serializer.ofValue("hello");

    assertThat(lazy.isInflated()).isTrue();
    assertThat(lazy.get()).isEqualTo("hello");
    assertThat(serializer.deserialize(lazy.originalBytes())).isEqualTo("hello");
    assertThat(lazy.isModified()).isFalse();
  }

  @Test
  void lazy_corruptBytes_getThrowsButBytesSurvive() {
    AttributeSerializer serializer = AttributeSerializer.builder().build();
    byte[] garbage = {(byte) 0xA1, 2, 0, (byte) 0xFF, (byte) 0xFF};
    LazyValue lazy = serializer.lazy(garbage);

    assertThatThrownBy(lazy::get).isInstanceOf(CorruptDataException.class);
    assertThat(lazy.isInflated()).isFalse();
    assertThat(lazy.currentBytes()).isSameAs(garbage);
  }
}
