package io.lazysession.serializer.bench;

import io.lazysession.serializer.reference.ReferenceSession;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The built-in dictionary experiment, side by side in one run: stored bytes and thread CPU time to
 * encode and decode a whole session (one envelope per attribute) for the small, usual and large
 * reference sessions and for {@link UnlikeSession}, under the current default ({@code kryo+zstd}), the
 * generic dictionary of {@code BuiltInDictionaryTrainer} from N bytes ({@code kryo+builtinN}), a
 * dictionary trained on the small and large reference sessions ({@code kryo+zstd+dict}) and JDK.
 * Interleaved rounds after warm-up, median, as {@link CpuTimeTable}.
 *
 * <pre>
 * mvn -o -pl session-serializer -Pbench test-compile exec:exec \
 *     -Dbench.main=io.lazysession.serializer.bench.BuiltInDictionaryTable -Djmh.args=
 * </pre>
 */
public final class BuiltInDictionaryTable {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final int ROUNDS = 9;
  static volatile Object sink;

  private BuiltInDictionaryTable() {}

  public static void main(String[] args) {
    List<String> encodings = List.of("jdk", "kryo", "kryo+zstd", "kryo+zstd64", "kryo+builtin32", "kryo+builtin64",
        "kryo+builtin128", "kryo+builtin256", "kryo+zstd+dict");
    Map<String, Map<String, Object>> sessions = new LinkedHashMap<>();
    sessions.put("small", ReferenceSession.small());
    sessions.put("create", ReferenceSession.create());
    sessions.put("large", ReferenceSession.large());
    sessions.put("unlike", UnlikeSession.create());
    boolean timed = args.length == 0 || !args[0].equals("bytes");

    Map<String, Runnable> operations = new LinkedHashMap<>();
    Map<String, Integer> runs = new LinkedHashMap<>();
    Map<String, Long> bytes = new LinkedHashMap<>();
    for (String name : encodings) {
      Encodings.Encoding encoding = Encodings.of(name);
      for (Map.Entry<String, Map<String, Object>> session : sessions.entrySet()) {
        List<Object> values = new ArrayList<>(session.getValue().values());
        List<byte[]> stored = new ArrayList<>();
        for (Object value : values) {
          byte[] b = encoding.encode(value);
          if (!equal(encoding.decode(b), value)) {
            throw new AssertionError(name + " does not round-trip " + value);
          }
          stored.add(b);
        }
        String key = session.getKey() + " " + name;
        long total = stored.stream().mapToLong(b -> b.length).sum();
        bytes.put(key, total);
        int perRound = session.getKey().equals("large") ? 8 : 400;
        runs.put(key + " encode", perRound);
        runs.put(key + " decode", perRound);
        operations.put(key + " encode", () -> {
          for (Object value : values) {
            sink = encoding.encode(value);
          }
        });
        operations.put(key + " decode", () -> {
          for (byte[] b : stored) {
            sink = encoding.decode(b);
          }
        });
      }
    }
    if (!timed) {
      printAttributes(ReferenceSession.create(), List.of("kryo+zstd", "kryo+zstd64", "kryo+builtin64",
          "kryo+zstd+dict"));
    }
    Map<String, Double> micros = timed ? measure(operations, runs) : Map.of();
    for (String session : sessions.keySet()) {
      System.out.println("== " + session);
      System.out.printf("%-16s %8s %9s %13s %13s %10s%n", "encoding", "bytes", "vs jdk", "encode us/op",
          "decode us/op", "dec vs jdk");
      long jdkBytes = bytes.get(session + " jdk");
      for (String name : encodings) {
        String key = session + " " + name;
        System.out.printf("%-16s %8d %9s %13.1f %13.1f %10s%n", name, bytes.get(key),
            String.format("1/%.1f", (double) jdkBytes / bytes.get(key)),
            micros.getOrDefault(key + " encode", Double.NaN), micros.getOrDefault(key + " decode", Double.NaN),
            String.format("%.1fx", micros.getOrDefault(session + " jdk decode", Double.NaN)
                / micros.getOrDefault(key + " decode", Double.NaN)));
      }
    }
  }

  private static void printAttributes(Map<String, Object> session, List<String> encodings) {
    System.out.printf("%-24s", "attribute (create)");
    encodings.forEach(e -> System.out.printf(" %15s", e));
    System.out.println();
    List<Encodings.Encoding> list = encodings.stream().map(Encodings::of).toList();
    session.forEach((name, value) -> {
      System.out.printf("%-24s", name);
      list.forEach(e -> System.out.printf(" %15d", e.encode(value).length));
      System.out.println();
    });
  }

  private static boolean equal(Object a, Object b) {
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return Arrays.equals(x, y);
    } else if (a instanceof long[] x && b instanceof long[] y) {
      return Arrays.equals(x, y);
    } else if (a instanceof UnlikeSession.Roster x && b instanceof UnlikeSession.Roster y) {
      return x.legs().equals(y.legs()) && Arrays.equals(x.dutyMins(), y.dutyMins());
    }
    return a.equals(b);
  }

  /** Thread CPU microseconds per run: warm-up, then the median of interleaved rounds. */
  private static Map<String, Double> measure(Map<String, Runnable> operations, Map<String, Integer> runs) {
    List<String> names = new ArrayList<>(operations.keySet());
    for (String name : names) {
      for (int i = 0; i < runs.get(name) * 5; i++) {
        operations.get(name).run();
      }
    }
    Map<String, double[]> rounds = new LinkedHashMap<>();
    names.forEach(n -> rounds.put(n, new double[ROUNDS]));
    for (int r = 0; r < ROUNDS; r++) {
      for (int k = 0; k < names.size(); k++) {
        String name = names.get((k + r * 7) % names.size());
        Runnable op = operations.get(name);
        int n = runs.get(name);
        long start = THREADS.getCurrentThreadCpuTime();
        for (int i = 0; i < n; i++) {
          op.run();
        }
        rounds.get(name)[r] = (THREADS.getCurrentThreadCpuTime() - start) / 1000.0 / n;
      }
    }
    Map<String, Double> medians = new LinkedHashMap<>();
    rounds.forEach((name, values) -> {
      Arrays.sort(values);
      medians.put(name, values[values.length / 2]);
    });
    return medians;
  }
}
