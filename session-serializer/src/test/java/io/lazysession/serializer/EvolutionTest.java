package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.fixtures.evolution.NewAccount;
import io.lazysession.serializer.fixtures.evolution.NewPerson;
import io.lazysession.serializer.fixtures.evolution.OldAccount;
import io.lazysession.serializer.fixtures.evolution.OldPerson;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A field added to or removed from an attribute class between two deploys leaves stored bytes
 * readable, both ways: bytes stored by the old deploy are read by the new one, and (rolling deploy)
 * bytes written by the new deploy are read by a node still on the old one. The old deploy's bytes are
 * committed under src/test/resources/evolution; the class names are swapped in the (uncompressed)
 * bytes to play the other deploy, as both names have the same length (without their last letter,
 * which Kryo marks with a high bit).
 */
class EvolutionTest {
  private static final ClassAllowList ALLOW = ClassAllowList.builder()
      .allowPackage("io.lazysession.serializer.fixtures").build();

  static Stream<CodecKind> codecs() {
    return Stream.of(CodecKind.values());
  }

  private static AttributeSerializer serializer(CodecKind codec) {
    return AttributeSerializer.builder().codec(codec).compression(Compression.none()).allowList(ALLOW)
        .build();
  }

  private static String resource(CodecKind codec, String name) {
    return "evolution/" + name + "-" + codec.name().toLowerCase(Locale.ROOT) + ".hex";
  }

  /** A list holding the object twice, to check references survive skipped fields. */
  private static List<Object> oldGraph() {
    OldAccount account = new OldAccount("acc-1", new BigDecimal("12.50"), "LEGACY-7");
    return new ArrayList<>(List.of(account, new OldPerson("Ada", 36), account));
  }

  private static List<Object> newGraph() {
    NewAccount account = new NewAccount("acc-2", new BigDecimal("99.95"), "savings");
    return new ArrayList<>(List.of(account, new NewPerson("Grace", "grace@example.com"), account));
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void deserialize_oldBytesAfterFieldsAddedAndRemoved_readsKeptFieldsAndDefaults(CodecKind codec) {
    AttributeSerializer serializer = serializer(codec);
    byte[] stored = GoldenFiles.readOrWrite(resource(codec, "old-deploy"), serializer.serialize(oldGraph()));
    byte[] asNewDeploySeesThem = GoldenFiles.replace(GoldenFiles.replace(stored, "OldAccoun",
        "NewAccoun"), "OldPerso", "NewPerso");

    List<?> decoded = (List<?>) serializer.deserialize(asNewDeploySeesThem);

    NewAccount account = (NewAccount) decoded.get(0);
    assertThat(account.id).isEqualTo("acc-1");
    assertThat(account.balance).isEqualByComparingTo("12.50");
    assertThat(account.nickname).isNull();
    assertThat(decoded.get(1)).isEqualTo(new NewPerson("Ada", null));
    assertThat(decoded.get(2)).isSameAs(account);
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void deserialize_newBytesOnOldDeploy_readsKeptFieldsAndDefaults(CodecKind codec) {
    AttributeSerializer serializer = serializer(codec);
    byte[] written = serializer.serialize(newGraph());
    byte[] asOldDeploySeesThem = GoldenFiles.replace(GoldenFiles.replace(written, "NewAccoun",
        "OldAccoun"), "NewPerso", "OldPerso");

    List<?> decoded = (List<?>) serializer.deserialize(asOldDeploySeesThem);

    OldAccount account = (OldAccount) decoded.get(0);
    assertThat(account.id).isEqualTo("acc-2");
    assertThat(account.balance).isEqualByComparingTo("99.95");
    assertThat(account.legacyCode).isNull();
    assertThat(decoded.get(1)).isEqualTo(new OldPerson("Grace", 0));
    assertThat(decoded.get(2)).isSameAs(account);
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void serialize_oldGraph_stillWritesCommittedBytes(CodecKind codec) {
    AttributeSerializer serializer = serializer(codec);

    assertThat(serializer.serialize(oldGraph()))
        .isEqualTo(GoldenFiles.read(resource(codec, "old-deploy")));
  }
}
