package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.reference.Enums;
import io.lazysession.serializer.reference.ReferenceSession;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class ImmutableTypesTest {
  private static final ImmutableTypes DEFAULT = ImmutableTypes.NONE_NAMED;

  /** Mutable state in a constant: still encoded by name, so its encoding cannot change. */
  enum WithBody {
    ONE {
      @Override
      int next() {
        return ++counter;
      }
    };

    int counter;

    abstract int next();
  }

  record Money(BigDecimal amount, String currency) {}

  record Line(String sku, int quantity, Money price, Enums.CheckoutStep step) {}

  record Holder(String name, @Nullable Object value) {}

  record Listing(List<Line> lines, Map<String, Object> tags) {}

  record WithArray(String name, int @Nullable [] codes) {}

  record Node(int depth, @Nullable Node next) {}

  @Immutable
  static class Marked {
    int n; // a promise the application makes, not something checked
  }

  /** Not marked: the annotation is not inherited, a subclass may add state. */
  static final class MarkedSubclass {
    static final Object INSTANCE = new Marked() {};
  }

  @net.jcip.annotations.Immutable
  static final class JcipMarked {}

  static final class Named {
    int n;
  }

  /** A subclass could add mutable state: only BigDecimal and BigInteger are open, and checked exactly. */
  @Test
  void exactTypes_onlyFinalClassesExceptBigDecimalAndBigInteger() {
    assertThat(ImmutableTypes.exactTypes()).isNotEmpty()
        .filteredOn(type -> !Modifier.isFinal(type.getModifiers()))
        .containsExactlyInAnyOrder(BigDecimal.class, BigInteger.class);
  }

  @Test
  void encodingFixed_jdkValueTypesAndEnums_true() {
    for (Object value : List.of("s", 1, 2L, 1.5d, true, 'c', new BigDecimal("1.50"), BigInteger.TEN,
        Instant.EPOCH, java.util.UUID.randomUUID(), java.util.Locale.FRANCE, Enums.CheckoutStep.SHIPPING,
        WithBody.ONE)) {
      assertThat(DEFAULT.encodingFixed(value)).as(value.getClass().getName()).isTrue();
    }
  }

  @Test
  void encodingFixed_recordsAndJdkImmutableCollectionsOfImmutables_true() {
    Line line = new Line("sku-1", 2, new Money(new BigDecimal("9.90"), "EUR"), Enums.CheckoutStep.CART);
    for (Object value : List.of(line, new Money(null, "EUR"), new Holder("h", null),
        new Holder("h", Instant.EPOCH), new Holder("h", line), new Holder("h", List.of(line, line)),
        new Listing(List.of(line), Map.of("a", 1, "b", List.of("x"), "c", Set.of(line))),
        List.of(), List.of("a"),
        List.of("a", "b", "c"), Stream.of(line).toList(), Set.of(1, 2, 3), Map.of(), Map.of("k", line),
        Collections.emptyList(), Collections.emptySet(), Collections.emptyMap(),
        Collections.singletonList(line), Collections.singleton("a"), Collections.singletonMap("k", 1),
        Map.entry("k", line), new AbstractMap.SimpleImmutableEntry<>("k", "v"),
        List.of(1, 2, 3).subList(0, 2))) {
      assertThat(DEFAULT.encodingFixed(value)).as("%s", value).isTrue();
    }
  }

  @Test
  void encodingFixed_anythingMutableWithin_false() {
    Object mutableDecimal = new BigDecimal("1.50") {
      int extra;
    };
    Object mutableInteger = new BigInteger("10") {};
    List<Object> values = new ArrayList<>(List.of(mutableDecimal, mutableInteger, new ArrayList<>(),
        new Date(), new AtomicInteger(), new int[] {1}, new StringBuilder("x"),
        ReferenceSession.create().get("cart"),
        new Holder("h", new ArrayList<>(List.of("a"))), new Holder("h", new Date()),
        new Holder("h", new Holder("inner", new int[0])), new Money(new BigDecimal("1") {}, "EUR"),
        // an array component, even empty or null, makes a record mutable
        new WithArray("none", null), new WithArray("one", new int[] {1}),
        List.of(new ArrayList<>()), List.of("a", new Date()), Set.of(new StringBuilder()),
        Map.of("k", new Date()), Map.of(new Date(), "v"), Collections.singletonList(new Date()),
        Map.entry("k", new Date()), Map.entry(new Date(), "v"),
        // views: what is behind them may change through another reference
        Collections.unmodifiableList(new ArrayList<>(List.of("a"))),
        Collections.unmodifiableList(List.of("a")), Collections.unmodifiableMap(Map.of("k", "v")),
        Arrays.asList("a", "b"), new Named(), MarkedSubclass.INSTANCE));
    for (Object value : values) {
      assertThat(DEFAULT.encodingFixed(value)).as(value.getClass().getName()).isFalse();
    }
  }

  @Test
  void encodingFixed_markedOrNamedClasses_trueAlsoInRecordsAndCollections() {
    ImmutableTypes named = ImmutableTypes.of(List.of(" " + Named.class.getName() + " "));

    assertThat(DEFAULT.encodingFixed(new Marked())).isTrue();
    assertThat(DEFAULT.encodingFixed(new JcipMarked())).isTrue();
    assertThat(DEFAULT.encodingFixed(new Holder("h", List.of(new Marked())))).isTrue();
    assertThat(named.encodingFixed(new Named())).isTrue();
    assertThat(named.encodingFixed(new Holder("h", Map.of("k", new Named())))).isTrue();
    assertThat(named.named()).containsExactly(Named.class.getName());
    assertThat(DEFAULT.encodingFixed(new Named())).isFalse();
  }

  @Test
  void encodingFixed_deeperThanMaxDepth_falseAndRecordsWithin_true() {
    assertThat(DEFAULT.encodingFixed(chain(ImmutableTypes.MAX_DEPTH))).isTrue();
    assertThat(DEFAULT.encodingFixed(chain(ImmutableTypes.MAX_DEPTH + 1))).isFalse();
  }

  /** Past the values it may look at, a value is re-encoded rather than walked further. */
  @Test
  void encodingFixed_moreValuesThanMaxValues_false() {
    List<String> within = IntStream.range(0, ImmutableTypes.MAX_VALUES - 1).mapToObj(i -> "v" + i).toList();
    List<String> beyond = IntStream.range(0, ImmutableTypes.MAX_VALUES).mapToObj(i -> "v" + i).toList();

    assertThat(DEFAULT.encodingFixed(within)).isTrue();
    assertThat(DEFAULT.encodingFixed(beyond)).isFalse();
  }

  /** Shared values are counted each time they are met: a graph of shared records cannot run away. */
  @Test
  void encodingFixed_sharedRecordsGrowingExponentially_falseWithinTheBudget() {
    Object shared = "leaf";
    for (int i = 0; i < 60; i++) {
      shared = new Holder("level", List.of(shared, shared));
    }

    assertThat(DEFAULT.encodingFixed(shared)).isFalse();
  }

  @Test
  void of_blankOrNullName_refusedNamingTheSetting() {
    assertThatThrownBy(() -> ImmutableTypes.of(List.of(" ")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("immutableTypes");
    assertThatThrownBy(() -> ImmutableTypes.of(Arrays.asList("a.B", null)))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("immutableTypes");
    assertThat(ImmutableTypes.of(List.of())).isSameAs(ImmutableTypes.NONE_NAMED);
  }

  /** The decision per class is computed once and shared: threads racing on a new class agree. */
  @Test
  void encodingFixed_manyThreadsAtOnce_sameAnswers() {
    ImmutableTypes types = ImmutableTypes.of(List.of(Named.class.getName()));
    Holder fixed = new Holder("h", List.of(new Named(), new Line("s", 1, null, null)));
    Holder mutable = new Holder("h", List.of(new Named(), new ArrayList<>()));

    assertThat(IntStream.range(0, 64).parallel()
        .mapToObj(i -> types.encodingFixed(fixed) + "/" + types.encodingFixed(mutable)).distinct())
        .containsExactly("true/false");
  }

  /** Records nested {@code depth} levels below the top one. */
  private static Node chain(int depth) {
    Node node = new Node(depth, null);
    for (int i = depth - 1; i >= 0; i--) {
      node = new Node(i, node);
    }
    return node;
  }
}
