package io.lazysession.serializer.bench;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.lazy.LazyValue;
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
 * the median of 7 rounds per operation, after warm-up. Not a JMH replacement: a cross-check.
 */
public final class CpuTimeTable {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  static volatile Object sink;

  private CpuTimeTable() {}

  public static void main(String[] args) {
    List<String> encodings = List.of("jdk", "jdk+zstd", "kryo", "kryo+zstd", "kryo+zstd+dict",
        "kryo-plain", "kryo-plain+zstd");
    List<Object> values = new ArrayList<>(ReferenceSession.create().values());
    System.out.printf("%-16s %14s %14s %12s%n", "encoding", "encode us/op", "decode us/op", "bytes");
    Map<String, double[]> results = new LinkedHashMap<>();
    for (String name : encodings) {
      Encodings.Encoding encoding = Encodings.of(name);
      List<byte[]> stored = new ArrayList<>();
      for (Object value : values) {
        stored.add(encoding.encode(value));
      }
      long bytes = stored.stream().mapToLong(b -> b.length).sum();
      double encode = microsPerOp(() -> {
        for (Object value : values) {
          sink = encoding.encode(value);
        }
      });
      double decode = microsPerOp(() -> {
        for (byte[] b : stored) {
          sink = encoding.decode(b);
        }
      });
      results.put(name, new double[] {encode, decode, bytes});
      System.out.printf("%-16s %14.1f %14.1f %12d%n", name, encode, decode, bytes);
    }
    double[] jdk = results.get("jdk");
    for (String name : List.of("kryo", "kryo+zstd", "kryo+zstd+dict")) {
      double[] r = results.get(name);
      System.out.printf("%-16s decode %.1fx faster than jdk, bytes 1/%.1f of jdk%n", name, jdk[1] / r[1],
          jdk[2] / r[2]);
    }
    System.out.printf("compatible vs plain Kryo: encode %.2fx, decode %.2fx, bytes %.2fx (%.2fx with zstd)%n",
        results.get("kryo")[0] / results.get("kryo-plain")[0],
        results.get("kryo")[1] / results.get("kryo-plain")[1],
        results.get("kryo")[2] / results.get("kryo-plain")[2],
        results.get("kryo+zstd")[2] / results.get("kryo-plain+zstd")[2]);

    AttributeSerializer serializer = AttributeSerializer.builder().allowList(Encodings.ALLOW).build();
    Map<String, byte[]> session = new LinkedHashMap<>();
    ReferenceSession.create().forEach((name, value) -> session.put(name, serializer.serialize(value)));
    double all = microsPerOp(() -> {
      for (byte[] b : session.values()) {
        sink = serializer.lazy(b).get();
      }
    });
    for (String attribute : List.of("cart", "user", "report")) {
      double one = microsPerOp(() -> {
        LazyValue read = null;
        for (Map.Entry<String, byte[]> e : session.entrySet()) {
          LazyValue lazy = serializer.lazy(e.getValue());
          if (e.getKey().equals(attribute)) {
            read = lazy;
          }
        }
        sink = read.get();
      });
      System.out.printf("lazy read of '%s': %.1f us vs all twelve %.1f us = 1/%.1f%n", attribute, one, all,
          all / one);
    }
  }

  private static double microsPerOp(Runnable op) {
    for (int i = 0; i < 3000; i++) {
      op.run();
    }
    double[] rounds = new double[7];
    for (int r = 0; r < rounds.length; r++) {
      int n = 1000;
      long start = THREADS.getCurrentThreadCpuTime();
      for (int i = 0; i < n; i++) {
        op.run();
      }
      rounds[r] = (THREADS.getCurrentThreadCpuTime() - start) / 1000.0 / n;
    }
    Arrays.sort(rounds);
    return rounds[rounds.length / 2];
  }
}
