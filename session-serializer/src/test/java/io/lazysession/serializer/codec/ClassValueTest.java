package io.lazysession.serializer.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.ClassNotAllowedException;
import io.lazysession.serializer.SerializationException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A {@code java.lang.Class} value is a reference to a class by name: stored whatever class it names
 * (Java serialization stores any Class), checked by the allow-list's rules for names, read back as
 * the same class, never initializing it.
 */
class ClassValueTest {
  private static final ClassAllowList APPLICATION = ClassAllowList.builder()
      .allowPackage(ClassValueTest.class.getPackageName()).build();
  static final AtomicBoolean INITIALIZED = new AtomicBoolean();

  /** A record holding a Class, as an application keeps one. */
  record Kind(String name, Class<?> type) implements Serializable {}

  /** Its static initializer tells whether reading a reference to it initialized it. */
  static final class NeverInitialized {
    static {
      INITIALIZED.set(true);
    }
  }

  enum Shape {
    SQUARE {
      @Override
      int corners() {
        return 4;
      }
    };

    abstract int corners();
  }

  private static Codec codec(CodecKind kind, ClassAllowList allowList) {
    return Codecs.of(kind, allowList, ClassValueTest.class.getClassLoader(), 1 << 20, true);
  }

  private static Object roundTrip(Codec codec, Object value) {
    byte[] bytes = codec.encode(value);
    return codec.decode(bytes, 0, bytes.length);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_recordHoldingAnInterfaceClass_roundTripsWithRequireSerializable(CodecKind kind) {
    Kind value = new Kind("task", Runnable.class);

    assertThat(roundTrip(codec(kind, APPLICATION), value)).isEqualTo(value);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_classValues_readBackAsTheSameClasses(CodecKind kind) {
    List<Class<?>> classes = List.of(int.class, Integer.class, void.class, long[].class, int[][].class,
        String[][].class, Runnable[].class, Runnable.class, Kind.class, NeverInitialized.class,
        Shape.class, Shape.SQUARE.getClass(), TimeUnit.class, ArrayList.class, Class.class,
        new HashMap<>().keySet().getClass(), Number.class);

    Object back = roundTrip(codec(kind, APPLICATION), new ArrayList<>(classes));

    assertThat(back).isEqualTo(classes);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_referenceToAnAllowedClass_doesNotInitializeIt(CodecKind kind) {
    Object back = roundTrip(codec(kind, APPLICATION), new Kind("lazy", NeverInitialized.class));

    assertThat(((Kind) back).type().getName()).isEqualTo(NeverInitialized.class.getName());
    assertThat(INITIALIZED).isFalse();
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_classOutsideTheAllowList_refusedNamingItsPackage(CodecKind kind) {
    Codec codec = codec(kind, APPLICATION);

    for (Class<?> type : List.of(org.junit.jupiter.api.Test.class, org.junit.jupiter.api.Test[].class)) {
      assertThatThrownBy(() -> codec.encode(new Kind("test", type)))
          .isInstanceOf(ClassNotAllowedException.class)
          .hasMessageContaining("class org.junit.jupiter.api.Test is outside the allow-list")
          .hasMessageContaining("lazysession.allowed-packages=org.junit.jupiter.api");
    }
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_deniedJdkClass_refusedAsBehaviour(CodecKind kind) {
    assertThatThrownBy(() -> codec(kind, APPLICATION).encode(new Kind("thread", Thread.class)))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("class java.lang.Thread is not allowed: it is behaviour, not data");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_lambdaClass_refusedAsNotFoundByName(CodecKind kind) {
    Supplier<String> lambda = () -> "x";

    assertThatThrownBy(() -> codec(kind, APPLICATION).encode(new Kind("lambda", lambda.getClass())))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("cannot store the class " + lambda.getClass().getTypeName() + " as a value")
        .hasMessageContaining("cannot be found by name when read back");
  }

  /** Bytes from a writer with a wider list: refused by name, before the class is loaded. */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_classOutsideTheReadersList_refusedByName(CodecKind kind) {
    ClassAllowList wider = ClassAllowList.builder().allowPackage(APPLICATION.packages().iterator().next())
        .allowPackage("org.junit").build();
    byte[] bytes = codec(kind, wider).encode(new Kind("test", org.junit.jupiter.api.Test.class));

    assertThatThrownBy(() -> codec(kind, APPLICATION).decode(bytes, 0, bytes.length))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("org.junit.jupiter.api.Test");
  }

  /** A hostile writer names a denied JDK class (and an array of it) as a Class value. */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_deniedClassPlantedInBytes_refusedByName(CodecKind kind) {
    Codec codec = codec(kind, APPLICATION);
    for (Class<?> type : List.of(Number.class, Number[].class)) {
      byte[] bytes = codec.encode(new Kind("planted", type));
      plantThread(bytes);

      assertThatThrownBy(() -> codec.decode(bytes, 0, bytes.length)).as(type.getName())
          .isInstanceOf(ClassNotAllowedException.class)
          .hasMessageContaining("java.lang.Thread is not allowed");
    }
  }

  /** Renames java.lang.Number to java.lang.Thread (Kryo sets the high bit of an ASCII name's end). */
  private static void plantThread(byte[] bytes) {
    byte[] find = "java.lang.Numbe".getBytes(StandardCharsets.US_ASCII);
    byte[] with = "java.lang.Threa".getBytes(StandardCharsets.US_ASCII);
    outer:
    for (int i = 0; i + find.length < bytes.length; i++) {
      for (int j = 0; j < find.length; j++) {
        if (bytes[i + j] != find[j]) {
          continue outer;
        }
      }
      System.arraycopy(with, 0, bytes, i, with.length);
      bytes[i + find.length] = (byte) (bytes[i + find.length] & 0x80 | 'd');
    }
  }
}
