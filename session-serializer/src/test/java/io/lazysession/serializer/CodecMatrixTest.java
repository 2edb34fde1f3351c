package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.fixtures.Node;
import io.lazysession.serializer.fixtures.Point;
import io.lazysession.serializer.reference.ReferenceSession;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Round trips over codec x compression (none, zstd above 0 bytes, zstd with a dictionary). */
class CodecMatrixTest {
  static final ClassAllowList ALLOW = ClassAllowList.builder()
      .allowPackage("io.lazysession.serializer.fixtures")
      .allowPackage(ReferenceSession.PACKAGE).build();

  static Stream<Arguments> matrix() {
    return Stream.of(CodecKind.values()).flatMap(codec -> Stream.of(
        Arguments.of(codec, Compression.none()),
        Arguments.of(codec, Compression.zstd(3, 0)),
        Arguments.of(codec, Compression.zstd(3, 0, TestDictionaries.reference()))));
  }

  private static AttributeSerializer serializer(CodecKind codec, Compression compression) {
    return AttributeSerializer.builder().codec(codec).compression(compression).allowList(ALLOW).build();
  }

  private static Object roundTrip(CodecKind codec, Compression compression, Object value) {
    AttributeSerializer serializer = serializer(codec, compression);
    return serializer.deserialize(serializer.serialize(value));
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void serialize_sharedReference_decodesToOneInstance(CodecKind codec, Compression compression) {
    Point shared = new Point(1, 2, "p");
    List<Object> value = new ArrayList<>(List.of(shared, shared));

    List<?> decoded = (List<?>) roundTrip(codec, compression, value);

    assertThat(decoded).isEqualTo(value);
    assertThat(decoded.get(0)).isSameAs(decoded.get(1));
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void serialize_cycle_decodesToCycle(CodecKind codec, Compression compression) {
    Node a = new Node("a");
    Node b = new Node("b");
    a.next = b;
    b.next = a;
    a.children.add(a);

    Node decoded = (Node) roundTrip(codec, compression, a);

    assertThat(decoded.name).isEqualTo("a");
    assertThat(decoded.next.name).isEqualTo("b");
    assertThat(decoded.next.next).isSameAs(decoded);
    assertThat(decoded.children).hasSize(1);
    assertThat(decoded.children.get(0)).isSameAs(decoded);
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void serialize_javaTime_roundTrips(CodecKind codec, Compression compression) {
    List<Object> value = List.of(Instant.parse("2025-01-02T03:04:05.123456789Z"),
        LocalDate.of(2025, 2, 28), LocalDateTime.of(2025, 3, 4, 5, 6, 7, 8),
        LocalTime.of(23, 59, 58), ZonedDateTime.of(2025, 1, 1, 0, 0, 0, 0, ZoneId.of("Europe/Paris")),
        OffsetDateTime.of(2025, 1, 1, 0, 0, 0, 0, ZoneOffset.ofHours(-5)), Duration.ofMillis(1234),
        Period.of(1, 2, 3), Year.of(2024), YearMonth.of(2024, 2), MonthDay.of(2, 29),
        ZoneId.of("America/New_York"), ZoneOffset.UTC, java.time.DayOfWeek.MONDAY);

    assertThat(roundTrip(codec, compression, value)).isEqualTo(value);
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void serialize_valueTypes_roundTrip(CodecKind codec, Compression compression) {
    List<Object> value = List.of(new BigDecimal("12345678901234567890.123456789"),
        new BigInteger("-98765432109876543210"), UUID.fromString("123e4567-e89b-12d3-a456-426614174000"),
        Optional.of("x"), java.util.Locale.CANADA_FRENCH, java.util.Currency.getInstance("JPY"),
        new java.util.Date(1_700_000_000_000L), 'c', (byte) 1, (short) 2, 3, 4L, 5f, 6d, true, "é€𝄞");
    Object decoded = roundTrip(codec, compression, codec == CodecKind.JDK
        ? value.stream().map(v -> v instanceof Optional<?> o ? o.get() : v).toList() : value);

    assertThat(decoded).isEqualTo(codec == CodecKind.JDK
        ? value.stream().map(v -> v instanceof Optional<?> o ? o.get() : v).toList() : value);
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void serialize_records_roundTrip(CodecKind codec, Compression compression) {
    Point value = new Point(-7, Integer.MAX_VALUE, "label");

    assertThat(roundTrip(codec, compression, value)).isEqualTo(value);
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void serialize_immutableCollections_keepTypeAndContent(CodecKind codec, Compression compression) {
    List<Object> value = List.of(List.of(), List.of(1), List.of(1, 2, 3), Set.of(), Set.of("a"),
        Set.of("a", "b", "c"), Map.of(), Map.of("k", 1), Map.of("a", 1, "b", 2, "c", 3),
        Collections.emptyList(), Collections.emptySet(), Collections.emptyMap(),
        Collections.singletonList("s"), Collections.singleton("s"), Collections.singletonMap("k", "v"),
        Arrays.asList("x", "y"));

    List<?> decoded = (List<?>) roundTrip(codec, compression, value);

    assertThat(decoded).isEqualTo(value);
    for (int i = 0; i < value.size(); i++) {
      assertThat(decoded.get(i).getClass()).as("element %s", i).isEqualTo(value.get(i).getClass());
    }
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void serialize_wrappers_keepWrapperAndContent(CodecKind codec, Compression compression) {
    TreeSet<String> sorted = new TreeSet<>(Comparator.reverseOrder());
    sorted.addAll(List.of("a", "b", "c"));
    TreeMap<String, Integer> sortedMap = new TreeMap<>(Map.of("x", 1, "y", 2));
    List<Object> value = List.of(
        Collections.unmodifiableList(new ArrayList<>(List.of(1, 2))),
        Collections.unmodifiableList(new LinkedList<>(List.of(1, 2))),
        Collections.unmodifiableCollection(new ArrayList<>(List.of(3))),
        Collections.unmodifiableSet(new java.util.LinkedHashSet<>(List.of("s"))),
        Collections.unmodifiableSortedSet(sorted), Collections.unmodifiableNavigableSet(sorted),
        Collections.unmodifiableMap(new java.util.HashMap<>(Map.of("k", "v"))),
        Collections.unmodifiableSortedMap(sortedMap), Collections.unmodifiableNavigableMap(sortedMap),
        Collections.synchronizedList(new ArrayList<>(List.of(1))),
        Collections.synchronizedList(new LinkedList<>(List.of(1))),
        Collections.synchronizedSet(new java.util.HashSet<>(Set.of(1))),
        Collections.synchronizedMap(new java.util.HashMap<>(Map.of(1, 2))),
        Collections.synchronizedSortedMap(sortedMap), Collections.synchronizedNavigableSet(sorted));

    List<?> decoded = (List<?>) roundTrip(codec, compression, value);

    for (int i = 0; i < value.size(); i++) {
      assertThat(decoded.get(i).getClass()).as("element %s", i).isEqualTo(value.get(i).getClass());
      assertThat(decoded.get(i).toString()).as("element %s", i).isEqualTo(value.get(i).toString());
    }
    assertThat(((java.util.SortedSet<?>) decoded.get(4)).first()).isEqualTo("c");
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void serialize_enumCollectionsAndMutableCollections_roundTrip(CodecKind codec,
      Compression compression) {
    EnumMap<TimeUnit, String> enumMap = new EnumMap<>(TimeUnit.class);
    enumMap.put(TimeUnit.SECONDS, "s");
    List<Object> value = List.of(enumMap, new EnumMap<>(TimeUnit.class),
        EnumSet.of(TimeUnit.DAYS, TimeUnit.HOURS), EnumSet.noneOf(TimeUnit.class),
        EnumSet.allOf(Character.UnicodeScript.class), new ArrayDeque<>(List.of(1, 2)),
        new ConcurrentHashMap<>(Map.of("a", 1)), new java.util.PriorityQueue<>(List.of(3, 1, 2)).size(),
        new TreeMap<>(Map.of("b", 2, "a", 1)), new int[] {1, 2}.length, new ArrayList<>(List.of("x")));

    List<?> decoded = (List<?>) roundTrip(codec, compression, value);

    assertThat(decoded.toString()).isEqualTo(value.toString());
    assertThat(decoded.get(1)).isInstanceOf(EnumMap.class);
    @SuppressWarnings("unchecked")
    EnumMap<TimeUnit, String> emptyDecoded = (EnumMap<TimeUnit, String>) decoded.get(1);
    emptyDecoded.put(TimeUnit.DAYS, "keyed by TimeUnit");
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void serialize_arrays_roundTrip(CodecKind codec, Compression compression) {
    Object[] value = {new byte[] {1, 2}, new int[] {3}, new long[] {4}, new double[] {5.5},
        new boolean[] {true}, new char[] {'c'}, new String[] {"s", null}, new Point[] {new Point(1, 1, "")},
        new Object[] {1, "x"}, new int[][] {{1}, {2, 3}}};

    Object[] decoded = (Object[]) roundTrip(codec, compression, value);

    assertThat(java.util.Arrays.deepEquals(decoded, value)).isTrue();
    assertThat(decoded[7]).isInstanceOf(Point[].class);
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void serialize_referenceSession_everyAttributeRoundTrips(CodecKind codec, Compression compression) {
    AttributeSerializer serializer = serializer(codec, compression);
    for (Map<String, Object> session : List.of(ReferenceSession.small(), ReferenceSession.create())) {
      for (Map.Entry<String, Object> e : session.entrySet()) {
        assertThat(serializer.deserialize(serializer.serialize(e.getValue()))).as(e.getKey())
            .isEqualTo(e.getValue());
      }
    }
  }
}
