package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.reference.Enums;
import io.lazysession.serializer.reference.ReferenceSession;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ImmutableTypesTest {
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
      assertThat(ImmutableTypes.encodingFixed(value)).as(value.getClass().getName()).isTrue();
    }
  }

  @Test
  void encodingFixed_subclassesAndMutableValues_false() {
    Object mutableDecimal = new BigDecimal("1.50") {
      int extra;
    };
    Object mutableInteger = new BigInteger("10") {};
    for (Object value : List.of(mutableDecimal, mutableInteger, new ArrayList<>(), new Date(),
        new AtomicInteger(), new int[] {1}, new StringBuilder("x"), ReferenceSession.create().get("cart"),
        List.of("immutable list, mutable elements possible"))) {
      assertThat(ImmutableTypes.encodingFixed(value)).as(value.getClass().getName()).isFalse();
    }
  }
}
