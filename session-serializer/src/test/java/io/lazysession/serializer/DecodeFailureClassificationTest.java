package io.lazysession.serializer;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.esotericsoftware.kryo.kryo5.DefaultSerializer;
import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.codec.DecodeLimitException;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.fixtures.linkage.ChildFirstClassLoader;
import io.lazysession.serializer.fixtures.linkage.ExchangeFilter;
import io.lazysession.serializer.fixtures.linkage.FilterBean;
import io.lazysession.serializer.fixtures.linkage.StaticallyConfigured;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serial;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Only provably broken bytes are {@link CorruptDataException}; bytes that another version of a class
 * reads are {@link IncompatibleDataException}, and errors of the JVM are never turned into either.
 * Bytes "of another version" are made by writing a twin class whose name differs in its last letter,
 * then renaming it in the payload (same length, so the stream stays well-formed).
 */
class DecodeFailureClassificationTest {
  private static final ClassAllowList ALLOW =
      ClassAllowList.builder().allowPackage("io.lazysession.serializer").build();

  /** Version 2 of an enum: a constant added. */
  enum StatusA { NEW, SHIPPED }

  /** Version 1 of that enum, as an older node has it. */
  enum StatusB { NEW }

  /** Version 1 of a class: its field holds a String. */
  static final class HolderA implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    Object amount = "12";
  }

  /** Version 2: the field's type changed to Integer. */
  static final class HolderB implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    Integer amount = 12;
  }

  /** Version 1 of a value type: an enum. */
  enum ColorA { RED, GREEN }

  /** Version 2: a class. */
  static final class ColorB implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    String name;
  }

  /** Version 1 of another: an enum. */
  enum SizeA { SMALL }

  /** Version 2: a record. */
  record SizeB(String code) implements Serializable {}

  /** Version 1 of a value type: a list. */
  static final class TagsA extends ArrayList<String> {
    @Serial private static final long serialVersionUID = 1L;
  }

  /** Version 2: a class holding a list. */
  static final class TagsB implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    List<String> items;
  }

  /** Version 1 of a class whose {@code writeObject} adds nothing yet. */
  static final class CounterA implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    String name = "visits";

    @Serial
    private void writeObject(ObjectOutputStream out) throws IOException {
      out.defaultWriteObject();
    }
  }

  /** Version 2: its {@code readObject} reads a count that version 1 did not write. */
  static final class CounterB implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    String name;
    int count;

    @Serial
    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      count = in.readInt();
    }
  }

  /** Version 1 of a class without {@code writeObject}: its stream holds no data of its own. */
  static final class PlainCounterA implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    String name = "visits";
  }

  /** Version 2, reading a count as {@link CounterB} does. */
  static final class PlainCounterB implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    String name;
    int count;

    @Serial
    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      count = in.readInt();
    }
  }

  /** A class whose JDK {@code readObject} and Kryo serializer throw what the test sets. */
  @DefaultSerializer(ThrowingSerializer.class)
  static final class Throwing implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    static volatile Supplier<Throwable> onRead = () -> null;
    int n = 1;

    @Serial
    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      throwIt();
    }

    static void throwIt() throws IOException {
      Throwable t = onRead.get();
      if (t instanceof IOException io) {
        throw io;
      } else if (t instanceof RuntimeException re) {
        throw re;
      } else if (t instanceof Error error) {
        throw error;
      }
    }
  }

  public static final class ThrowingSerializer extends Serializer<Throwing> {
    @Override
    public void write(Kryo kryo, Output output, Throwing object) {
      output.writeInt(object.n);
    }

    @Override
    public Throwing read(Kryo kryo, Input input, Class<? extends Throwing> type) {
      Throwing t = new Throwing();
      t.n = input.readInt();
      try {
        Throwing.throwIt();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      return t;
    }
  }

  @AfterEach
  void reset() {
    Throwing.onRead = () -> null;
  }

  private static AttributeSerializer serializer(CodecKind codec) {
    return AttributeSerializer.builder().codec(codec).compression(Compression.none()).allowList(ALLOW)
        .build();
  }

  /** The envelope of {@code value} with the last letter of its class name changed from A to {@code to}. */
  private static byte[] renamed(AttributeSerializer serializer, Object value, char to) {
    byte[] envelope = serializer.serialize(value);
    byte[] name = (DecodeFailureClassificationTest.class.getSimpleName() + "$"
        + value.getClass().getSimpleName().replaceAll("A$", "")).getBytes(US_ASCII);
    int found = indexOf(envelope, name);
    assertThat(found).as("class name in payload").isPositive();
    int last = found + name.length;
    assertThat(envelope[last] & 0x7F).isEqualTo('A');
    envelope[last] = (byte) ((envelope[last] & 0x80) | to);
    return envelope;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length < haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_enumConstantAddedByNewerNode_incompatibleNamingConstantAndBytesKept(CodecKind codec) {
    AttributeSerializer serializer = serializer(codec);
    byte[] stored = renamed(serializer, StatusA.SHIPPED, 'B');
    LazyValue lazy = serializer.lazy(stored);

    assertThatThrownBy(lazy::get).isInstanceOf(IncompatibleDataException.class)
        .isNotInstanceOf(CorruptDataException.class).hasMessageContaining("SHIPPED");
    assertThat(lazy.currentBytes()).isSameAs(stored);
    assertThat(serializer.deserialize(renamed(serializer, StatusA.NEW, 'B'))).isEqualTo(StatusB.NEW);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_fieldTypeChanged_incompatibleNamingTheClass(CodecKind codec) {
    AttributeSerializer serializer = serializer(codec);
    byte[] stored = renamed(serializer, new HolderA(), 'B');

    assertThatThrownBy(() -> serializer.deserialize(stored)).isInstanceOf(IncompatibleDataException.class)
        .hasMessageContaining(HolderB.class.getName());
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_classMissingOnThisNode_incompatibleNamingTheClass(CodecKind codec) {
    AttributeSerializer serializer = serializer(codec);
    byte[] stored = renamed(serializer, StatusA.NEW, 'Z');

    assertThatThrownBy(() -> serializer.deserialize(stored)).isInstanceOf(IncompatibleDataException.class)
        .hasMessageContaining(DecodeFailureClassificationTest.class.getName() + "$StatusZ");
  }

  /**
   * A class found on this node whose supertype is not (an allowed Spring Security class implementing
   * spring-webflux's interface, in a servlet application): NoClassDefFoundError, which escaped as a
   * 500 at getAttribute.
   */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_supertypeMissingOnThisNode_incompatibleNamingClassAndCause(CodecKind codec) {
    byte[] stored = serializer(codec).serialize(new FilterBean());
    AttributeSerializer reader = serializer(codec).toBuilder()
        .classLoader(new ChildFirstClassLoader(Set.of(FilterBean.class), Set.of(ExchangeFilter.class)))
        .build();

    assertThatThrownBy(() -> reader.deserialize(stored)).isInstanceOf(IncompatibleDataException.class)
        .hasMessageContaining("a value of " + FilterBean.class.getName())
        .hasMessageContaining("NoClassDefFoundError")
        .hasMessageContaining(ExchangeFilter.class.getName().replace('.', '/'))
        .satisfies(e -> assertThat(((IncompatibleDataException) e).className())
            .isEqualTo(FilterBean.class.getName()));
  }

  /** ExceptionInInitializerError the first time, NoClassDefFoundError ("Could not initialize") after. */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_staticInitializerFailsOnThisNode_incompatibleAtEveryRead(CodecKind codec) {
    byte[] stored = serializer(codec).serialize(new StaticallyConfigured());
    AttributeSerializer reader = serializer(codec).toBuilder()
        .classLoader(new ChildFirstClassLoader(Set.of(StaticallyConfigured.class), Set.of())).build();

    assertThatThrownBy(() -> reader.deserialize(stored)).isInstanceOf(IncompatibleDataException.class)
        .hasMessageContaining(StaticallyConfigured.class.getName())
        .hasMessageContaining("ExceptionInInitializerError");
    assertThatThrownBy(() -> reader.deserialize(stored)).isInstanceOf(IncompatibleDataException.class)
        .hasMessageContaining(StaticallyConfigured.class.getName())
        .hasMessageContaining("NoClassDefFoundError");
    assertThat(reader.deserialize(reader.serialize("still reads"))).isEqualTo("still reads");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_readObjectRefusesWhatItReads_incompatible(CodecKind codec) {
    AttributeSerializer serializer = serializer(codec);
    byte[] stored = serializer.serialize(new Throwing());

    for (Supplier<Throwable> failure : java.util.List.<Supplier<Throwable>>of(
        () -> new InvalidObjectException("amount must be positive"),
        () -> new ClassCastException("java.lang.String cannot be cast to java.lang.Integer"),
        () -> new IllegalArgumentException("unknown step"))) {
      Throwing.onRead = failure;
      assertThatThrownBy(() -> serializer.deserialize(stored)).as(failure.get().toString())
          .isInstanceOf(IncompatibleDataException.class);
    }
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_outOfMemory_propagatesAndNextDecodeWorks(CodecKind codec) {
    AttributeSerializer serializer = serializer(codec);
    byte[] stored = serializer.serialize(new Throwing());
    Throwing.onRead = () -> new OutOfMemoryError("Java heap space (simulated)");

    assertThatThrownBy(() -> serializer.deserialize(stored)).isInstanceOf(OutOfMemoryError.class);
    Throwing.onRead = () -> null;
    assertThat(serializer.deserialize(stored)).isInstanceOf(Throwing.class);
  }

  /**
   * A legitimately deep value can overflow a small thread stack; the overflow is unwound by the time it
   * is caught, so it is classified (bytes kept for a thread or node with more stack) rather than
   * propagated as an Error to the request.
   */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_stackOverflow_incompatibleAndNextDecodeWorks(CodecKind codec) {
    AttributeSerializer serializer = serializer(codec);
    byte[] stored = serializer.serialize(new Throwing());
    Throwing.onRead = () -> new StackOverflowError();

    // Kryo's own depth guard reports it as a decode limit; both kinds keep the bytes.
    assertThatThrownBy(() -> serializer.deserialize(stored))
        .isInstanceOfAny(IncompatibleDataException.class, DecodeLimitException.class)
        .isNotInstanceOf(CorruptDataException.class)
        .hasMessageContaining("stack");
    Throwing.onRead = () -> null;
    assertThat(serializer.deserialize(stored)).isInstanceOf(Throwing.class);
  }

  /**
   * Kryo reads an object with the serializer of its class as this node has it; a class that changed
   * kind reads valid bytes out of step: they seem to run out, declare more than remains, or refer
   * back to nothing. These were called corrupt, which lets the store delete them.
   */
  @Test
  void deserialize_kryoClassChangedKind_incompatibleNotCorrupt() {
    AttributeSerializer serializer = serializer(CodecKind.KRYO);
    TagsA tags = new TagsA();
    tags.addAll(List.of("new", "sale"));

    for (Object older : List.of(ColorA.GREEN, SizeA.SMALL, tags)) {
      byte[] stored = renamed(serializer, older, 'B');

      assertThatThrownBy(() -> serializer.deserialize(stored)).as(older.getClass().getSimpleName())
          .isInstanceOf(IncompatibleDataException.class).hasMessageContaining("changed kind");
    }
  }

  /** Whether or not version 1 had a {@code writeObject}, version 2 runs out where the stream ends. */
  @Test
  void deserialize_jdkReadObjectReadsMoreThanOlderVersionWrote_incompatible() {
    AttributeSerializer serializer = serializer(CodecKind.JDK);

    for (Object older : List.of(new CounterA(), new PlainCounterA())) {
      byte[] stored = renamed(serializer, older, 'B');

      assertThatThrownBy(() -> serializer.deserialize(stored)).as(older.getClass().getSimpleName())
          .isInstanceOf(IncompatibleDataException.class).hasMessageContaining("EOFException");
    }
  }

  /** Bytes naming only the JDK's classes, whose encoding no deploy changes, are provably broken. */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_truncatedOrTrailingBytes_corrupt(CodecKind codec) {
    AttributeSerializer serializer = serializer(codec);
    Map<String, Object> value = new LinkedHashMap<>(Map.of("amount", 12L, "tags", List.of("a", "b")));
    byte[] stored = serializer.serialize(value);
    byte[] truncated = Arrays.copyOf(stored, stored.length - 2);
    byte[] trailing = Arrays.copyOf(stored, stored.length + 1);

    assertThatThrownBy(() -> serializer.deserialize(truncated)).isInstanceOf(CorruptDataException.class);
    assertThatThrownBy(() -> serializer.deserialize(trailing)).isInstanceOf(CorruptDataException.class);
  }

  /**
   * Truncated or trailing Kryo bytes of an application's class: no longer corrupt (this test pinned
   * the opposite), since they cannot be told from bytes a class of another kind wrote. JDK
   * serialization's descriptors fix the grammar, so its bytes stay corrupt unless a class reads data
   * of its own.
   */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_truncatedOrTrailingBytesOfApplicationClass_corruptOnlyWithJdkDescriptors(
      CodecKind codec) {
    AttributeSerializer serializer = serializer(codec);
    byte[] stored = serializer.serialize(new HolderA());
    byte[] truncated = Arrays.copyOf(stored, stored.length - 2);
    byte[] trailing = Arrays.copyOf(stored, stored.length + 1);
    Class<? extends SerializationException> expected =
        codec == CodecKind.KRYO ? IncompatibleDataException.class : CorruptDataException.class;

    assertThatThrownBy(() -> serializer.deserialize(truncated)).isInstanceOf(expected);
    assertThatThrownBy(() -> serializer.deserialize(trailing)).isInstanceOf(expected);
  }

  @Test
  void deserialize_unknownCodecIdIsKeptZstdErrorIsCorrupt() {
    AttributeSerializer serializer = serializer(CodecKind.KRYO);
    byte[] unknownCodec = {(byte) 0xA1, 9, 0, 1};
    byte[] badFrame = {(byte) 0xA1, 2, 1, 10, 1, 2, 3, 4};

    assertThatThrownBy(() -> serializer.deserialize(unknownCodec))
        .isInstanceOf(IncompatibleDataException.class);
    assertThatThrownBy(() -> serializer.deserialize(badFrame)).isInstanceOf(CorruptDataException.class);
  }
}
