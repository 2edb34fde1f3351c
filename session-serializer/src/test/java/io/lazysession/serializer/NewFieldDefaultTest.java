package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.fixtures.evolution.NewBadge;
import io.lazysession.serializer.fixtures.evolution.NewLabel;
import io.lazysession.serializer.fixtures.evolution.OldBadge;
import io.lazysession.serializer.fixtures.evolution.OldLabel;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a field added to a Java class gets when a value stored before the deploy is read
 * (docs/serializer-evolution.md): Java serialization runs no constructor of the class, so a field
 * initializer does not run and the field holds its type's default; Kryo calls a constructor without
 * parameters when the class has one (private too), so its initializers run, and otherwise creates the
 * object without any constructor. The old deploy is played by swapping the class names (same length)
 * in uncompressed bytes, as {@link EvolutionTest} does.
 */
class NewFieldDefaultTest {
  private static AttributeSerializer serializer(CodecKind codec) {
    return AttributeSerializer.builder().codec(codec).compression(Compression.none())
        .allowList(ClassAllowList.builder().allowPackage("io.lazysession.serializer.fixtures").build())
        .build();
  }

  private static Object readAfterDeploy(CodecKind codec, Object old, String from, String to) {
    AttributeSerializer serializer = serializer(codec);
    return serializer.deserialize(GoldenFiles.replace(serializer.serialize(old), from, to));
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_fieldAddedWithInitializer_noConstructorWithoutParameters_readsNull(
      CodecKind codec) {
    NewLabel label = (NewLabel) readAfterDeploy(codec, new OldLabel("sale"), "OldLabe", "NewLabe");

    assertThat(label.text).isEqualTo("sale");
    assertThat(label.color).isNull();
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_fieldAddedWithInitializer_privateConstructorWithoutParameters_kryoRunsIt(
      CodecKind codec) {
    NewBadge badge = (NewBadge) readAfterDeploy(codec, new OldBadge("gold"), "OldBadg", "NewBadg");

    assertThat(badge.text).isEqualTo("gold");
    assertThat(badge.color).isEqualTo(codec == CodecKind.KRYO ? "blue" : null);
  }
}
