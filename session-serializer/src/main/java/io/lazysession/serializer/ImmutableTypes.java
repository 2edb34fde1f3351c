package io.lazysession.serializer;

import java.lang.annotation.Annotation;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
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
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Currency;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Values whose encoding cannot change after they were decoded, so that a value read and not set again
 * needs no re-encoding to know it is unchanged ({@link EnvelopeLazyValue#currentBytes()}). One per
 * serializer (it holds the application's named classes); thread-safe.
 *
 * <p>Decided by a value's exact class, never by {@code instanceof} (a subclass can add mutable state:
 * {@code BigDecimal} and {@code BigInteger} are not final), once per class ({@link ClassValue}):
 * <ul>
 *   <li>fixed: the JDK value types of {@link #exactTypes()}, enum constants (both codecs encode them by
 *   name, whatever their fields), the empty collections of {@link Collections}, and classes the
 *   application marks ({@link Immutable}, {@code net.jcip}'s or Error Prone's {@code @Immutable},
 *   declared on the class itself) or names ({@link AttributeSerializer.Builder#immutableTypes});
 *   <li>fixed when what they hold is, checked per value: records (their fields are final and, unlike
 *   other classes' final fields, cannot be set by reflection) and the JDK's unmodifiable collections
 *   that own their elements ({@code List.of}, {@code Set.of}, {@code Map.of} and their copies,
 *   {@code Stream.toList()}, {@code Collections.singleton*}, {@code Map.entry});
 *   <li>never: arrays, records with an array component, and every other class, among them the views
 *   of {@code Collections.unmodifiable*}: the collection behind such a view may be held and changed
 *   elsewhere (a value the application set keeps being compared at later saves of the same session
 *   object), so a view is only as immutable as a collection this check cannot see.
 * </ul>
 * A record component declared with a final fixed type (a {@code String}, an enum, a primitive) is
 * decided once for the class; any other (an {@code Object}, an interface, a record) is decided by the
 * class of the value it holds. The walk through what a value holds stops past {@link #MAX_DEPTH} levels
 * or {@link #MAX_VALUES} values and answers "not fixed": the value is then re-encoded, as before. It
 * cannot loop: records and these collections get their contents before they exist, so they form no
 * cycle, and the walk enters nothing else.
 */
final class ImmutableTypes {
  /** Values nested deeper below the value checked are not looked at: it is re-encoded instead. */
  static final int MAX_DEPTH = 16;
  /**
   * Values looked at, at most, per value checked: past it, the value is re-encoded instead. Looking
   * at a value costs a few nanoseconds, re-encoding it tens (docs/serializer-benchmarks.md).
   */
  static final int MAX_VALUES = 10_000;
  static final ImmutableTypes NONE_NAMED = new ImmutableTypes(Set.of());

  private static final Set<Class<?>> EXACT = Set.of(String.class, Boolean.class, Character.class,
      Byte.class, Short.class, Integer.class, Long.class, Float.class, Double.class, BigDecimal.class,
      BigInteger.class, UUID.class, Locale.class, Currency.class, Instant.class, LocalDate.class,
      LocalDateTime.class, LocalTime.class, ZonedDateTime.class, OffsetDateTime.class,
      OffsetTime.class, Duration.class, Period.class, Year.class, YearMonth.class, MonthDay.class,
      ZoneOffset.class, ZoneId.of("Europe/Paris").getClass());
  private static final Set<Class<?>> EMPTY = classesOf(Collections.emptyList(),
      Collections.emptySet(), Collections.emptyMap());
  private static final Set<Class<?>> ELEMENTS = classesOf(List.of(), List.of(1), List.of(1, 2, 3),
      List.of(1, 2, 3).subList(0, 2), Set.of(), Set.of(1), Set.of(1, 2, 3),
      Collections.singletonList(1), Collections.singleton(1));
  private static final Set<Class<?>> MAPS = classesOf(Map.of(), Map.of(1, 1), Map.of(1, 1, 2, 2),
      Collections.singletonMap(1, 1));
  private static final Set<Class<?>> ENTRIES = classesOf(Map.entry(1, 1),
      new AbstractMap.SimpleImmutableEntry<>(1, 1));
  /** Annotations that say the same as {@link Immutable}, by name: none of them is a dependency. */
  private static final Set<String> MARKERS = Set.of(Immutable.class.getName(),
      "net.jcip.annotations.Immutable", "com.google.errorprone.annotations.Immutable");

  private final Set<String> named;
  private final ClassValue<Kind> kinds = new ClassValue<>() {
    @Override
    protected Kind computeValue(Class<?> type) {
      return classify(type);
    }
  };

  private ImmutableTypes(Set<String> named) {
    this.named = named;
  }

  /**
   * With the application's classes {@code classNames} (binary names, as {@link Class#getName()}).
   *
   * @throws IllegalArgumentException if a name is blank
   */
  static ImmutableTypes of(Collection<String> classNames) {
    Set<String> names = new LinkedHashSet<>();
    for (String name : Objects.requireNonNull(classNames, "immutableTypes must not be null")) {
      if (Objects.requireNonNull(name, "immutableTypes must not contain null").isBlank()) {
        throw new IllegalArgumentException("immutableTypes must hold class names, was '" + name + "'");
      }
      names.add(name.strip());
    }
    return names.isEmpty() ? NONE_NAMED : new ImmutableTypes(Collections.unmodifiableSet(names));
  }

  /** The application's classes named immutable. */
  Set<String> named() {
    return named;
  }

  /** The JDK classes whose exact instances qualify (enums aside). */
  static Set<Class<?>> exactTypes() {
    return EXACT;
  }

  /** Whether {@code value}'s encoding is fixed for as long as it lives. */
  boolean encodingFixed(Object value) {
    return remaining(value, 0, MAX_VALUES) >= 0;
  }

  /**
   * {@code budget} less the values looked at to find {@code value} fixed, or -1 when it is not (or
   * could not be told within {@code budget} values and {@link #MAX_DEPTH} levels).
   */
  private int remaining(@Nullable Object value, int depth, int budget) {
    if (value == null) {
      return budget;
    }
    Kind kind = kinds.get(value.getClass());
    if (kind == Kind.FIXED) {
      return budget - 1;
    }
    if (kind == Kind.MUTABLE || depth > MAX_DEPTH || budget <= 0) {
      return -1;
    }
    return kind.remaining(this, value, depth + 1, budget - 1);
  }

  private Kind classify(Class<?> type) {
    if (type.isArray()) {
      return Kind.MUTABLE;
    }
    if (EXACT.contains(type) || Enum.class.isAssignableFrom(type) || EMPTY.contains(type)
        || marked(type)) {
      return Kind.FIXED;
    }
    if (ELEMENTS.contains(type)) {
      return Kind.ELEMENTS;
    }
    if (MAPS.contains(type)) {
      return Kind.MAP;
    }
    if (ENTRIES.contains(type)) {
      return Kind.ENTRY;
    }
    return type.isRecord() ? record(type) : Kind.MUTABLE;
  }

  /** Named by the application, or annotated on the class itself. */
  private boolean marked(Class<?> type) {
    if (named.contains(type.getName())) {
      return true;
    }
    for (Annotation annotation : type.getDeclaredAnnotations()) {
      if (MARKERS.contains(annotation.annotationType().getName())) {
        return true;
      }
    }
    return false;
  }

  /**
   * A record's kind: fixed when every component's declared type is; else the fields to look into per
   * value; mutable with an array component, or when a field cannot be read (a record in a module that
   * does not open its package to this one).
   */
  private Kind record(Class<?> type) {
    List<Field> inspected = new ArrayList<>();
    try {
      for (RecordComponent component : type.getRecordComponents()) {
        Class<?> declared = component.getType();
        if (declared.isArray()) {
          return Kind.MUTABLE;
        }
        if (declared.isPrimitive() || fixedByDeclaration(declared)) {
          continue;
        }
        // The field, not the accessor: an accessor may return a copy of a mutable field.
        Field field = type.getDeclaredField(component.getName());
        if (!field.trySetAccessible()) {
          return Kind.MUTABLE;
        }
        inspected.add(field);
      }
    } catch (NoSuchFieldException | RuntimeException e) {
      return Kind.MUTABLE;
    }
    return inspected.isEmpty() ? Kind.FIXED : new RecordKind(inspected.toArray(Field[]::new));
  }

  /** Whatever a component declared with this type holds is fixed: no need to look at the value. */
  private boolean fixedByDeclaration(Class<?> declared) {
    return Enum.class.isAssignableFrom(declared)
        || Modifier.isFinal(declared.getModifiers()) && (EXACT.contains(declared) || marked(declared));
  }

  private static Set<Class<?>> classesOf(Object... instances) {
    return Set.copyOf(Arrays.stream(instances).map(Object::getClass).toList());
  }

  /** How a class's instances are decided. */
  private abstract static class Kind {
    static final Kind FIXED = new Kind() {};
    static final Kind MUTABLE = new Kind() {};
    static final Kind ELEMENTS = new Kind() {
      @Override
      int remaining(ImmutableTypes types, Object value, int depth, int budget) {
        for (Object element : (Collection<?>) value) {
          budget = types.remaining(element, depth, budget);
          if (budget < 0) {
            return -1;
          }
        }
        return budget;
      }
    };
    static final Kind MAP = new Kind() {
      @Override
      int remaining(ImmutableTypes types, Object value, int depth, int budget) {
        Map<?, ?> map = (Map<?, ?>) value;
        budget = ELEMENTS.remaining(types, map.keySet(), depth, budget);
        return budget < 0 ? -1 : ELEMENTS.remaining(types, map.values(), depth, budget);
      }
    };
    static final Kind ENTRY = new Kind() {
      @Override
      int remaining(ImmutableTypes types, Object value, int depth, int budget) {
        Map.Entry<?, ?> entry = (Map.Entry<?, ?>) value;
        budget = types.remaining(entry.getKey(), depth, budget);
        return budget < 0 ? -1 : types.remaining(entry.getValue(), depth, budget);
      }
    };

    /** As {@link ImmutableTypes#remaining}, for what {@code value} holds. */
    int remaining(ImmutableTypes types, Object value, int depth, int budget) {
      return -1;
    }
  }

  /** A record some of whose components are decided by the value they hold. */
  private static final class RecordKind extends Kind {
    private final Field[] fields;

    RecordKind(Field[] fields) {
      this.fields = fields;
    }

    @Override
    int remaining(ImmutableTypes types, Object value, int depth, int budget) {
      for (Field field : fields) {
        try {
          budget = types.remaining(field.get(value), depth, budget);
        } catch (IllegalAccessException e) {
          return -1;
        }
        if (budget < 0) {
          return -1;
        }
      }
      return budget;
    }
  }
}
