package io.lazysession.serializer.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.esotericsoftware.kryo.kryo5.io.Output;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.ClassNotAllowedException;
import io.lazysession.serializer.fixtures.evolution.NewPerson;
import io.lazysession.serializer.fixtures.evolution.OldPerson;
import io.lazysession.serializer.reference.Records;
import io.lazysession.serializer.reference.ReferenceSession;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The shortcuts of the Kryo read and write path: class names and schema headers matched as bytes,
 * and the change check compared in the codec's buffer. Each must give what the long way gives.
 */
class KryoReadPathTest {
  private static final ClassAllowList REFERENCE = ClassAllowList.builder()
      .allowPackage(ReferenceSession.PACKAGE).allowPackage("io.lazysession.serializer.fixtures").build();
  private static final int MAX = 1 << 20;

  private static Codec kryo(ClassAllowList allowList, ClassLoader loader) {
    return Codecs.of(CodecKind.KRYO, allowList, loader, MAX);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encodeUnlessEqual_sameBytesNullOtherwiseTheEncoding(CodecKind kind) {
    Codec codec = Codecs.of(kind, REFERENCE, getClass().getClassLoader(), MAX);
    Object cart = ReferenceSession.create().get("cart");
    byte[] encoded = codec.encode(cart);
    byte[] shifted = new byte[encoded.length + 7];
    System.arraycopy(encoded, 0, shifted, 5, encoded.length);
    byte[] lastByteChanged = encoded.clone();
    lastByteChanged[lastByteChanged.length - 1] ^= 1;

    assertThat(codec.encodeUnlessEqual(cart, encoded, 0, encoded.length)).isNull();
    assertThat(codec.encodeUnlessEqual(cart, shifted, 5, encoded.length)).isNull();
    assertThat(codec.encodeUnlessEqual(cart, lastByteChanged, 0, encoded.length)).isEqualTo(encoded);
    assertThat(codec.encodeUnlessEqual(cart, encoded, 0, encoded.length - 1)).isEqualTo(encoded);
    assertThat(codec.encodeUnlessEqual(cart, shifted, 5, encoded.length + 1)).isEqualTo(encoded);
    assertThat(codec.encode(cart)).isEqualTo(encoded); // the pooled buffer is fine afterwards
  }

  @Test
  void decode_nameResolvedUnderAnotherAllowList_stillRefused() {
    ClassLoader loader = getClass().getClassLoader();
    Codec allowing = kryo(REFERENCE, loader);
    Codec refusing = kryo(ClassAllowList.jdkOnly(), loader);
    byte[] bytes = allowing.encode(ReferenceSession.create().get("cart"));
    allowing.decode(bytes, 0, bytes.length);
    allowing.decode(bytes, 0, bytes.length);

    assertThatThrownBy(() -> refusing.decode(bytes, 0, bytes.length))
        .isInstanceOf(ClassNotAllowedException.class);
    assertThat(allowing.decode(bytes, 0, bytes.length)).isEqualTo(ReferenceSession.create().get("cart"));
  }

  @Test
  void decode_sameNameInTwoClassLoaders_eachCodecGetsItsLoadersClass() throws Exception {
    URL testClasses = Records.class.getProtectionDomain().getCodeSource().getLocation();
    byte[] bytes = kryo(REFERENCE, getClass().getClassLoader())
        .encode(new Records.Address("1 Main St", "Paris", "75001", "FR"));
    try (URLClassLoader first = new URLClassLoader(new URL[] {testClasses},
            ClassLoader.getPlatformClassLoader());
        URLClassLoader second = new URLClassLoader(new URL[] {testClasses},
            ClassLoader.getPlatformClassLoader())) {
      Codec onFirst = kryo(REFERENCE, first);
      Codec onSecond = kryo(REFERENCE, second);
      for (int i = 0; i < 3; i++) { // the second and later reads go through the cached names
        Object fromFirst = onFirst.decode(bytes, 0, bytes.length);
        Object fromSecond = onSecond.decode(bytes, 0, bytes.length);

        assertThat(fromFirst.getClass().getClassLoader()).isSameAs(first);
        assertThat(fromSecond.getClass().getClassLoader()).isSameAs(second);
        assertThat(fromFirst.toString()).isEqualTo(fromSecond.toString())
            .isEqualTo("Address[street=1 Main St, city=Paris, postalCode=75001, country=FR]");
      }
    }
  }

  /**
   * One Kryo reads a record in this version's own layout (header matched as bytes) and in another
   * version's (names decoded and matched), alternately: each time the right components.
   */
  @Test
  void decode_ownAndOtherVersionAlternately_eachReadByName() {
    Codec codec = kryo(REFERENCE, getClass().getClassLoader());
    byte[] own = codec.encode(new ArrayList<>(List.of(new NewPerson("Grace", "g@example.com"))));
    byte[] other = replace(codec.encode(new ArrayList<>(List.of(new OldPerson("Ada", 36)))),
        "OldPerso", "NewPerso");

    for (int i = 0; i < 3; i++) {
      assertThat(codec.decode(own, 0, own.length))
          .isEqualTo(List.of(new NewPerson("Grace", "g@example.com")));
      assertThat(codec.decode(other, 0, other.length)).isEqualTo(List.of(new NewPerson("Ada", null)));
    }
  }

  @Test
  void schemaHeader_isWhatWritingTheNamesOneByOneWrites() {
    String[] names = {"a", "couponCode", "", "é-non-ascii", "x".repeat(100)};
    Output output = new Output(64, -1);
    output.writeVarInt(names.length, true);
    for (String name : names) {
      output.writeString(name);
    }

    assertThat(SchemaHeader.of(names)).isEqualTo(output.toBytes());
    assertThat(SchemaHeader.of(new String[] {"x", "y", "x"})).isNull();
  }

  @Test
  void knownClassNames_findsOnlyExactBytesAndStopsGrowingAtItsBound() {
    KnownClassNames known = new KnownClassNames();
    List<byte[]> names = new ArrayList<>();
    for (int i = 0; i < KnownClassNames.MAX_NAMES + 10; i++) {
      byte[] name = ("com.example.Type" + i).getBytes(StandardCharsets.US_ASCII);
      name[name.length - 1] |= (byte) 0x80;
      names.add(name);
      known.add(name, 0, name.length, i % 2 == 0 ? String.class : Integer.class);
    }

    for (int i = 0; i < names.size(); i++) {
      byte[] name = names.get(i);
      assertThat(KnownClassNames.asciiLength(name, 0, name.length)).isEqualTo(name.length);
      assertThat(known.find(name, 0, name.length))
          .isEqualTo(i >= KnownClassNames.MAX_NAMES ? null : i % 2 == 0 ? String.class : Integer.class);
    }
    byte[] prefix = Arrays.copyOf(names.get(12), names.get(12).length - 1);
    assertThat(known.find(prefix, 0, prefix.length)).isNull();
    assertThat(KnownClassNames.asciiLength(prefix, 0, prefix.length)).isEqualTo(-1); // no end mark
    assertThat(KnownClassNames.asciiLength(new byte[] {(byte) 0x82, 'A'}, 0, 2)).isEqualTo(-1);
  }

  private static byte[] replace(byte[] bytes, String from, String to) {
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    assertThat(text).contains(from);
    return text.replace(from, to).getBytes(StandardCharsets.ISO_8859_1);
  }
}
