package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
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
  void parse_unchangedAnswer_isFlagged() {
    assertThat(StoredSession.parse(fields("#=", "1", "#c", "1", "#a", "2", "#m", "3", "#v", "4"))
        .unchanged()).isTrue();
  }
}
