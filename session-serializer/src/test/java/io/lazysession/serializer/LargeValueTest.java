package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.envelope.EnvelopeCompression;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Values of several megabytes: refused at the default maximum with a message naming the setting, and
 * stored and read back byte for byte once the setting allows them, compressed or not.
 */
class LargeValueTest {
  private static final int MIB = 1024 * 1024;

  static Stream<Arguments> compressions() {
    return Stream.of(Arguments.of(Compression.zstd()), Arguments.of(Compression.none()));
  }

  /** A 20 MB value is over the 16 MiB default: refused at save, naming lazysession.max-value-bytes. */
  @ParameterizedTest
  @MethodSource("compressions")
  void serialize_20MegabyteValueAtDefaultMaximum_refusedNamingTheSetting(Compression compression) {
    AttributeSerializer serializer = AttributeSerializer.builder().compression(compression).build();

    assertThatThrownBy(() -> serializer.serialize(text(20 * MIB)))
        .isInstanceOf(ValueTooLargeException.class)
        .hasMessageContaining("lazysession.max-value-bytes")
        .hasMessageContaining(String.valueOf(AttributeSerializer.DEFAULT_MAX_PAYLOAD_BYTES))
        .hasMessageContaining("value of byte[] encodes")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("[B"));
  }

  /** Type names in messages read as Java source writes them: arrays of objects too, any codec. */
  @ParameterizedTest
  @MethodSource("codecs")
  void serialize_tooLargeArrayOfArrays_messageNamesTheTypeAsSourceDoes(CodecKind codec) {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec)
        .maxPayloadBytes(4096).build();
    String[][] value = {{"x".repeat(8192)}};

    assertThatThrownBy(() -> serializer.serialize(value))
        .isInstanceOf(ValueTooLargeException.class)
        .hasMessageContaining("value of java.lang.String[][] encodes")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("[[L"));
  }

  static Stream<Arguments> codecs() {
    return Stream.of(Arguments.of(CodecKind.KRYO), Arguments.of(CodecKind.JDK));
  }

  /** With lazysession.max-value-bytes at 32 MiB the same 20 MB value round-trips. */
  @ParameterizedTest
  @MethodSource("compressions")
  void serialize_20MegabyteValueUnderRaisedMaximum_roundTripsAndReadsUnchanged(Compression compression) {
    AttributeSerializer serializer = AttributeSerializer.builder().compression(compression)
        .maxPayloadBytes(32 * MIB).build();
    byte[] value = text(20 * MIB);

    byte[] envelope = serializer.serialize(value);
    LazyValue read = serializer.lazy(envelope);

    assertThat(serializer.header(envelope).compression()).isEqualTo(compression.enabled()
        ? EnvelopeCompression.ZSTD : EnvelopeCompression.NONE);
    assertThat((byte[]) serializer.deserialize(envelope)).isEqualTo(value);
    assertThat((byte[]) read.get()).isEqualTo(value);
    assertThat(read.currentBytes()).isSameAs(envelope); // read, not changed: nothing to write
  }

  /**
   * 20 MB that zstd would shrink past the decompression ratio cap is stored raw, so that readers, which
   * refuse such frames as bombs, still read it.
   */
  @ParameterizedTest
  @MethodSource("compressions")
  void serialize_20MegabytesOfZeros_storedRawAndReadBack(Compression compression) {
    AttributeSerializer serializer = AttributeSerializer.builder().compression(compression)
        .maxPayloadBytes(32 * MIB).build();
    byte[] zeros = new byte[20 * MIB];

    byte[] envelope = serializer.serialize(zeros);

    assertThat(serializer.header(envelope).compression()).isEqualTo(EnvelopeCompression.NONE);
    assertThat((byte[]) serializer.deserialize(envelope)).isEqualTo(zeros);
  }

  private static byte[] text(int length) {
    SplittableRandom random = new SplittableRandom(42);
    StringBuilder sb = new StringBuilder(length + 16);
    while (sb.length() < length) {
      sb.append("item").append(random.nextInt(100_000)).append(' ');
    }
    return sb.substring(0, length).getBytes(StandardCharsets.US_ASCII);
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
      "[B, byte[]", "[[I, int[][]", "[Ljava.lang.String;, java.lang.String[]",
      "[[Lcom.acme.Money;, com.acme.Money[][]", "java.util.ArrayList, java.util.ArrayList",
      "[Q, [Q"})
  void ofBinaryName_binaryName_readsAsJavaSource(String binary, String source) {
    assertThat(TypeNames.ofBinaryName(binary)).isEqualTo(source);
  }
}
