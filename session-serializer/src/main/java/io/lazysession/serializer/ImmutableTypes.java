package io.lazysession.serializer;

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
import java.util.Currency;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

/**
 * Values whose encoding cannot change after they were decoded, so that a value read and not set again
 * needs no re-encoding to know it is unchanged. Decided by the value's exact class, never by
 * {@code instanceof}: {@code BigDecimal} and {@code BigInteger} are not final, and a subclass could hold
 * mutable state. Every other class here is final, and all are immutable with immutable state; an enum
 * constant qualifies whatever its fields, because both codecs encode it by name only.
 */
final class ImmutableTypes {
  private static final Set<Class<?>> EXACT = Set.of(String.class, Boolean.class, Character.class,
      Byte.class, Short.class, Integer.class, Long.class, Float.class, Double.class, BigDecimal.class,
      BigInteger.class, UUID.class, Locale.class, Currency.class, Instant.class, LocalDate.class,
      LocalDateTime.class, LocalTime.class, ZonedDateTime.class, OffsetDateTime.class,
      OffsetTime.class, Duration.class, Period.class, Year.class, YearMonth.class, MonthDay.class,
      ZoneOffset.class, ZoneId.of("Europe/Paris").getClass());

  private ImmutableTypes() {}

  /** The classes whose exact instances qualify (enums aside). */
  static Set<Class<?>> exactTypes() {
    return EXACT;
  }

  /** Whether {@code value}'s encoding is fixed for as long as it lives. */
  static boolean encodingFixed(Object value) {
    return value instanceof Enum<?> || EXACT.contains(value.getClass());
  }
}
