package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StoredSessionTest {
  static List<byte[]> fields(String... namesAndValues) {
    List<byte[]> fields = new ArrayList<>();
    for (String text : namesAndValues) {
      fields.add(text.getBytes(UTF_8));
    }
    return fields;
  }

  @Test
  void parse_completeHash_readsMetadataAndAttributes() {
    StoredSession stored = StoredSession.parse(fields("#c", "1000", "#a", "2000", "#m", "1800",
        "#v", "7", "#p", "ada", "cart", "xyz", "##v", "escaped"));

    assertThat(stored.creation()).isEqualTo(1000);
    assertThat(stored.lastAccess()).isEqualTo(2000);
    assertThat(stored.maxInactiveSeconds()).isEqualTo(1800);
    assertThat(stored.version()).isEqualTo(7);
    assertThat(stored.principal()).isEqualTo("ada");
    assertThat(stored.attributes()).containsOnlyKeys("cart", "#v");
    assertThat(stored.unchanged()).isFalse();
  }

  @Test
  void parse_missingVersion_isTreatedAsMissing() {
    assertThat(StoredSession.parse(fields("#c", "1000", "#a", "2000", "#m", "1800", "cart", "x")))
        .isNull();
  }

  @Test
  void parse_nonNumericMetadata_isTreatedAsMissing() {
    assertThat(StoredSession.parse(fields("#c", "x", "#a", "2000", "#m", "1800", "#v", "1")))
        .isNull();
  }

  @Test
  void parse_unknownMetadataField_isIgnored() {
    assertThat(StoredSession.parse(fields("#c", "1", "#a", "2", "#m", "3", "#v", "4", "#z", "?")))
        .isNotNull();
  }

  @Test
  void parse_unchangedAnswerForCachedVersion_takesCreationAndAttributesFromTheCache() {
    NearCache.Snapshot cached = new NearCache.Snapshot(4, 1000, Map.of("cart", new byte[] {7}));

    StoredSession stored = StoredSession.parse(
        fields("#=", "1", "#a", "2000", "#m", "1800", "#v", "4", "#p", "ada"), cached);

    assertThat(stored.unchanged()).isTrue();
    assertThat(stored.creation()).isEqualTo(1000);
    assertThat(stored.lastAccess()).isEqualTo(2000);
    assertThat(stored.principal()).isEqualTo("ada");
    assertThat(stored.attributes()).containsOnlyKeys("cart");
  }

  @Test
  void parse_unchangedAnswerForAnotherVersion_isTreatedAsMissing() {
    NearCache.Snapshot cached = new NearCache.Snapshot(3, 1000, Map.of());

    assertThat(StoredSession.parse(fields("#=", "1", "#a", "2", "#m", "3", "#v", "4"), cached))
        .isNull();
    assertThat(StoredSession.parse(fields("#=", "1", "#a", "2", "#m", "3", "#v", "4"))).isNull();
  }
}
