package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.AttributeSerializer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A session loaded from a map it shares with the near cache: it reads that map and never changes
 * it, whatever the request does.
 */
class LazySessionLoadTest {
  static final AttributeSerializer SERIALIZER = TestRedis.serializer();
  static final SessionContext CONTEXT = SessionContext.of(SERIALIZER,
      () -> UUID.randomUUID().toString(), Clock.systemUTC(),
      new DecodeFailureHandler(DecodeFailurePolicy.DROP_ATTRIBUTE, new MetricsRecorder()), null);

  static Map<String, byte[]> stored() {
    Map<String, byte[]> stored = new LinkedHashMap<>();
    stored.put("cart", SERIALIZER.ofValue(List.of("apple", "pear")).originalBytes());
    stored.put("visits", SERIALIZER.ofValue(42).originalBytes());
    stored.put("currency", SERIALIZER.ofValue("EUR").originalBytes());
    return Collections.unmodifiableMap(stored);
  }

  static LazySession loaded(Map<String, byte[]> stored) {
    LazySession session = new LazySession(CONTEXT, "id", Instant.now(), Instant.now(),
        Duration.ofMinutes(30), 3, null, 0);
    session.loaded(stored);
    return session;
  }

  @Test
  void loaded_readOnlyRequest_hasNothingToWriteAndDecodedOnlyWhatItRead() {
    LazySession session = loaded(stored());

    assertThat(session.<Integer>getAttribute("visits")).isEqualTo(42);

    assertThat(session.changedAttributes()).isEmpty();
    assertThat(session.removedNames()).isEmpty();
    assertThat(session.inflation()).isEqualTo(new LazySession.Inflation(1, 2));
    assertThat(session.getAttributeNames()).containsExactly("cart", "visits", "currency");
  }

  @Test
  void loaded_removeAndCommit_leavesTheSharedMapAsItWas() {
    Map<String, byte[]> stored = stored();
    LazySession session = loaded(stored);
    session.removeAttribute("cart");
    session.setAttribute("visits", 43);

    Map<String, byte[]> writes = session.changedAttributes();
    Set<String> removes = session.removedNames();
    session.committed(4, writes, removes, false, null, 0);

    assertThat(writes).containsOnlyKeys("visits");
    assertThat(removes).containsExactly("cart");
    assertThat(stored).containsOnlyKeys("cart", "visits", "currency");
    assertThat(session.removedNames()).isEmpty();
    assertThat(session.storedAttributes()).containsOnlyKeys("visits", "currency");
  }

  @Test
  void loaded_setAfterRead_keepsStoredOrderAndWritesOnlyTheSetOne() {
    LazySession session = loaded(stored());
    assertThat(session.<String>getAttribute("currency")).isEqualTo("EUR");

    session.setAttribute("visits", 43);
    session.setAttribute("coupon", "SAVE10");

    assertThat(session.getAttributeNames()).containsExactly("cart", "visits", "currency", "coupon");
    assertThat(session.changedAttributes()).containsOnlyKeys("visits", "coupon");
    assertThat(session.<Integer>getAttribute("visits")).isEqualTo(43);
    assertThat(session.<List<String>>getAttribute("cart")).containsExactly("apple", "pear");
    assertThat(session.attributeInfo()).extracting(AttributeInfo::name)
        .containsExactly("cart", "visits", "currency", "coupon");
  }

  @Test
  void loaded_missingName_isNullAndChangesNothing() {
    LazySession session = loaded(stored());

    assertThat((Object) session.getAttribute("nothing")).isNull();

    assertThat(session.changedAttributes()).isEmpty();
    assertThat(session.inflation()).isEqualTo(new LazySession.Inflation(0, 3));
  }

  @Test
  void loaded_touchOnlyCommit_keepsEveryStoredName() {
    LazySession session = loaded(stored());

    session.committed(4, Map.of(), Set.of(), false, null, 0);
    session.removeAttribute("currency");

    assertThat(session.removedNames()).containsExactly("currency");
  }

  @Test
  void loaded_setOfALoadedNameCommitted_storesTheNewBytesInStoredOrderWithoutCopyingTheNames() {
    Map<String, byte[]> stored = stored();
    LazySession session = loaded(stored);
    assertThat(session.<List<String>>getAttribute("cart")).containsExactly("apple", "pear");
    session.setAttribute("cart", List.of("apple", "pear", "plum"));

    Map<String, byte[]> writes = session.changedAttributes();
    session.committed(4, writes, session.removedNames(), false, null, 0);

    assertThat(writes).containsOnlyKeys("cart");
    assertThat(session.storedAttributes()).containsExactly(
        Map.entry("cart", writes.get("cart")), Map.entry("visits", stored.get("visits")),
        Map.entry("currency", stored.get("currency")));
    assertThat(session.inflation()).isEqualTo(new LazySession.Inflation(1, 2));
    assertThat(session.changedAttributes()).isEmpty();
    assertThat(session.removedNames()).isEmpty();
    session.removeAttribute("visits");
    assertThat(session.removedNames()).containsExactly("visits");
    assertThat(session.getAttributeNames()).containsExactly("cart", "currency");
    assertThat(session.<List<String>>getAttribute("cart")).containsExactly("apple", "pear", "plum");
    assertThat(stored).containsOnlyKeys("cart", "visits", "currency");
  }

  @Test
  void loaded_setOfALoadedNameTwiceWithASaveBetween_secondWriteKnowsTheFirst() {
    LazySession session = loaded(stored());
    session.setAttribute("visits", 43);
    Map<String, byte[]> first = session.changedAttributes();
    session.committed(4, first, session.removedNames(), false, null, 0);

    session.setAttribute("visits", 43);

    assertThat(session.changedAttributes()).containsOnlyKeys("visits");
    assertThat(session.attributeInfo()).extracting(AttributeInfo::name)
        .containsExactly("cart", "visits", "currency");
    assertThat(session.storedAttributes().get("visits")).isEqualTo(first.get("visits"));
  }
}
