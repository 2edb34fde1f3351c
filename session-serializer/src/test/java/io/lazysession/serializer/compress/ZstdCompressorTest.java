package io.lazysession.serializer.compress;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ZstdCompressorTest {

  /** Sizes below, at and above the retained scratch buffer, so both ways of compressing are run. */
  @ParameterizedTest
  @ValueSource(ints = {0, 1, 300, 100_000, ZstdCompressor.RETAINED_BUFFER_BYTES - 1000,
      ZstdCompressor.RETAINED_BUFFER_BYTES + 1, 3 * 1024 * 1024})
  void compress_withHeadroom_writesTheOneShotFrameAfterZeroedHeadroom(int length) {
    byte[] source = text(length);
    byte[] expected = oneShot(source, 3);

    byte[] framed = ZstdCompressor.compress(source, 0, source.length, 3, null, 5, Integer.MAX_VALUE);

    assertThat(framed).hasSize(5 + expected.length);
    assertThat(Arrays.copyOfRange(framed, 0, 5)).containsOnly(0);
    assertThat(Arrays.copyOfRange(framed, 5, framed.length)).isEqualTo(expected);
    assertThat(ZstdCompressor.compress(source, 0, source.length, 3, null)).isEqualTo(expected);
    assertThat(ZstdCompressor.decompress(framed, 5, expected.length, length, null)).isEqualTo(source);
  }

  @ParameterizedTest
  @ValueSource(ints = {1000, ZstdCompressor.RETAINED_BUFFER_BYTES + 1})
  void compress_frameLongerThanAccepted_returnsNull(int length) {
    byte[] random = new byte[length];
    new SplittableRandom(7).nextBytes(random);

    assertThat(ZstdCompressor.compress(random, 0, length, 3, null, 4, length)).isNull();
    assertThat(ZstdCompressor.compress(random, 0, length, 3, null, 4, length + 100)).isNotNull();
  }

  @ParameterizedTest
  @ValueSource(ints = {1000, ZstdCompressor.RETAINED_BUFFER_BYTES + 1})
  void decompress_readerDecompressesAgain_eachGetsItsOwnPayload(int innerLength) {
    byte[] outer = text(2000);
    byte[] inner = text(innerLength);
    byte[] outerFrame = ZstdCompressor.compress(outer, 0, outer.length, 3, null);
    byte[] innerFrame = ZstdCompressor.compress(inner, 0, inner.length, 3, null);

    byte[][] seen = ZstdCompressor.decompress(outerFrame, 0, outerFrame.length, outer.length, null,
        (bytes, offset, length) -> {
          byte[] nested = ZstdCompressor.decompress(innerFrame, 0, innerFrame.length, inner.length,
              null, (b, o, l) -> Arrays.copyOfRange(b, o, o + l));
          // compressing while the payload is lent must not write over it either
          ZstdCompressor.compress(inner, 0, inner.length, 3, null, 3, Integer.MAX_VALUE);
          return new byte[][] {Arrays.copyOfRange(bytes, offset, offset + length), nested};
        });

    assertThat(seen[0]).isEqualTo(outer);
    assertThat(seen[1]).isEqualTo(inner);
  }

  @Test
  void decompress_withReader_sameBytesAsOwnedArray() {
    byte[] source = text(50_000);
    byte[] frame = ZstdCompressor.compress(source, 0, source.length, 3, null);

    byte[] viaReader = ZstdCompressor.decompress(frame, 0, frame.length, source.length, null,
        (b, o, l) -> Arrays.copyOfRange(b, o, o + l));

    assertThat(viaReader).isEqualTo(source)
        .isEqualTo(ZstdCompressor.decompress(frame, 0, frame.length, source.length, null));
  }

  /** The frame as zstd writes it in one call into a buffer of its bound, with the envelope's settings. */
  private static byte[] oneShot(byte[] source, int level) {
    try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
      ctx.setMagicless(true).setContentSize(false).setDictID(false).setChecksum(false).setLevel(level);
      byte[] target = new byte[(int) Zstd.compressBound(source.length)];
      int size = ctx.compressByteArray(target, 0, target.length, source, 0, source.length);
      return Arrays.copyOf(target, size);
    }
  }

  private static byte[] text(int length) {
    SplittableRandom random = new SplittableRandom(length);
    StringBuilder sb = new StringBuilder(length + 16);
    while (sb.length() < length) {
      sb.append("word").append(random.nextInt(500)).append(' ');
    }
    return sb.substring(0, length).getBytes(StandardCharsets.US_ASCII);
  }
}
