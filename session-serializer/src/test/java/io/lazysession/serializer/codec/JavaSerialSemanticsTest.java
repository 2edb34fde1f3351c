package io.lazysession.serializer.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.SerializationException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Both codecs give back what Java serialization gives for classes that declare {@code readResolve}
 * or {@code writeReplace}: singletons keep their identity, replacements are what is stored.
 */
class JavaSerialSemanticsTest {
  private static final ClassAllowList APPLICATION = ClassAllowList.builder()
      .allowPackage(JavaSerialSemanticsTest.class.getPackageName()).build();

  /** An enum-like singleton, as Kotlin's {@code object} compiles (private readResolve). */
  static final class Marker implements Serializable {
    private static final long serialVersionUID = 1L;
    static final Marker INSTANCE = new Marker();

    private Marker() {}

    private Object readResolve() {
      return INSTANCE;
    }
  }

  /** Interned by name through a readResolve inherited from its superclass (protected). */
  abstract static class Interned implements Serializable {
    private static final long serialVersionUID = 1L;
    final String name;

    Interned(String name) {
      this.name = name;
    }

    protected Object readResolve() {
      return Level.of(name);
    }
  }

  static final class Level extends Interned {
    private static final long serialVersionUID = 1L;
    static final Level LOW = new Level("low");
    static final Level HIGH = new Level("high");

    private Level(String name) {
      super(name);
    }

    static Level of(String name) {
      return name.equals("low") ? LOW : HIGH;
    }
  }

  /** A private readResolve of a superclass is not its subclasses' (Java serialization's rule). */
  static class Base implements Serializable {
    private static final long serialVersionUID = 1L;
    static final Base SHARED = new Base();

    private Object readResolve() {
      return SHARED;
    }
  }

  static final class Derived extends Base {
    private static final long serialVersionUID = 1L;
  }

  /** Stores a copy without its cache, as Spring's DisposableBeanAdapter leaves its processors out. */
  static final class Cached implements Serializable {
    private static final long serialVersionUID = 1L;
    final String key;
    final List<String> cache;

    Cached(String key, List<String> cache) {
      this.key = key;
      this.cache = cache;
    }

    Object writeReplace() {
      return new Cached(key, new ArrayList<>());
    }
  }

  /** The serialization proxy pattern: stored as another class that resolves back. */
  static final class Range implements Serializable {
    private static final long serialVersionUID = 1L;
    final int from;
    final int to;

    Range(int from, int to) {
      this.from = from;
      this.to = to;
    }

    private Object writeReplace() {
      return new RangeProxy(from + ".." + to);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Range r && r.from == from && r.to == to;
    }

    @Override
    public int hashCode() {
      return Objects.hash(from, to);
    }
  }

  record RangeProxy(String text) implements Serializable {
    private Object readResolve() {
      String[] ends = text.split("\\.\\.");
      return new Range(Integer.parseInt(ends[0]), Integer.parseInt(ends[1]));
    }
  }

  /** Holds the singleton in a field, next to a list that holds it too. */
  static final class Holder implements Serializable {
    private static final long serialVersionUID = 1L;
    Object marker = Marker.INSTANCE;
    List<Object> markers = new ArrayList<>(List.of(Marker.INSTANCE, Level.LOW, Marker.INSTANCE));
  }

  private static Object roundTrip(CodecKind kind, Object value) {
    Codec codec = Codecs.of(kind, APPLICATION, JavaSerialSemanticsTest.class.getClassLoader(), 1 << 20,
        true);
    byte[] bytes = codec.encode(value);
    return codec.decode(bytes, 0, bytes.length);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_singletonWithReadResolve_isTheSingleton(CodecKind kind) {
    assertThat(roundTrip(kind, Marker.INSTANCE)).isSameAs(Marker.INSTANCE);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_singletonReferencedSeveralTimes_everyReferenceIsTheSingleton(CodecKind kind) {
    Holder back = (Holder) roundTrip(kind, new Holder());

    assertThat(back.marker).isSameAs(Marker.INSTANCE);
    assertThat(back.markers).hasSize(3);
    assertThat(back.markers.get(0)).isSameAs(Marker.INSTANCE);
    assertThat(back.markers.get(1)).isSameAs(Level.LOW);
    assertThat(back.markers.get(2)).isSameAs(Marker.INSTANCE);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_readResolveInheritedAsJavaSerializationInheritsIt(CodecKind kind) {
    assertThat(roundTrip(kind, Level.HIGH)).isSameAs(Level.HIGH);
    Object derived = roundTrip(kind, new Derived());
    assertThat(derived).isInstanceOf(Derived.class).isNotSameAs(Base.SHARED);
    assertThat(roundTrip(kind, new Base())).isSameAs(Base.SHARED);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_writeReplaceOfTheSameClass_storesTheReplacement(CodecKind kind) {
    Cached back = (Cached) roundTrip(kind, new Cached("k", new ArrayList<>(List.of("warm"))));

    assertThat(back.key).isEqualTo("k");
    assertThat(back.cache).isEmpty();
  }

  @Test
  void kryoEncode_writeReplaceOfAnotherClass_refusedNamingBoth() {
    Codec kryo = Codecs.of(CodecKind.KRYO, APPLICATION, getClass().getClassLoader(), 1 << 20, true);

    assertThatThrownBy(() -> kryo.encode(new Range(1, 5)))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("cannot encode " + Range.class.getTypeName() + " with Kryo")
        .hasMessageContaining("its writeReplace() returns a " + RangeProxy.class.getTypeName())
        .hasMessageContaining("only Java serialization stores in its place");
  }

  /** The serializer stores such a value with Java serialization, which keeps the proxy's semantics. */
  @Test
  void serialize_writeReplaceOfAnotherClass_storedWithJavaSerializationAndReadBack() {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(CodecKind.KRYO)
        .allowList(APPLICATION).build();
    List<Object> value = new ArrayList<>(List.of(new Range(1, 5), Marker.INSTANCE));

    byte[] envelope = serializer.serialize(value);

    assertThat(serializer.header(envelope).codec()).isEqualTo(CodecKind.JDK);
    List<?> back = (List<?>) serializer.deserialize(envelope);
    assertThat(back.get(0)).isEqualTo(new Range(1, 5));
    assertThat(back.get(1)).isSameAs(Marker.INSTANCE);
    assertThat(serializer.codecFallbacks()).isEqualTo(1);
  }
}
