package io.lazysession.serializer.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.CorruptDataException;
import io.lazysession.serializer.IncompatibleDataException;
import io.lazysession.serializer.codec.CodecKind;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EnvelopeHeaderTest {
  private static byte[] hex(String hex) {
    return HexFormat.of().parseHex(hex);
  }

  private static byte[] written(EnvelopeHeader header) {
    byte[] bytes = new byte[header.length()];
    header.writeTo(bytes);
    return bytes;
  }

  @Test
  void raw_writesThreeBytes() {
    assertThat(written(EnvelopeHeader.raw(CodecKind.KRYO, 10))).isEqualTo(hex("a10200"));
    assertThat(written(EnvelopeHeader.raw(CodecKind.JDK, 10))).isEqualTo(hex("a10100"));
  }

  @Test
  void zstd_writesDecodedLengthVarint() {
    assertThat(written(EnvelopeHeader.zstd(CodecKind.KRYO, 0, 300))).isEqualTo(hex("a10201ac02"));
    assertThat(written(EnvelopeHeader.zstd(CodecKind.KRYO, 0, 127))).isEqualTo(hex("a102017f"));
  }

  @Test
  void zstdDictionary_writesUnsignedIdThenLength() {
    EnvelopeHeader header = EnvelopeHeader.zstd(CodecKind.JDK, 0x8000_0001, 1);

    assertThat(written(header)).isEqualTo(hex("a1010281808080080" + "1"));
    assertThat(EnvelopeHeader.read(hex("a1010281808080080100"), 100)).isEqualTo(header);
  }

  @Test
  void read_rawEnvelope_decodedLengthIsPayloadLength() {
    EnvelopeHeader header = EnvelopeHeader.read(hex("a10200010203"), 100);

    assertThat(header).isEqualTo(new EnvelopeHeader(CodecKind.KRYO, EnvelopeCompression.NONE, 0, 3, 3));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "a1", "a102", "a00200", "aa0200", "aced00", "b10200", "a10201",
      "a10201ffffffffff01", "a10202", "a1020200", "a102018080808010"})
  void read_malformed_throwsCorruptData(String hex) {
    assertThatThrownBy(() -> EnvelopeHeader.read(hex(hex), 1 << 20))
        .isInstanceOf(CorruptDataException.class);
  }

  /** What a later version may write: kept for it, never deleted as corrupt (redis-layout.md). */
  @ParameterizedTest
  @ValueSource(strings = {"a20200", "a90200", "a10300", "a1ff00", "a10203", "a102ff"})
  void read_laterVersionCodecOrCompression_throwsIncompatibleData(String hex) {
    assertThatThrownBy(() -> EnvelopeHeader.read(hex(hex), 1 << 20))
        .isInstanceOf(IncompatibleDataException.class)
        .hasMessageContaining("newer lazysession");
  }

  @Test
  void read_declaredLengthAboveAnyArray_corruptBeforeAllocating() {
    assertThatThrownBy(() -> EnvelopeHeader.read(hex("a10201ffffffff0f00"), 1 << 24))
        .isInstanceOf(CorruptDataException.class)
        .hasMessageContaining("more than any writer can produce");
  }

  /** A node configured with a larger maximum wrote it: not broken, refused here before allocating. */
  @Test
  void read_declaredLengthAboveConfiguredMaximum_incompatibleNamingTheSetting() {
    assertThatThrownBy(() -> EnvelopeHeader.read(hex("a1020180808010" + "00"), 1 << 24))
        .isInstanceOf(IncompatibleDataException.class)
        .hasMessageContaining("33554432 bytes, more than the maximum of 16777216")
        .hasMessageContaining("lazysession.max-value-bytes");
    assertThatThrownBy(() -> EnvelopeHeader.read(new byte[3 + 2048], 1024))
        .isInstanceOf(CorruptDataException.class);
    byte[] raw = new byte[3 + 2048];
    raw[0] = (byte) 0xA1;
    raw[1] = 2;
    assertThatThrownBy(() -> EnvelopeHeader.read(raw, 1024))
        .isInstanceOf(IncompatibleDataException.class)
        .hasMessageContaining("2048 bytes, more than the maximum of 1024");
  }
}
