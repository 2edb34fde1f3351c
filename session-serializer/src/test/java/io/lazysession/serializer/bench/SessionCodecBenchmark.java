package io.lazysession.serializer.bench;

import io.lazysession.serializer.reference.ReferenceSession;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Encoding and decoding the twelve attributes of the reference session, one envelope each, under each
 * encoding ({@link LazyReadBenchmark} measures lazy reading).
 * Run: {@code mvn -pl session-serializer -Pbench test-compile exec:exec} (see docs/serializer-benchmarks.md).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SessionCodecBenchmark {
  @Param({"jdk", "jdk+zstd", "kryo", "kryo+zstd", "kryo+zstd+dict", "kryo-plain", "kryo-plain+zstd"})
  public String encoding;

  private Encodings.Encoding codec;
  private List<Object> values;
  private List<byte[]> stored;

  @Setup
  public void setUp() {
    codec = Encodings.of(encoding);
    values = new ArrayList<>(ReferenceSession.create().values());
    stored = new ArrayList<>();
    for (Object value : values) {
      stored.add(codec.encode(value));
    }
  }

  /** Encodes the whole session (12 envelopes). */
  @Benchmark
  public void encodeSession(Blackhole bh) {
    for (Object value : values) {
      bh.consume(codec.encode(value));
    }
  }

  /** Decodes the whole session (12 envelopes). */
  @Benchmark
  public void decodeSession(Blackhole bh) {
    for (byte[] bytes : stored) {
      bh.consume(codec.decode(bytes));
    }
  }
}
