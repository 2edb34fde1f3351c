package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class ScriptRepliesTest {
  static List<byte @Nullable []> fields(String... namesAndValues) {
    List<byte @Nullable []> fields = new ArrayList<>();
    for (String text : namesAndValues) {
      fields.add(text.getBytes(UTF_8));
    }
    return fields;
  }

  @Test
  void find_completeHash_readsMetadataAndAttributes() {
    StoredSession stored = ScriptReplies.find(fields("#c", "1000", "#a", "2000", "#m", "1800",
        "#v", "7", "#p", "ada", "cart", "xyz", "##v", "escaped"), null);

    assertThat(stored.creation()).isEqualTo(1000);
    assertThat(stored.lastAccess()).isEqualTo(2000);
    assertThat(stored.maxInactiveSeconds()).isEqualTo(1800);
    assertThat(stored.version()).isEqualTo(7);
    assertThat(stored.principal()).isEqualTo("ada");
    assertThat(stored.attributes()).containsOnlyKeys("cart", "#v");
    assertThat(stored.unchanged()).isFalse();
  }

  @Test
  void find_missingVersion_isTreatedAsMissing() {
    assertThat(ScriptReplies.find(fields("#c", "1000", "#a", "2000", "#m", "1800", "cart", "x"), null))
        .isNull();
  }

  @Test
  void find_nonNumericMetadata_isTreatedAsMissing() {
    assertThat(ScriptReplies.find(fields("#c", "x", "#a", "2000", "#m", "1800", "#v", "1"), null))
        .isNull();
  }

  @Test
  void find_unknownMetadataField_isIgnored() {
    assertThat(ScriptReplies.find(fields("#c", "1", "#a", "2", "#m", "3", "#v", "4", "#z", "?"), null))
        .isNotNull();
  }

  @Test
  void find_unchangedAnswerForCachedVersion_takesCreationAndAttributesFromTheCache() {
    NearCache.Snapshot cached =
        new NearCache.Snapshot(4, 1000, Map.of("cart", new byte[] {7}), 0);

    StoredSession stored = ScriptReplies.find(
        fields("#=", "1", "#a", "2000", "#m", "1800", "#v", "4", "#p", "ada"), cached);

    assertThat(stored.unchanged()).isTrue();
    assertThat(stored.creation()).isEqualTo(1000);
    assertThat(stored.lastAccess()).isEqualTo(2000);
    assertThat(stored.principal()).isEqualTo("ada");
    assertThat(stored.attributes()).containsOnlyKeys("cart");
  }

  @Test
  void find_unchangedAnswerForAnotherVersion_isTreatedAsMissing() {
    NearCache.Snapshot cached = new NearCache.Snapshot(3, 1000, Map.of(), 0);

    assertThat(ScriptReplies.find(fields("#=", "1", "#a", "2", "#m", "3", "#v", "4"), cached))
        .isNull();
    assertThat(ScriptReplies.find(fields("#=", "1", "#a", "2", "#m", "3", "#v", "4"), null)).isNull();
  }

  @Test
  void metadata_missingAndUnreadableValues_areNull() {
    SessionMetadata metadata = ScriptReplies.metadata(
        java.util.Arrays.asList("5".getBytes(UTF_8), null, "x".getBytes(UTF_8)), 0);

    assertThat(metadata).isEqualTo(new SessionMetadata(5L, null, null, null));
  }

  @Test
  void expire_eachOutcome_isTyped() {
    assertThat(ScriptReplies.expire(fields("never")).outcome())
        .isEqualTo(ScriptReplies.ExpireOutcome.NEVER);
    ScriptReplies.ExpireReply live = ScriptReplies.expire(fields("live", "2000", "60"));
    assertThat(live.outcome()).isEqualTo(ScriptReplies.ExpireOutcome.LIVE);
    assertThat(live.metadata().dueMillis()).isEqualTo(62_000);
    ScriptReplies.ExpireReply expired =
        ScriptReplies.expire(fields("expired", "1000", "2000", "60", "ada"));
    assertThat(expired.metadata()).isEqualTo(new SessionMetadata(1000L, 2000L, 60L, "ada"));
    assertThat(ScriptReplies.expire(List.of()).outcome())
        .isEqualTo(ScriptReplies.ExpireOutcome.GONE);
  }
}
