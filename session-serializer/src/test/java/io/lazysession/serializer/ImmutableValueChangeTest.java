package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;

import com.esotericsoftware.kryo.kryo5.DefaultSerializer;
import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serial;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A value read and not set again is re-encoded at save to catch changes made in place, unless its
 * encoding is fixed ({@link ImmutableTypes}). Whether it was re-encoded is seen through {@link Tally}s
 * in it, which count how often either codec writes them.
 */
class ImmutableValueChangeTest {
  private static final ClassAllowList ALLOW =
      ClassAllowList.builder().allowPackage("io.lazysession.serializer").build();
  static final AtomicInteger WRITES = new AtomicInteger();

  /** Counts its writes by either codec; mutable, so only a value that is known fixed skips it. */
  @DefaultSerializer(TallySerializer.class)
  static class Tally implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
    int n;

    Tally(int n) {
      this.n = n;
    }

    @Serial
    private void writeObject(ObjectOutputStream out) throws IOException {
      WRITES.incrementAndGet();
      out.defaultWriteObject();
    }
  }

  /** Marked: its instances are taken as never changing. */
  @Immutable
  @DefaultSerializer(TallySerializer.class) // Kryo does not inherit it
  static final class MarkedTally extends Tally {
    @Serial private static final long serialVersionUID = 1L;

    MarkedTally(int n) {
      super(n);
    }
  }

  /** Named in the builder ({@link AttributeSerializer.Builder#immutableTypes}) by some tests. */
  @DefaultSerializer(TallySerializer.class)
  static final class NamedTally extends Tally {
    @Serial private static final long serialVersionUID = 1L;

    NamedTally(int n) {
      super(n);
    }
  }

  public static final class TallySerializer extends Serializer<Tally> {
    @Override
    public void write(Kryo kryo, Output output, Tally tally) {
      WRITES.incrementAndGet();
      output.writeInt(tally.n);
    }

    @Override
    public Tally read(Kryo kryo, Input input, Class<? extends Tally> type) {
      int n = input.readInt();
      return type == MarkedTally.class ? new MarkedTally(n)
          : type == NamedTally.class ? new NamedTally(n) : new Tally(n);
    }
  }

  record Order(String id, int lines, @Nullable Object extra) implements Serializable {}

  record Basket(String id, List<Object> items) implements Serializable {}

  @BeforeEach
  void noWrites() {
    WRITES.set(0);
  }

  static Stream<AttributeSerializer> serializers() {
    return Stream.of(CodecKind.values()).flatMap(codec -> Stream.of(Compression.none(),
        Compression.zstd(3, 0)).map(compression -> AttributeSerializer.builder().codec(codec)
        .compression(compression).allowList(ALLOW).immutableTypes(List.of(NamedTally.class.getName()))
        .build()));
  }

  /** Values whose encoding is fixed, each holding a tally (counted if the value is re-encoded). */
  static Stream<Supplier<Object>> fixedValues() {
    return Stream.of(
        () -> new MarkedTally(1),
        () -> new NamedTally(1),
        () -> new Order("o-1", 3, new MarkedTally(2)),
        () -> List.of(new MarkedTally(1), new NamedTally(2)),
        () -> Map.of("a", new Order("o-1", 1, List.of("x", new MarkedTally(3)))),
        () -> new Basket("b-1", List.of(new Order("o-2", 2, null), new MarkedTally(4))));
  }

  static Stream<Arguments> fixedValuesOnEverySerializer() {
    return serializers().flatMap(serializer -> fixedValues().map(value -> Arguments.of(serializer, value)));
  }

  @ParameterizedTest
  @MethodSource("fixedValuesOnEverySerializer")
  void currentBytes_fixedValueReadNotSet_notReEncoded(AttributeSerializer serializer,
      Supplier<Object> make) {
    byte[] stored = serializer.serialize(make.get());
    LazyValue lazy = serializer.lazy(stored);
    Object value = lazy.get();
    WRITES.set(0);

    assertThat(lazy.currentBytes()).as("%s", value).isSameAs(stored);
    assertThat(lazy.isModified()).isFalse();
    assertThat(WRITES).as("writes of the tallies in %s", value).hasValue(0);
  }

  /** Today's guarantee for everything else: the value is re-encoded, and a change in place saved. */
  static Stream<Arguments> mutableValues() {
    return Stream.of(
        Arguments.of((Supplier<Object>) () -> new Tally(1), (Consumer<Object>) v -> ((Tally) v).n = 2),
        Arguments.of((Supplier<Object>) () -> new Order("o-1", 1, new ArrayList<>(List.of("a"))),
            (Consumer<Object>) v -> ((List<String>) ((Order) v).extra()).add("b")),
        Arguments.of((Supplier<Object>) () -> new Order("o-1", 1, new Tally(1)),
            (Consumer<Object>) v -> ((Tally) ((Order) v).extra()).n = 5),
        Arguments.of((Supplier<Object>) () -> List.of(new MarkedTally(1), new ArrayList<>(List.of(1))),
            (Consumer<Object>) v -> ((List<Integer>) ((List<?>) v).get(1)).set(0, 2)),
        Arguments.of((Supplier<Object>) () -> new Basket("b", List.of(new Order("o", 1, new Tally(1)))),
            (Consumer<Object>) v -> ((Tally) ((Order) ((Basket) v).items().get(0)).extra()).n = 9));
  }

  @ParameterizedTest
  @MethodSource("mutableValues")
  void currentBytes_mutableValueReadAndChangedInPlace_reEncodedAndSaved(Supplier<Object> make,
      Consumer<Object> change) {
    serializers().forEach(serializer -> {
      byte[] stored = serializer.serialize(make.get());
      LazyValue lazy = serializer.lazy(stored);
      Object value = lazy.get();
      assertThat(lazy.currentBytes()).as("%s unchanged", value).isSameAs(stored);
      WRITES.set(0);

      change.accept(value);

      assertThat(lazy.isModified()).as("%s", value).isTrue();
      assertThat(lazy.currentBytes()).isNotSameAs(stored).isEqualTo(serializer.serialize(value));
    });
  }

  /**
   * Marking is a promise: a marked value changed in place anyway is not re-encoded, so the change is
   * not saved unless the attribute is set again (docs/user-guide.md says so).
   */
  @ParameterizedTest
  @MethodSource("serializers")
  void currentBytes_markedValueChangedInPlaceAnyway_notSaved(AttributeSerializer serializer) {
    byte[] stored = serializer.serialize(new Order("o-1", 1, new MarkedTally(1)));
    LazyValue lazy = serializer.lazy(stored);
    ((MarkedTally) ((Order) lazy.get()).extra()).n = 2;

    assertThat(lazy.isModified()).isFalse();
    assertThat(lazy.currentBytes()).isSameAs(stored);
  }

  /** Without the name, the same class is re-encoded: the builder's names are what make it fixed. */
  @ParameterizedTest
  @MethodSource("serializers")
  void immutableTypes_notNamed_reEncodedAndKeptAcrossCopies(AttributeSerializer serializer) {
    AttributeSerializer unnamed = serializer.toBuilder().immutableTypes(List.of()).build();
    LazyValue lazy = unnamed.lazy(unnamed.serialize(new NamedTally(1)));
    lazy.get();
    WRITES.set(0);

    assertThat(lazy.currentBytes()).isNotNull();
    assertThat(WRITES.get()).isPositive();
    assertThat(serializer.toBuilder().build().immutableTypes.named())
        .containsExactly(NamedTally.class.getName());
    assertThat(unnamed.immutableTypes.named()).isEmpty();
  }
}
