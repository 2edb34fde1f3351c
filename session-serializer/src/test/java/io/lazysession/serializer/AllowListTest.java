package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.fixtures.Node;
import io.lazysession.serializer.forbidden.Gadget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bytes naming a class outside the allow-list are refused with the class named, and the class's
 * constructor, readObject, hashCode or compare never run. The bytes are written by a permissive
 * serializer made for the test, as an attacker with write access to Redis could. (A
 * {@code java.net.URL} as a HashMap key, the URLDNS gadget, decodes without any lookup instead:
 * {@code JavaNetSerializersTest}.)
 */
class AllowListTest {
  private static final String GADGET = Gadget.class.getName();
  private static final ClassAllowList PERMISSIVE = ClassAllowList.builder()
      .allowPackage("io.lazysession.serializer").allowPackage("java.net").build();
  private static final ClassAllowList FIXTURES_ONLY = ClassAllowList.builder()
      .allowPackage("io.lazysession.serializer.fixtures").build();

  static Stream<Arguments> hostileValues() {
    return Stream.of(CodecKind.values()).flatMap(codec -> Stream.<Arguments>of(
        Arguments.of(codec, "gadget at the top", GADGET, (Supplier<Object>) Gadget::new),
        Arguments.of(codec, "gadget in a list", GADGET,
            (Supplier<Object>) () -> new ArrayList<>(List.of("ok", new Gadget()))),
        Arguments.of(codec, "gadget as a map key", GADGET,
            (Supplier<Object>) () -> new HashMap<>(Map.of(new Gadget(), "v"))),
        Arguments.of(codec, "gadget in a field of an allowed class", GADGET,
            (Supplier<Object>) () -> {
              Node node = new Node("n");
              node.children = new ArrayList<>();
              node.name = "holder";
              List<Object> list = new ArrayList<>();
              list.add(node);
              list.add(new Gadget[] {new Gadget()});
              return list;
            }),
        Arguments.of(codec, "gadget comparator in a PriorityQueue", GADGET,
            (Supplier<Object>) () -> {
              PriorityQueue<Object> queue = new PriorityQueue<>(new Gadget());
              queue.add("a");
              queue.add("b");
              return queue;
            })));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("hostileValues")
  void deserialize_disallowedClass_refusedByNameAndNeverConstructed(CodecKind codec, String description,
      String refusedClass, Supplier<Object> hostile) {
    for (Compression compression : List.of(Compression.none(), Compression.zstd(3, 0))) {
      byte[] envelope = AttributeSerializer.builder().codec(codec).compression(compression)
          .allowList(PERMISSIVE).build().serialize(hostile.get());
      AttributeSerializer defaults = AttributeSerializer.builder().allowList(FIXTURES_ONLY).build();
      Gadget.reset();

      assertThatThrownBy(() -> defaults.deserialize(envelope))
          .isInstanceOf(ClassNotAllowedException.class)
          .hasMessageContaining(refusedClass)
          .satisfies(e -> assertThat(((ClassNotAllowedException) e).className()).isEqualTo(refusedClass));
      assertThat(Gadget.CALLS.get()).as("gadget calls while decoding").isZero();
    }
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void serialize_disallowedClass_refusedBeforeWriting(CodecKind codec) {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec).build();

    assertThatThrownBy(() -> serializer.serialize(new ArrayList<>(List.of(new Gadget()))))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining(GADGET);
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void serialize_disallowedClassAfterAllowedOnes_refusedEveryTime(CodecKind codec) {
    AttributeSerializer serializer =
        AttributeSerializer.builder().codec(codec).allowList(FIXTURES_ONLY).build();
    Node allowed = new Node("n");

    for (int i = 0; i < 3; i++) {
      assertThat(serializer.deserialize(serializer.serialize(allowed))).isInstanceOf(Node.class);
      assertThatThrownBy(() -> serializer.serialize(new ArrayList<>(List.of(new Gadget()))))
          .isInstanceOf(ClassNotAllowedException.class)
          .hasMessageContaining(GADGET);
    }
  }

  static Stream<CodecKind> codecs() {
    return Stream.of(CodecKind.values());
  }
}
