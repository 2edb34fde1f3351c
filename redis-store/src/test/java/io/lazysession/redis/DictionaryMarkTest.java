package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdDictionary;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rule that keeps a value naming a shared dictionary out of a hash not marked {@code #f 2}: a
 * save knows which dictionary each value it writes names, its pack included.
 */
class DictionaryMarkTest {
  private static final ZstdDictionary DICTIONARY = dictionary();
  private static final AttributeSerializer PLAIN = AttributeSerializer.builder().build();
  private static final AttributeSerializer WITH_DICTIONARY = AttributeSerializer.builder()
      .compression(Compression.zstd(3, 32, DICTIONARY)).packMaxBytes(64).build();

  @Test
  void namesDictionary_envelopeCompressedWithIt_isTrueForItsIdOnly() {
    byte[] envelope = WITH_DICTIONARY.serialize("text ".repeat(60));
    SaveRequest request = request(Map.of("large", envelope), null);

    assertThat(request.namesDictionary(id -> id == DICTIONARY.id())).isTrue();
    assertThat(request.namesDictionary(id -> id != DICTIONARY.id())).isFalse();
    assertThat(request(Map.of("large", PLAIN.serialize("text ".repeat(60))), null)
        .namesDictionary(id -> true)).isFalse();
  }

  @Test
  void namesDictionary_packCompressedWithIt_isTrue_andAPlainPackIsNot() {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    for (int i = 0; i < 8; i++) {
      entries.put("attribute" + i, PLAIN.serialize("{\"cart\":\"" + i + " books\",\"user\":\"user-"
          + i + "\",\"text\":\"" + "text ".repeat(3) + "\"}"));
    }
    byte[] pack = WITH_DICTIONARY.pack(entries);

    assertThat(StoredPack.dictionaryOf(pack)).isEqualTo(DICTIONARY.id());
    assertThat(StoredPack.dictionaryOf(PLAIN.pack(entries))).isZero();
    assertThat(StoredPack.dictionaryOf(null)).isZero();
    assertThat(request(Map.of(), packWrite(pack, DICTIONARY.id()))
        .namesDictionary(id -> id == DICTIONARY.id())).isTrue();
    assertThat(request(Map.of(), packWrite(PLAIN.pack(entries), 0))
        .namesDictionary(id -> true)).isFalse();
  }

  @Test
  void varint_readsUnsignedLeb128_andZeroWhenTruncated() {
    assertThat(SaveRequest.varint(new byte[] {(byte) 0xEE, (byte) 0xD8, (byte) 0x9F, (byte) 0xBA,
        0x06}, 0)).isEqualTo(0x6747EC6E);
    assertThat(SaveRequest.varint(new byte[] {(byte) 0x80}, 0)).isZero();
  }

  private static AttributePacking.PackWrite packWrite(byte[] bytes, int dictionary) {
    return new AttributePacking.PackWrite(null, Map.of(), Set.of(), bytes, Map.of(),
        StoredPack.NONE, dictionary);
  }

  private static SaveRequest request(Map<String, byte[]> writes,
      AttributePacking.PackWrite pack) {
    return new SaveRequest(SaveRequest.SaveMode.UPDATE, 0, 0, 0, null, 0,
        PrincipalChange.UNCHANGED, writes, List.of(), pack, 0, 1);
  }

  private static ZstdDictionary dictionary() {
    List<byte[]> samples = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      samples.add(("{\"cart\":\"" + i + " books\",\"user\":\"user-" + (i * 7919 % 1000)
          + "\",\"text\":\"" + "text ".repeat(i % 40) + "\"}").getBytes(StandardCharsets.UTF_8));
    }
    return ZstdDictionary.train(samples, 1024);
  }
}
