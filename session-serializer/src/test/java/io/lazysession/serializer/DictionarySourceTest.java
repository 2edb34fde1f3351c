package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdDictionary;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** A dictionary source: dictionaries a serializer reads that were added after it was built. */
class DictionarySourceTest {
  private static final ZstdDictionary DICTIONARY = dictionary();
  private static final AttributeSerializer WRITER = AttributeSerializer.builder()
      .compression(Compression.zstd(3, 32, DICTIONARY)).packMaxBytes(64).build();

  @Test
  void source_askedForAnIdTheSerializerLacks_readsEnvelopesAndPacks() {
    Map<Integer, ZstdDictionary> added = new ConcurrentHashMap<>();
    AttributeSerializer reader = AttributeSerializer.builder().packMaxBytes(64)
        .dictionarySource(added::get).build();
    String value = "text of the session ".repeat(20);
    byte[] envelope = WRITER.serialize(value);
    Map<String, byte[]> entries = new LinkedHashMap<>();
    for (int i = 0; i < 8; i++) {
      entries.put("a" + i, WRITER.serialize("{\"cart\":\"" + i + " books\",\"user\":\"user-" + i
          + "\"}"));
    }
    byte[] pack = WRITER.pack(entries);
    assertThat(pack[1]).as("compressed with the dictionary").isEqualTo((byte) 2);

    assertThatThrownBy(() -> reader.deserialize(envelope))
        .isInstanceOf(UnknownDictionaryException.class);
    assertThatThrownBy(() -> reader.unpack(pack)).isInstanceOf(UnknownDictionaryException.class);

    added.put(DICTIONARY.id(), DICTIONARY);

    assertThat(reader.deserialize(envelope)).isEqualTo(value);
    assertThat(reader.unpack(pack)).containsOnlyKeys(entries.keySet());
    assertThat(reader.toBuilder().build().deserialize(envelope)).as("kept by a copy")
        .isEqualTo(value);
  }

  @Test
  void source_answeringAnotherId_isNotUsed() {
    AttributeSerializer reader = AttributeSerializer.builder()
        .dictionarySource(id -> ZstdDictionary.of(otherDictionary().bytes())).build();

    assertThatThrownBy(() -> reader.deserialize(WRITER.serialize("text ".repeat(60))))
        .isInstanceOf(UnknownDictionaryException.class);
  }

  private static ZstdDictionary dictionary() {
    return train("cart");
  }

  private static ZstdDictionary otherDictionary() {
    return train("ledger");
  }

  private static ZstdDictionary train(String word) {
    List<byte[]> samples = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      samples.add(("{\"" + word + "\":\"" + i + " books\",\"user\":\"user-" + (i * 7919 % 1000)
          + "\",\"text\":\"" + "text of the session ".repeat(i % 30) + "\"}")
          .getBytes(StandardCharsets.UTF_8));
    }
    return ZstdDictionary.train(samples, 1024);
  }
}
