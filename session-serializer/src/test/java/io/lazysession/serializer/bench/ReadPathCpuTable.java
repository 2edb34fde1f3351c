package io.lazysession.serializer.bench;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.LazyValue;
import io.lazysession.serializer.reference.ReferenceSession;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the serializer costs a request, in thread CPU time, with the default encoding (Kryo, zstd
 * above 256 bytes): decode, encode and the change check at save ({@link LazyValue#currentBytes()} of a
 * value that was read and not changed) of the reference {@code cart}, of the {@code user} profile, of
 * {@link ShopCart} (the store benchmark's cart) and of the whole reference session (twelve envelopes),
 * plus the read-only request (wrap, read, check).
 * Uses the public API only, so the same test classes can time an older build of the main classes.
 * Prints the median of interleaved rounds after warm-up, like {@link CpuTimeTable}; a table, never an
 * assertion.
 */
public final class ReadPathCpuTable {
  private static final int WARM_UP = Integer.getInteger("bench.warmUp", 5000);
  private static final int ROUNDS = Integer.getInteger("bench.rounds", 11);
  private static final int PER_ROUND = Integer.getInteger("bench.perRound", 1000);
  static volatile Object sink;

  private ReadPathCpuTable() {}

  public static void main(String[] args) {
    AttributeSerializer serializer = AttributeSerializer.builder().allowList(Encodings.ALLOW).build();
    Map<String, Object> values = ReferenceSession.create();
    Map<String, byte[]> stored = new LinkedHashMap<>();
    values.forEach((name, value) -> stored.put(name, serializer.serialize(value)));

    Map<String, Runnable> operations = new LinkedHashMap<>();
    for (String attribute : List.of("cart", "user", "shopCart")) {
      Object value = attribute.equals("shopCart") ? ShopCart.reference() : values.get(attribute);
      byte[] envelope = serializer.serialize(value);
      LazyValue read = serializer.lazy(envelope);
      read.get();
      operations.put(attribute + " decode", () -> sink = serializer.deserialize(envelope));
      operations.put(attribute + " encode", () -> sink = serializer.serialize(value));
      operations.put(attribute + " check", () -> sink = read.currentBytes());
      operations.put(attribute + " read-only", () -> {
        LazyValue lazy = serializer.lazy(envelope);
        lazy.get();
        sink = lazy.currentBytes();
      });
    }
    List<byte[]> envelopes = new ArrayList<>(stored.values());
    List<LazyValue> inflated = new ArrayList<>();
    for (byte[] envelope : envelopes) {
      LazyValue lazy = serializer.lazy(envelope);
      lazy.get();
      inflated.add(lazy);
    }
    operations.put("session decode", () -> envelopes.forEach(e -> sink = serializer.deserialize(e)));
    operations.put("session encode", () -> values.values().forEach(v -> sink = serializer.serialize(v)));
    operations.put("session check", () -> inflated.forEach(l -> sink = l.currentBytes()));
    operations.put("session read-only", () -> envelopes.forEach(e -> {
      LazyValue lazy = serializer.lazy(e);
      lazy.get();
      sink = lazy.currentBytes();
    }));

    for (LazyValue lazy : inflated) {
      if (lazy.isModified()) {
        throw new IllegalStateException("a value read and not changed reports a change: " + lazy);
      }
    }
    String only = System.getProperty("bench.only"); // one operation, e.g. to profile it
    if (only != null) {
      operations.keySet().retainAll(List.of(only));
    }
    Map<String, Double> micros = CpuTimeTable.measure(operations, WARM_UP, ROUNDS, PER_ROUND);
    System.out.printf("%-20s %10s%n", "operation", "us/op");
    micros.forEach((name, us) -> System.out.printf("%-20s %10.2f%n", name, us));
  }
}
