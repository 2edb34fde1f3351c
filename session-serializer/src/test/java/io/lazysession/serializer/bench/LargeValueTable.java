package io.lazysession.serializer.bench;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.LazyValue;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Thread CPU of one large attribute through {@link AttributeSerializer}: encode + compress and
 * decompress + decode of a 1 MB and a 10 MB value (a byte array, a string and an object graph of
 * rows), with the default zstd and without compression, and what a request reading the value costs
 * (lazy inflation, then the change check at save). Prints the median of interleaved rounds per
 * cell, after warm-up; like {@link CpuTimeTable}, a table rather than a timed assertion.
 *
 * <p>{@code -Dlarge.sizes=1,10} (MiB), {@code -Dlarge.rounds=7}, {@code -Dlarge.only=string} narrow it.
 */
public final class LargeValueTable {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final int MIB = 1024 * 1024;
  static volatile Object sink;

  private LargeValueTable() {}

  public static void main(String[] args) {
    int rounds = Integer.getInteger("large.rounds", 7);
    String only = System.getProperty("large.only", "");
    List<Integer> sizes = new ArrayList<>();
    for (String s : System.getProperty("large.sizes", "1,10").split(",")) {
      sizes.add(Integer.parseInt(s.trim()));
    }
    Map<String, AttributeSerializer> serializers = new LinkedHashMap<>();
    AttributeSerializer zstd = AttributeSerializer.builder().allowList(Encodings.ALLOW).build();
    serializers.put("kryo+zstd", zstd);
    serializers.put("kryo", zstd.toBuilder().compression(Compression.none()).build());

    Map<String, Runnable> operations = new LinkedHashMap<>();
    Map<String, Integer> stored = new LinkedHashMap<>();
    List<String> rows = new ArrayList<>();
    for (int mib : sizes) {
      for (String kind : List.of("bytes", "string", "graph")) {
        if (!only.isEmpty() && !only.equals(kind)) {
          continue;
        }
        Object value = value(kind, mib * MIB);
        for (Map.Entry<String, AttributeSerializer> s : serializers.entrySet()) {
          AttributeSerializer serializer = s.getValue();
          String row = String.format("%-7s %3d MB  %-10s", kind, mib, s.getKey());
          byte[] envelope = serializer.serialize(value);
          stored.put(row, envelope.length);
          rows.add(row);
          operations.put(row + " encode", () -> sink = serializer.serialize(value));
          operations.put(row + " decode", () -> sink = serializer.deserialize(envelope));
          // What a request that reads the attribute costs: inflate it, then check it for change at save.
          operations.put(row + " read", () -> {
            LazyValue lazy = serializer.lazy(envelope);
            lazy.get();
            sink = lazy.currentBytes();
          });
        }
      }
    }
    Map<String, Double> millis = measure(operations, rounds);
    System.out.printf("%-26s %14s %14s %18s %12s%n", "value", "encode ms/op", "decode ms/op",
        "read+check ms/op", "stored B");
    for (String row : rows) {
      System.out.printf("%-26s %14.2f %14.2f %18.2f %12d%n", row, millis.get(row + " encode"),
          millis.get(row + " decode"), millis.get(row + " read"), stored.get(row));
    }
  }

  /**
   * A value whose Kryo payload is about {@code bytes} long and compresses like text (about 3:1): words
   * from a small vocabulary in a seeded order, so every run measures the same bytes.
   */
  static Object value(String kind, int bytes) {
    SplittableRandom random = new SplittableRandom(42);
    return switch (kind) {
      case "bytes" -> text(random, bytes).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      case "string" -> text(random, bytes);
      case "graph" -> graph(random, bytes);
      default -> throw new IllegalArgumentException("unknown kind " + kind);
    };
  }

  private static final String[] WORDS = {"order", "cart", "item", "price", "customer", "shipping",
      "address", "street", "berlin", "paris", "quantity", "discount", "voucher", "total", "tax",
      "payment", "card", "invoice", "status", "pending", "shipped", "delivered", "returned", "note"};

  private static String text(SplittableRandom random, int length) {
    StringBuilder sb = new StringBuilder(length + 16);
    while (sb.length() < length) {
      sb.append(WORDS[random.nextInt(WORDS.length)]).append(random.nextInt(1000)).append(' ');
    }
    sb.setLength(length);
    return sb.toString();
  }

  /** Rows of maps (a report or a search result kept in the session): about 100 payload bytes a row. */
  private static Object graph(SplittableRandom random, int bytes) {
    int count = bytes / 100;
    List<Map<String, Object>> list = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", (long) i);
      row.put("sku", WORDS[random.nextInt(WORDS.length)] + "-" + random.nextInt(100_000));
      row.put("quantity", random.nextInt(20));
      row.put("price", random.nextInt(100_000) / 100.0);
      row.put("note", text(random, 24));
      list.add(row);
    }
    return list;
  }

  /** Thread CPU milliseconds per run of each operation: the median of interleaved rounds. */
  private static Map<String, Double> measure(Map<String, Runnable> operations, int rounds) {
    List<String> names = new ArrayList<>(operations.keySet());
    for (int i = 0; i < 3; i++) {
      for (Runnable op : operations.values()) {
        op.run();
      }
    }
    Map<String, double[]> times = new LinkedHashMap<>();
    names.forEach(n -> times.put(n, new double[rounds]));
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < names.size(); k++) {
        String name = names.get((k + r) % names.size());
        long start = THREADS.getCurrentThreadCpuTime();
        operations.get(name).run();
        times.get(name)[r] = (THREADS.getCurrentThreadCpuTime() - start) / 1e6;
      }
    }
    Map<String, Double> medians = new LinkedHashMap<>();
    times.forEach((name, values) -> {
      Arrays.sort(values);
      medians.put(name, values[values.length / 2]);
    });
    return medians;
  }
}
