package io.lazysession.serializer.bench;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.LazyValue;
import io.lazysession.serializer.reference.Cart;
import io.lazysession.serializer.reference.Records;
import io.lazysession.serializer.reference.ReferenceSession;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The change check at save ({@link LazyValue#currentBytes()} of a value read and not changed) and the
 * read-only request (wrap, read, check) for values that cannot change: records of immutable values,
 * {@code List.of}s of records, and long {@code List.of}s of strings (the walk through a value's
 * elements against re-encoding it; the longest is past the walk's bound, so it is walked and then
 * re-encoded). Uses the public API only, so the same test classes time an older
 * build of the main classes, which re-encodes these values; prints the median of interleaved rounds
 * after warm-up, like {@link CpuTimeTable}; a table, never an assertion.
 */
public final class ImmutableReadCpuTable {
  private static final int WARM_UP = Integer.getInteger("bench.warmUp", 3000);
  private static final int ROUNDS = Integer.getInteger("bench.rounds", 11);
  private static final int PER_ROUND = Integer.getInteger("bench.perRound", 500);
  static volatile Object sink;

  private ImmutableReadCpuTable() {}

  /** Immutable values of the reference session's shapes (name to value). */
  static Map<String, Object> values() {
    Map<String, Object> reference = ReferenceSession.create();
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("csrfToken", reference.get("csrfToken")); // record of three strings
    values.put("lastSearch", reference.get("lastSearch")); // record holding Map.of of List.of
    values.put("cartLines", List.copyOf(((Cart) reference.get("cart")).items())); // List.of records
    values.put("recentlyViewed", List.copyOf((List<?>) reference.get("recentlyViewed")));
    values.put("strings1k", IntStream.range(0, 1000).mapToObj(i -> "SKU-" + i).toList());
    values.put("strings9k", IntStream.range(0, 9000).mapToObj(i -> "SKU-" + i).toList());
    // past the values a check looks at (10,000): walked that far, then re-encoded
    values.put("strings12k", IntStream.range(0, 12_000).mapToObj(i -> "SKU-" + i).toList());
    return values;
  }

  public static void main(String[] args) {
    AttributeSerializer serializer = AttributeSerializer.builder().allowList(Encodings.ALLOW).build();
    Map<String, Object> values = values();
    Map<String, Runnable> operations = new LinkedHashMap<>();
    Map<String, byte[]> stored = new LinkedHashMap<>();
    values.forEach((name, value) -> {
      byte[] envelope = serializer.serialize(value);
      stored.put(name, envelope);
      LazyValue read = serializer.lazy(envelope);
      read.get();
      if (read.isModified()) {
        throw new IllegalStateException("a value read and not changed reports a change: " + name);
      }
      operations.put(name + " check", () -> sink = read.currentBytes());
      operations.put(name + " read-only", () -> {
        LazyValue lazy = serializer.lazy(envelope);
        lazy.get();
        sink = lazy.currentBytes();
      });
    });
    List<String> small = List.of("csrfToken", "lastSearch", "cartLines", "recentlyViewed");
    operations.put("4 values read-only", () -> small.forEach(name -> {
      LazyValue lazy = serializer.lazy(stored.get(name));
      lazy.get();
      sink = lazy.currentBytes();
    }));
    Map<String, Double> micros = CpuTimeTable.measure(operations, WARM_UP, ROUNDS, PER_ROUND);
    System.out.printf("%-26s %8s %10s%n", "operation", "bytes", "us/op");
    micros.forEach((name, us) -> System.out.printf("%-26s %8s %10.2f%n", name,
        stored.containsKey(name.split(" ")[0]) ? stored.get(name.split(" ")[0]).length : "", us));
  }
}
