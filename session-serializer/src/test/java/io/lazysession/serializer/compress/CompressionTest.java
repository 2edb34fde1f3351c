package io.lazysession.serializer.compress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CompressionTest {

  @Test
  void zstd_defaults_level3Above256() {
    assertThat(Compression.zstd().enabled()).isTrue();
    assertThat(Compression.zstd().level()).isEqualTo(3);
    assertThat(Compression.zstd().minBytes()).isEqualTo(256);
    assertThat(Compression.zstd().dictionary()).isNull();
    assertThat(Compression.none().enabled()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, 23})
  void zstd_levelOutOfRange_throwsNamingLevel(int level) {
    assertThatThrownBy(() -> Compression.zstd(level, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("level must be between 1 and 22, was " + level);
  }

  @Test
  void zstd_negativeMinBytes_throwsNamingMinBytes() {
    assertThatThrownBy(() -> Compression.zstd(3, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("minBytes must be >= 0");
  }

  @Test
  void train_samples_dictionaryRoundTripsThroughBytes() {
    ZstdDictionary dictionary = ZstdDictionary.train(samples(), 2048);

    assertThat(dictionary.id()).isNotZero();
    assertThat(dictionary.size()).isLessThanOrEqualTo(2048);
    ZstdDictionary reloaded = ZstdDictionary.of(dictionary.bytes());
    assertThat(reloaded).isEqualTo(dictionary);
    assertThat(reloaded.id()).isEqualTo(dictionary.id());
    assertThat(Compression.zstd(5, 10, dictionary).dictionary()).isSameAs(dictionary);
  }

  @Test
  void compress_withDictionary_smallerAndReversible() {
    ZstdDictionary dictionary = ZstdDictionary.train(samples(), 2048);
    byte[] value = "{\"user\":\"u-77\",\"cart\":[\"SKU-10037\"],\"theme\":\"dark\"}"
        .getBytes(StandardCharsets.UTF_8);

    byte[] plain = ZstdCompressor.compress(value, 0, value.length, 3, null);
    byte[] withDictionary = ZstdCompressor.compress(value, 0, value.length, 3, dictionary);

    assertThat(withDictionary.length).isLessThan(plain.length);
    assertThat(ZstdCompressor.decompress(withDictionary, 0, withDictionary.length, value.length,
        dictionary)).isEqualTo(value);
  }

  @Test
  void of_notADictionary_throws() {
    assertThatThrownBy(() -> ZstdDictionary.of(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dictionaryBytes");
  }

  @Test
  void train_tooSmallMaxBytes_throwsNamingParameter() {
    assertThatThrownBy(() -> ZstdDictionary.train(samples(), 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxBytes must be >= 256");
  }

  private static List<byte[]> samples() {
    List<byte[]> samples = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      samples.add(("{\"user\":\"u-" + i + "\",\"cart\":[\"SKU-" + (10_000 + i * 37)
          + "\"],\"theme\":\"" + (i % 2 == 0 ? "dark" : "light") + "\",\"n\":" + i * i + "}")
          .getBytes(StandardCharsets.UTF_8));
    }
    return samples;
  }
}
