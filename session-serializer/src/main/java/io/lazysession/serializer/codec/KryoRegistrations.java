package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.Serializer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
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
import java.util.Currency;
import java.util.Date;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The JDK classes written by id instead of by name, to keep payloads small, with the serializers that
 * Kryo's defaults lack. Part of the wire format: an id, once published, always means the same class and
 * encoding. Append new ones at the end with the next id; never reorder (golden vectors pin this).
 */
final class KryoRegistrations {
  /** First id used here; Kryo's own primitive and String registrations take 0 to 9. */
  static final int FIRST_ID = 16;

  private KryoRegistrations() {}

  /** One registration: the class and, when Kryo's default does not fit, its serializer. */
  record Entry(Class<?> type, @Nullable Serializer<?> serializer) {}

  static List<Entry> entries() {
    List<Entry> entries = new ArrayList<>();
    // 16..: mutable collections (default, size-checked serializers)
    for (Class<?> type : List.of(ArrayList.class, LinkedList.class, ArrayDeque.class, HashMap.class,
        LinkedHashMap.class, TreeMap.class, HashSet.class, LinkedHashSet.class, TreeSet.class,
        ConcurrentHashMap.class)) {
      entries.add(new Entry(type, null));
    }
    // 26..: immutable and fixed-size lists, sets and maps
    KryoSerializers.ImmutableListSerializer list = new KryoSerializers.ImmutableListSerializer();
    KryoSerializers.ImmutableSetSerializer set = new KryoSerializers.ImmutableSetSerializer();
    KryoSerializers.ImmutableMapSerializer map = new KryoSerializers.ImmutableMapSerializer();
    entries.add(new Entry(Arrays.asList().getClass(), new KryoSerializers.ArraysAsListSerializer()));
    entries.add(new Entry(List.of().getClass(), list));
    entries.add(new Entry(List.of(1).getClass(), list));
    entries.add(new Entry(Set.of().getClass(), set));
    entries.add(new Entry(Set.of(1).getClass(), set));
    entries.add(new Entry(Map.of().getClass(), map));
    entries.add(new Entry(Map.of(1, 1).getClass(), map));
    // 33..: Collections factories (Kryo's serializers)
    for (Class<?> type : List.of(Collections.emptyList().getClass(), Collections.emptySet().getClass(),
        Collections.emptyMap().getClass(), Collections.singletonList(1).getClass(),
        Collections.singleton(1).getClass(), Collections.singletonMap(1, 1).getClass())) {
      entries.add(new Entry(type, null));
    }
    // 39..: unmodifiable and synchronized wrappers, in Wrapper order
    for (KryoSerializers.Wrapper wrapper : KryoSerializers.Wrapper.values()) {
      entries.add(new Entry(wrapper.type(), new KryoSerializers.WrapperSerializer(wrapper)));
    }
    // 57..: enum collections
    entries.add(new Entry(EnumMap.class, new KryoSerializers.EnumMapSerializer()));
    entries.add(new Entry(EnumSet.noneOf(TimeUnit.class).getClass(), null));
    entries.add(new Entry(EnumSet.noneOf(Character.UnicodeScript.class).getClass(), null));
    // 60..: value types
    for (Class<?> type : List.of(BigDecimal.class, BigInteger.class, UUID.class, Date.class,
        Optional.class, Locale.class, Currency.class,
        // 67..: java.time
        Instant.class, LocalDate.class, LocalDateTime.class, LocalTime.class, ZonedDateTime.class,
        OffsetDateTime.class, OffsetTime.class, Duration.class, Period.class, Year.class,
        YearMonth.class, MonthDay.class, ZoneOffset.class, ZoneId.of("Europe/Paris").getClass(),
        // 81..: arrays
        Object[].class, String[].class, byte[].class, int[].class, long[].class, double[].class,
        boolean[].class, char[].class)) {
      entries.add(new Entry(type, null));
    }
    // 89..: java.net, rebuilt from strings (a URL without DNS lookups)
    entries.add(new Entry(java.net.URL.class, new JavaNetSerializers.UrlSerializer()));
    entries.add(new Entry(java.net.URI.class, new JavaNetSerializers.UriSerializer()));
    // 91: certificates of any provider's class, as type and encoded form (CollectionCopies
    // writes every subclass under this id)
    entries.add(new Entry(java.security.cert.Certificate.class, new CertificateSerializer()));
    return entries;
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  static void register(Kryo kryo) {
    int id = FIRST_ID;
    for (Entry entry : entries()) {
      if (entry.serializer() == null) {
        kryo.register(entry.type(), id++);
      } else {
        kryo.register(entry.type(), (Serializer) entry.serializer(), id++);
      }
    }
  }
}
