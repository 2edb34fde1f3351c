package io.lazysession.serializer.bench;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.LazyValue;
import io.lazysession.serializer.reference.ReferenceSession;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The same operations as {@link SessionCodecBenchmark} and {@link LazyReadBenchmark}, timed in thread
 * CPU time rather than wall time: on a shared 2-core machine other processes steal the CPU and make
 * JMH's throughput swing tenfold, while the CPU time this thread spends per operation stays put. Prints
 * the median of 9 interleaved rounds per operation, after warm-up. Not a JMH replacement: a cross-check.
 */
public final class CpuTimeTable {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final int WARM_UP = 3000;
  private static final int ROUNDS = 9;
  private static final int PER_ROUND = 500;
  static volatile Object sink;

  private CpuTimeTable() {}

  /**
   * Every operation is warmed up first, then measured in interleaved rounds (each round runs every
   * operation once, starting at a different one), so no encoding profits from running after the others
   * have warmed the JIT, and a burst of load on the machine hits all of them alike.
   */
  public static void main(String[] args) {
    List<String> encodings = List.of("jdk", "jdk+zstd", "kryo", "kryo+zstd", "kryo+zstd+dict",
        "kryo-plain", "kryo-plain+zstd");
    List<Object> values = new ArrayList<>(ReferenceSession.create().values());
    Map<String, Runnable> operations = new LinkedHashMap<>();
    Map<String, Long> bytes = new LinkedHashMap<>();
    for (String name : encodings) {
      Encodings.Encoding encoding = Encodings.of(name);
      List<byte[]> stored = new ArrayList<>();
      for (Object value : values) {
        stored.add(encoding.encode(value));
      }
      bytes.put(name, stored.stream().mapToLong(b -> b.length).sum());
      operations.put(name + " encode", () -> {
        for (Object value : values) {
          sink = encoding.encode(value);
        }
      });
      operations.put(name + " decode", () -> {
        for (byte[] b : stored) {
          sink = encoding.decode(b);
        }
      });
    }
    AttributeSerializer serializer = AttributeSerializer.builder().allowList(Encodings.ALLOW).build();
    Map<String, byte[]> session = new LinkedHashMap<>();
    ReferenceSession.create().forEach((name, value) -> session.put(name, serializer.serialize(value)));
    operations.put("lazy all", () -> {
      for (byte[] b : session.values()) {
        sink = serializer.lazy(b).get();
      }
    });
    List<String> lazyAttributes = List.of("cart", "user", "report");
    for (String attribute : lazyAttributes) {
      operations.put("lazy " + attribute, () -> {
        LazyValue read = null;
        for (Map.Entry<String, byte[]> e : session.entrySet()) {
          LazyValue lazy = serializer.lazy(e.getValue());
          if (e.getKey().equals(attribute)) {
            read = lazy;
          }
        }
        sink = read.get();
      });
      // a read-only request: the one value read is checked for change at save (nothing to write)
      operations.put("readonly " + attribute, () -> {
        LazyValue read = null;
        for (Map.Entry<String, byte[]> e : session.entrySet()) {
          LazyValue lazy = serializer.lazy(e.getValue());
          if (e.getKey().equals(attribute)) {
            read = lazy;
          }
        }
        read.get();
        sink = read.currentBytes();
      });
    }

    Map<String, Double> micros = measure(operations);
    System.out.printf("%-16s %14s %14s %12s%n", "encoding", "encode us/op", "decode us/op", "bytes");
    for (String name : encodings) {
      System.out.printf("%-16s %14.1f %14.1f %12d%n", name, micros.get(name + " encode"),
          micros.get(name + " decode"), bytes.get(name));
    }
    double jdkDecode = micros.get("jdk decode");
    for (String name : List.of("kryo", "kryo+zstd", "kryo+zstd+dict")) {
      System.out.printf("%-16s decode %.1fx faster than jdk, bytes 1/%.1f of jdk%n", name,
          jdkDecode / micros.get(name + " decode"), (double) bytes.get("jdk") / bytes.get(name));
    }
    System.out.printf("compatible vs plain Kryo: encode %.2fx, decode %.2fx, bytes %.2fx (%.2fx with zstd)%n",
        micros.get("kryo encode") / micros.get("kryo-plain encode"),
        micros.get("kryo decode") / micros.get("kryo-plain decode"),
        (double) bytes.get("kryo") / bytes.get("kryo-plain"),
        (double) bytes.get("kryo+zstd") / bytes.get("kryo-plain+zstd"));
    double all = micros.get("lazy all");
    for (String attribute : lazyAttributes) {
      double one = micros.get("lazy " + attribute);
      System.out.printf("lazy read of '%s': %.1f us vs all twelve %.1f us = 1/%.1f%n", attribute, one, all,
          all / one);
    }
    for (String attribute : lazyAttributes) {
      double readOnly = micros.get("readonly " + attribute);
      System.out.printf("read-only request reading '%s' (read + change check at save): %.1f us, of which "
          + "the check %.1f us%n", attribute, readOnly, readOnly - micros.get("lazy " + attribute));
    }
  }

  /** Thread CPU microseconds per run of each operation: the median of interleaved rounds. */
  private static Map<String, Double> measure(Map<String, Runnable> operations) {
    return measure(operations, WARM_UP, ROUNDS, PER_ROUND);
  }

  /**
   * Thread CPU microseconds per run of each operation, the median of {@code rounds} interleaved
   * rounds of {@code perRound} runs after {@code warmUp} runs of every operation.
   */
  static Map<String, Double> measure(Map<String, Runnable> operations, int warmUp, int rounds,
      int perRound) {
    List<String> names = new ArrayList<>(operations.keySet());
    for (int i = 0; i < warmUp; i++) {
      for (Runnable op : operations.values()) {
        op.run();
      }
    }
    Map<String, double[]> times = new LinkedHashMap<>();
    names.forEach(n -> times.put(n, new double[rounds]));
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < names.size(); k++) {
        String name = names.get((k + r) % names.size());
        Runnable op = operations.get(name);
        long start = THREADS.getCurrentThreadCpuTime();
        for (int i = 0; i < perRound; i++) {
          op.run();
        }
        times.get(name)[r] = (THREADS.getCurrentThreadCpuTime() - start) / 1000.0 / perRound;
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
