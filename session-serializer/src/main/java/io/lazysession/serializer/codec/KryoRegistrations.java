package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.serializers.DefaultSerializers;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JDK classes written by id instead of by name, to keep payloads small. Part of the wire format:
 * an id, once published, always means the same class. Append new ones at the end with the next id.
 */
final class KryoRegistrations {
  /** First id used here; Kryo's own primitive and String registrations take 0 to 9. */
  static final int FIRST_ID = 16;

  private KryoRegistrations() {}

  static List<Class<?>> classes() {
    return List.of(
        // 16..
        ArrayList.class, LinkedList.class, HashMap.class, LinkedHashMap.class, TreeMap.class,
        HashSet.class, LinkedHashSet.class, TreeSet.class, ConcurrentHashMap.class,
        Arrays.asList().getClass(),
        // 26..: List.of / Set.of / Map.of implementations
        List.of().getClass(), List.of(1).getClass(), Set.of().getClass(), Set.of(1).getClass(),
        Map.of().getClass(), Map.of(1, 1).getClass(),
        // 32..: Collections factories
        Collections.emptyList().getClass(), Collections.emptySet().getClass(),
        Collections.emptyMap().getClass(), Collections.singletonList(1).getClass(),
        Collections.singleton(1).getClass(), Collections.singletonMap(1, 1).getClass(),
        // 38..: value types
        BigDecimal.class, BigInteger.class, UUID.class, Date.class, Optional.class,
        // 43..: java.time
        Instant.class, LocalDate.class, LocalDateTime.class, LocalTime.class, ZonedDateTime.class,
        OffsetDateTime.class, Duration.class, Period.class, ZoneOffset.class,
        ZoneId.of("Europe/Paris").getClass(),
        // 53..: arrays
        Object[].class, String[].class, byte[].class, int[].class, long[].class);
  }

  static void register(Kryo kryo) {
    kryo.addDefaultSerializer(UUID.class, new DefaultSerializers.UUIDSerializer());
    int id = FIRST_ID;
    for (Class<?> type : classes()) {
      kryo.register(type, id++);
    }
  }
}
