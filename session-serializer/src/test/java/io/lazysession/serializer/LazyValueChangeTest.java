package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.esotericsoftware.kryo.kryo5.DefaultSerializer;
import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.reference.Cart;
import io.lazysession.serializer.reference.ReferenceSession;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectOutputStream;
import java.io.Serial;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/** When a value that was read counts as changed, and what bytes are stored for it. */
class LazyValueChangeTest {
  private static final ClassAllowList ALLOW =
      ClassAllowList.builder().allowPackage("io.lazysession.serializer").build();

  /**
   * A key whose hash, like an enum's identity hash, differs from one JVM to the next: {@link #jvm}
   * stands for the JVM, so changing it between writing and reading simulates another node.
   */
  static final class Role implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    static volatile int jvm;
    final int id;

    Role(int id) {
      this.id = id;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Role other && other.id == id;
    }

    @Override
    public int hashCode() {
      return jvm == 0 ? id : 63 - id;
    }
  }

  /** A class both codecs write and read, until {@link #refuseWrites} makes both refuse to write it. */
  @DefaultSerializer(RefusingSerializer.class)
  static final class Refusing implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    static volatile boolean refuseWrites;
    int n = 7;

    @Serial
    private void writeObject(ObjectOutputStream out) throws IOException {
      if (refuseWrites) {
        throw new NotSerializableException("refused on this node");
      }
      out.defaultWriteObject();
    }
  }

  public static final class RefusingSerializer extends Serializer<Refusing> {
    @Override
    public void write(Kryo kryo, Output output, Refusing object) {
      if (Refusing.refuseWrites) {
        throw new IllegalStateException("refused on this node");
      }
      output.writeInt(object.n);
    }

    @Override
    public Refusing read(Kryo kryo, Input input, Class<? extends Refusing> type) {
      Refusing r = new Refusing();
      r.n = input.readInt();
      return r;
    }
  }

  @AfterEach
  void backToThisJvm() {
    Role.jvm = 0;
    Refusing.refuseWrites = false;
  }

  static Stream<Arguments> matrix() {
    return Stream.of(CodecKind.values()).flatMap(codec -> Stream.of(
        Arguments.of(codec, Compression.none()),
        Arguments.of(codec, Compression.zstd(3, 0))));
  }

  private static AttributeSerializer serializer(CodecKind codec, Compression compression) {
    return AttributeSerializer.builder().codec(codec).compression(compression).allowList(ALLOW).build();
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void currentBytes_hashSetReadInAnotherJvm_unchangedKeepsStoredBytes(CodecKind codec,
      Compression compression) {
    AttributeSerializer serializer = serializer(codec, compression);
    Set<Role> roles = new HashSet<>();
    for (int i = 0; i < 12; i++) {
      roles.add(new Role(i));
    }
    byte[] stored = serializer.serialize(roles);
    Role.jvm = 1;
    LazyValue lazy = serializer.lazy(stored);
    Set<Role> read = (Set<Role>) lazy.get();
    // the precondition of the defect: this JVM's encoding of the same set differs from the stored one
    assertThat(serializer.serialize(read)).isNotEqualTo(stored);

    assertThat(lazy.currentBytes()).isSameAs(stored);
    assertThat(lazy.isModified()).isFalse();

    read.add(new Role(40));
    assertThat(lazy.isModified()).isTrue();
    assertThat(serializer.deserialize(lazy.currentBytes())).isEqualTo(read);
  }

  @Test
  void currentBytes_jdkValueKryoCannotEncodeOnlyRead_unchangedAndNeverThrows() {
    AttributeSerializer jdkNode = AttributeSerializer.builder().codec(CodecKind.JDK).build();
    AttributeSerializer kryoNode = AttributeSerializer.builder().codec(CodecKind.KRYO).build();
    Map<String, Object> stats = new HashMap<>(Map.of("visits", new AtomicInteger(3)));
    byte[] stored = jdkNode.serialize(stats);
    // Kryo cannot encode it: a value set on a Kryo node is stored with the JDK codec (fallback)
    assertThat(kryoNode.header(kryoNode.serialize(stats)).codec()).isEqualTo(CodecKind.JDK);

    for (int request = 0; request < 3; request++) {
      LazyValue lazy = kryoNode.lazy(stored);
      assertThat(lazy.get()).isInstanceOf(HashMap.class);

      assertThat(lazy.currentBytes()).isSameAs(stored);
      assertThat(lazy.isModified()).isFalse();
    }
  }

  @Test
  void currentBytes_jdkValueKryoCannotEncodeChangedInPlace_savedWithTheCodecThatWroteIt() {
    AttributeSerializer jdkNode = AttributeSerializer.builder().codec(CodecKind.JDK).build();
    AttributeSerializer kryoNode = AttributeSerializer.builder().codec(CodecKind.KRYO).build();
    byte[] stored = jdkNode.serialize(new HashMap<>(Map.of("visits", new AtomicInteger(3))));
    LazyValue lazy = kryoNode.lazy(stored);
    ((Map<String, AtomicInteger>) lazy.get()).get("visits").incrementAndGet();

    byte[] now = lazy.currentBytes();

    assertThat(lazy.isModified()).isTrue();
    assertThat(kryoNode.header(now).codec()).isEqualTo(CodecKind.JDK);
    assertThat(((Map<String, AtomicInteger>) kryoNode.deserialize(now)).get("visits").get()).isEqualTo(4);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void currentBytes_readValueNoCodecCanEncode_storedBytesKeptEveryRequest(CodecKind codec) {
    AttributeSerializer writer = serializer(codec == CodecKind.KRYO ? CodecKind.JDK : CodecKind.KRYO,
        Compression.none());
    AttributeSerializer reader = serializer(codec, Compression.zstd());
    byte[] stored = writer.serialize(new ArrayList<>(List.of(new Refusing())));
    Refusing.refuseWrites = true;

    for (int request = 0; request < 3; request++) {
      LazyValue lazy = reader.lazy(stored);
      ((List<Refusing>) lazy.get()).get(0).n = 8;

      assertThat(lazy.currentBytes()).isSameAs(stored);
      assertThat(lazy.isModified()).isFalse();
    }
  }

  @Test
  void currentBytes_readValueNoCodecCanEncodeOnManyRequests_loggedOnceForItsClass() {
    AttributeSerializer writer = serializer(CodecKind.JDK, Compression.none());
    AttributeSerializer reader = serializer(CodecKind.KRYO, Compression.zstd());
    byte[] stored = writer.serialize(new Refusing());
    Refusing.refuseWrites = true;
    Logger logger = (Logger) LoggerFactory.getLogger(LazyValue.class);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    try {
      for (int request = 0; request < 3; request++) {
        LazyValue lazy = reader.lazy(stored);
        lazy.get();
        assertThat(lazy.currentBytes()).isSameAs(stored);
      }
    } finally {
      logger.detachAppender(logs);
    }

    assertThat(logs.list).singleElement().satisfies(event -> {
      assertThat(event.getLevel()).isEqualTo(Level.WARN);
      assertThat(event.getFormattedMessage()).contains(Refusing.class.getName())
          .contains("stored bytes are kept");
    });
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void currentBytes_storedWithOtherCompression_unchangedNotRecompressed(CodecKind codec) {
    AttributeSerializer writer = AttributeSerializer.builder().codec(codec)
        .compression(Compression.zstd(19, 0)).allowList(ALLOW).build();
    AttributeSerializer reader = serializer(codec, Compression.zstd(1, 0));
    AttributeSerializer raw = serializer(codec, Compression.none());
    for (Object value : ReferenceSession.create().values()) {
      for (byte[] stored : List.of(writer.serialize(value), raw.serialize(value))) {
        LazyValue lazy = reader.lazy(stored);
        lazy.get();

        assertThat(lazy.currentBytes()).as(value.getClass().getName()).isSameAs(stored);
        assertThat(lazy.isModified()).isFalse();
      }
    }
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void currentBytes_mutatedInPlace_exactlyTheEnvelopeSerializeWrites(CodecKind codec,
      Compression compression) {
    AttributeSerializer serializer = serializer(codec, compression);
    List<String> list = new ArrayList<>(List.of("a".repeat(300), "b"));
    LazyValue lazy = serializer.lazy(serializer.serialize(list));
    ((List<String>) lazy.get()).add("c".repeat(400));

    assertThat(lazy.isModified()).isTrue();
    assertThat(lazy.currentBytes()).isEqualTo(serializer.serialize(lazy.get()));
  }

  /** A record over a mutable list: a record is taken as unchanging only when what it holds is. */
  record Box(List<String> items) implements Serializable {}

  /** Mutable values and one in-place change each, some keeping the encoded length the same. */
  static Stream<Arguments> mutations() {
    return Stream.of(
        Arguments.of((Supplier<Object>) () -> ReferenceSession.create().get("cart"),
            (Consumer<Object>) v -> ((Cart) v).applyCoupon("WINTER25")),
        Arguments.of((Supplier<Object>) () -> ReferenceSession.create().get("cart"),
            (Consumer<Object>) v -> ((Cart) v).add(((Cart) v).items().get(0))),
        Arguments.of((Supplier<Object>) () -> new Date(1000),
            (Consumer<Object>) v -> ((Date) v).setTime(2000)),
        Arguments.of((Supplier<Object>) () -> new int[] {1, 2, 3},
            (Consumer<Object>) v -> ((int[]) v)[1] = 5),
        Arguments.of((Supplier<Object>) () -> new Box(new ArrayList<>(List.of("a", "b"))),
            (Consumer<Object>) v -> ((Box) v).items().set(0, "c")));
  }

  @ParameterizedTest
  @MethodSource("mutations")
  void currentBytes_mutableValueChangedInPlace_changeDetectedOnEveryCodecAndCompression(
      Supplier<Object> make, Consumer<Object> change) {
    matrix().forEach(arguments -> {
      AttributeSerializer serializer = serializer((CodecKind) arguments.get()[0],
          (Compression) arguments.get()[1]);
      byte[] stored = serializer.serialize(make.get());
      LazyValue lazy = serializer.lazy(stored);
      Object value = lazy.get();
      assertThat(lazy.currentBytes()).isSameAs(stored);

      change.accept(value);

      assertThat(lazy.isModified()).as(value.getClass().getName()).isTrue();
      assertThat(lazy.currentBytes()).isNotSameAs(stored)
          .isEqualTo(serializer.serialize(value));
      assertThat(serializer.payload(lazy.currentBytes())).isEqualTo(serializer.encodePayload(value));
    });
  }

  @Test
  void currentBytes_otherCodecUnchanged_keepsStoredBytes() {
    AttributeSerializer jdkNode = serializer(CodecKind.JDK, Compression.zstd());
    AttributeSerializer kryoNode = serializer(CodecKind.KRYO, Compression.zstd());
    byte[] stored = jdkNode.serialize(new ArrayList<>(List.of(1, 2, 3)));
    LazyValue lazy = kryoNode.lazy(stored);
    lazy.get();

    assertThat(lazy.currentBytes()).isSameAs(stored);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void serialize_valueOverMaximum_valueTooLargeNamingClassSizeLimitAndSetting(CodecKind codec) {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec).maxPayloadBytes(1024)
        .build();

    assertThatThrownBy(() -> serializer.serialize("x".repeat(5000)))
        .isInstanceOfSatisfying(ValueTooLargeException.class, e -> {
          assertThat(e.className()).isEqualTo("java.lang.String");
          assertThat(e.limit()).isEqualTo(1024);
        })
        .hasMessageContaining("java.lang.String").hasMessageContaining("1024")
        .hasMessageContaining("lazysession.max-value-bytes");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void currentBytes_readValueGrownInPlaceOverMaximum_valueTooLarge(CodecKind codec) {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec).maxPayloadBytes(1024)
        .build();
    LazyValue lazy = serializer.lazy(serializer.serialize(new ArrayList<>(List.of("small"))));
    ((List<String>) lazy.get()).add("x".repeat(5000));

    assertThatThrownBy(lazy::currentBytes).isInstanceOf(ValueTooLargeException.class);
  }

  @Test
  void currentBytes_readOnly_sameArrayAsOriginal() {
    AttributeSerializer serializer = serializer(CodecKind.KRYO, Compression.zstd(3, 0));
    byte[] stored = serializer.serialize(new ArrayList<>(List.of("a".repeat(500))));
    LazyValue lazy = serializer.lazy(stored);
    lazy.get();

    assertThat(lazy.currentBytes()).isSameAs(lazy.originalBytes()).isSameAs(stored);
    assertThat(Arrays.equals(lazy.currentBytes(), stored)).isTrue();
  }
}
