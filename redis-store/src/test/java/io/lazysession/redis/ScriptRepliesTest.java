package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class ScriptRepliesTest {
  /** Each string in UTF-8, but {@code <cN>}: the field name of the pack's chunk N (one byte). */
  static List<byte @Nullable []> fields(String... namesAndValues) {
    List<byte @Nullable []> fields = new ArrayList<>();
    for (String text : namesAndValues) {
      fields.add(text.matches("<c\\d+>")
          ? StoredPack.chunkField(Integer.parseInt(text.substring(2, text.length() - 1)))
          : text.getBytes(UTF_8));
    }
    return fields;
  }

  @Test
  void find_completeHash_readsMetadataAndAttributes() {
    StoredSession stored = ScriptReplies.find(fields("#", "1000:2000:1800:7", "#p", "ada", "cart", "xyz", "##v", "escaped"), null);

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
    assertThat(ScriptReplies.find(fields("#", "1000:2000:1800", "cart", "x"), null))
        .isNull();
  }

  @Test
  void find_nonNumericMetadata_isTreatedAsMissing() {
    assertThat(ScriptReplies.find(fields("#", "x:2000:1800:1"), null))
        .isNull();
  }

  @Test
  void storedMetadata_metadataFieldAndPrincipal_areRead() {
    SessionMetadata metadata = ScriptReplies.storedMetadata(java.util.Arrays.asList(
        "1:2:3:4".getBytes(java.nio.charset.StandardCharsets.UTF_8),
        "ada".getBytes(java.nio.charset.StandardCharsets.UTF_8)));

    assertThat(metadata).isEqualTo(new SessionMetadata(1L, 2L, 3L, "ada"));
    assertThat(ScriptReplies.storedMetadata(java.util.Arrays.asList(null, null)))
        .isEqualTo(new SessionMetadata(null, null, null, null));
  }

  @Test
  void find_unknownMetadataField_isIgnored() {
    assertThat(ScriptReplies.find(fields("#", "1:2:3:4", "#z", "?"), null))
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
  void find_negativeTimeoutAndLeadingZeros_readAsLongParseLongReadsThem() {
    StoredSession stored = ScriptReplies.find(
        fields("#", "0010:2000:-1:12345678901234567890"), null);

    assertThat(stored).isNull(); // a version beyond a long is unreadable
    stored = ScriptReplies.find(fields("#", "0010:2000:-1:1234567890123456789"), null);
    assertThat(stored.creation()).isEqualTo(10);
    assertThat(stored.maxInactiveSeconds()).isEqualTo(-1);
    assertThat(stored.version()).isEqualTo(1234567890123456789L);
    assertThat(ScriptReplies.find(fields("#", "-:2:3:4"), null))
        .isNull();
    assertThat(ScriptReplies.find(fields("#", "1::3:4"), null)).isNull();
    assertThat(ScriptReplies.find(fields("#", "1:-2:3:4"), null).lastAccess()).isEqualTo(-2);
    // The scripts read an optional '-' and digits only: a '+' makes the field unreadable there too.
    assertThat(ScriptReplies.find(fields("#", "+1:2:3:4"), null)).isNull();
    assertThat(ScriptReplies.find(fields("#", "+1234567890123456789:2:3:4"), null)).isNull();
  }

  @Test
  void unchanged_copyWithMetadata_isConfirmedWhole() {
    Map<String, byte[]> attributes = Map.of("cart", new byte[] {7});
    NearCache.Snapshot cached = new NearCache.Snapshot(4, 1000, attributes, 0,
        new NearCache.Metadata(2000, 1800, "ada"), StoredPack.NONE);

    StoredSession stored = ScriptReplies.unchanged(cached);

    assertThat(stored).isEqualTo(new StoredSession(1000, 2000, 1800, 4, "ada", true, attributes,
        StoredPack.NONE));
    assertThat(stored.attributes()).isSameAs(attributes);
  }

  @Test
  void find_packField_isKeptApartFromAttributes() {
    StoredSession stored = ScriptReplies.find(fields("#", "1:2:3:4",
        "#s", "P", "cart", "x", "##s", "y"), null);

    assertThat(stored.attributes().keySet()).containsExactly("cart", "#s");
    assertThat(stored.pack().bytes()).containsExactly('P');
    assertThat(stored.pack().entries()).isNull(); // read by AttributePacking, which has a serializer
  }

  @Test
  void find_packInChunks_joinedInOrderWhateverTheFieldOrder() {
    StoredSession stored = ScriptReplies.find(fields("<c2>", "CC", "#", "1:2:3:4", "<c0>", "AA",
        "cart", "x", "<c1>", "BB", "##s3", "y"), null);

    assertThat(new String(stored.pack().bytes(), UTF_8)).isEqualTo("AABBCC");
    assertThat(stored.attributes().keySet()).containsExactly("cart", "#s3");
  }

  @Test
  void find_packInChunksWithAGap_joinsUpToTheFirstMissingOne() {
    StoredSession stored = ScriptReplies.find(fields("#", "1:2:3:4", "<c0>", "AA", "<c1>", "BB",
        "<c3>", "DD"), null);

    assertThat(new String(stored.pack().bytes(), UTF_8)).isEqualTo("AABB");
  }

  @Test
  void find_wholePackBesideChunks_theWholeOneWins() {
    StoredSession stored = ScriptReplies.find(fields("<c0>", "AA", "#", "1:2:3:4", "#s", "WHOLE",
        "<c1>", "BB", "#s0", "OLD"), null);

    assertThat(new String(stored.pack().bytes(), UTF_8)).isEqualTo("WHOLE");
  }

  @Test
  void find_chunkNamesOutOfForm_areNoPack() {
    // earlier builds' chunks: no #s0; a leading zero; past #s11; not digits: as pack.lua, which
    // reads #s0 to #s11 only; and no first one-byte chunk
    StoredSession stored = ScriptReplies.find(fields("#", "1:2:3:4", "#s1", "BB", "#s00", "Z",
        "#s12", "M", "#sx", "X", "<c1>", "Y"), null);

    assertThat(stored.pack().bytes()).isNull();
    assertThat(stored.attributes()).isEmpty();
  }

  @Test
  void find_chunkNamesOfTwoDigits_onlyTenAndElevenAreChunks() {
    List<String> answer = new ArrayList<>(List.of("#", "1:2:3:4", "#s01", "bad", "#s12", "bad"));
    for (int i = 0; i < StoredPack.LEGACY_CHUNKS; i++) {
      answer.add("#s" + i);
      answer.add(i == 10 ? "T" : i == 11 ? "E" : "-");
    }

    StoredSession stored = ScriptReplies.find(fields(answer.toArray(String[]::new)), null);

    assertThat(new String(stored.pack().bytes(), UTF_8)).isEqualTo("----------TE");
  }

  @Test
  void find_emptyValues_areKeptAsLuaKeepsThem() {
    StoredSession emptyWhole = ScriptReplies.find(fields("#", "1:2:3:4", "#s", "", "<c0>", "AA"),
        null);
    StoredSession emptyChunk = ScriptReplies.find(fields("#", "1:2:3:4", "<c0>", "", "<c1>", "BB"),
        null);

    assertThat(emptyWhole.pack().bytes()).isEmpty();
    assertThat(new String(emptyChunk.pack().bytes(), UTF_8)).isEqualTo("BB");
  }

  @Test
  void find_fifteenChunks_allJoined() {
    List<String> answer = new ArrayList<>(List.of("#", "1:2:3:4"));
    StringBuilder expected = new StringBuilder();
    for (int i = StoredPack.CHUNKS - 1; i >= 0; i--) {
      answer.add("<c" + i + ">");
      answer.add(Integer.toString(i, 36));
    }
    for (int i = 0; i < StoredPack.CHUNKS; i++) {
      expected.append(Integer.toString(i, 36));
    }

    StoredSession stored = ScriptReplies.find(fields(answer.toArray(String[]::new)), null);

    assertThat(new String(stored.pack().bytes(), UTF_8)).isEqualTo(expected.toString());
  }

  @Test
  void find_chunksOfAnEarlierBuild_joinedWhenNothingElseHoldsThePack() {
    StoredSession legacy = ScriptReplies.find(fields("#", "1:2:3:4", "#s1", "BB", "#s0", "AA"),
        null);
    StoredSession both = ScriptReplies.find(fields("#", "1:2:3:4", "#s0", "OLD", "<c0>", "NEW"),
        null);

    assertThat(new String(legacy.pack().bytes(), UTF_8)).isEqualTo("AABB");
    assertThat(new String(both.pack().bytes(), UTF_8)).isEqualTo("NEW");
    assertThat(legacy.attributes()).isEmpty();
  }

  @Test
  void find_oneByteNamesOutsideTheChunks_areNotThePack() {
    List<byte @Nullable []> answer = new ArrayList<>(fields("#", "1:2:3:4"));
    answer.add(new byte[] {(byte) (StoredPack.FIRST_CHUNK + StoredPack.CHUNKS)});
    answer.add("X".getBytes(UTF_8));
    answer.add("a".getBytes(UTF_8)); // an attribute named by one (UTF-8) byte
    answer.add("Y".getBytes(UTF_8));

    StoredSession stored = ScriptReplies.find(answer, null);

    assertThat(stored.pack().bytes()).isNull();
    assertThat(stored.attributes()).containsOnlyKeys("a"); // 0x8F: neither the pack nor "\uFFFD"
  }

  @Test
  void deletedHash_oneByteNamePastTheChunks_isNotCarriedAsAnAttribute() {
    List<byte @Nullable []> answer = new ArrayList<>(fields("1", "2", "3"));
    answer.add(null); // no principal
    answer.addAll(fields("#", "1:2:3:4", "<c0>", "AA", "cart", "x"));
    answer.add(new byte[] {(byte) (StoredPack.FIRST_CHUNK + StoredPack.CHUNKS)});
    answer.add("BB".getBytes(UTF_8));

    ScriptReplies.DeletedHash deleted = ScriptReplies.deletedHash(answer);

    assertThat(deleted.attributes()).containsOnlyKeys("cart");
    assertThat(new String(deleted.pack(), UTF_8)).isEqualTo("AA");
  }

  @Test
  void deletedHash_packInChunks_joinedAndKeptApartFromAttributes() {
    List<byte @Nullable []> answer = new ArrayList<>(fields("1", "2", "3"));
    answer.add(null); // no principal
    answer.addAll(fields("#", "1:2:3:4", "<c1>", "BB", "cart", "x", "<c0>", "AA"));

    ScriptReplies.DeletedHash deleted = ScriptReplies.deletedHash(answer);

    assertThat(new String(deleted.pack(), UTF_8)).isEqualTo("AABB");
    assertThat(deleted.attributes()).containsOnlyKeys("cart");
  }

  @Test
  void save_conflict_carriesTheCurrentPack() {
    SaveResult conflict =
        ScriptReplies.save(java.util.List.of(-2L, new byte[] {9}));

    assertThat(conflict.version()).isEqualTo(SaveResult.PACK_CONFLICT);
    assertThat(conflict.currentPack()).containsExactly(9);
    assertThat(ScriptReplies.save(java.util.List.of(-2L)).currentPack()).isNull();
    assertThat(ScriptReplies.save(java.util.List.of(7L)).version()).isEqualTo(7);
  }

  @Test
  void unchanged_copyWithoutMetadataOrNoCopy_isTreatedAsMissing() {
    assertThat(ScriptReplies.unchanged(new NearCache.Snapshot(4, 1000, Map.of(), 0))).isNull();
    assertThat(ScriptReplies.unchanged(null)).isNull();
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

  @Test
  void expire_expiredAskedForAll_carriesAttributesAndThePackJoined() {
    List<byte @Nullable []> answer = new ArrayList<>(fields("expired", "1000", "2000", "60"));
    answer.add(null); // no principal
    answer.addAll(fields("#", "1000:2000:60:3", "<c0>", "AA", "cart", "x", "<c1>", "BB"));

    ScriptReplies.ExpireReply expired = ScriptReplies.expire(answer);

    assertThat(expired.outcome()).isEqualTo(ScriptReplies.ExpireOutcome.EXPIRED);
    assertThat(expired.metadata()).isEqualTo(new SessionMetadata(1000L, 2000L, 60L, null));
    assertThat(expired.deleted().attributes()).containsOnlyKeys("cart");
    assertThat(new String(expired.deleted().pack(), UTF_8)).isEqualTo("AABB");
  }

  @Test
  void expire_expiredWithoutAll_carriesNoAttributes() {
    ScriptReplies.ExpireReply expired =
        ScriptReplies.expire(fields("expired", "1000", "2000", "60", "ada"));

    assertThat(expired.deleted().attributes()).isEmpty();
    assertThat(expired.deleted().pack()).isNull();
  }
}
