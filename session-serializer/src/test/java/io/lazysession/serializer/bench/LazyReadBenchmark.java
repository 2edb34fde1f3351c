package io.lazysession.serializer.bench;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.LazyValue;
import io.lazysession.serializer.reference.ReferenceSession;
import java.util.LinkedHashMap;
import java.util.Map;
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
 * Lazy reading with the default encoding (Kryo, zstd above 256 bytes): the twelve envelopes of the
 * reference session wrapped as lazy values, then one of them read, against all twelve read.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LazyReadBenchmark {
  @Param({"cart", "user"})
  public String attribute;

  private AttributeSerializer serializer;
  private Map<String, byte[]> stored;

  @Setup
  public void setUp() {
    serializer = AttributeSerializer.builder().allowList(Encodings.ALLOW).build();
    stored = new LinkedHashMap<>();
    ReferenceSession.create().forEach((name, value) -> stored.put(name, serializer.serialize(value)));
  }

  /** Wraps the twelve envelopes as lazy values and reads one. */
  @Benchmark
  public void lazyReadOneOfTwelve(Blackhole bh) {
    LazyValue read = null;
    for (Map.Entry<String, byte[]> e : stored.entrySet()) {
      LazyValue lazy = serializer.lazy(e.getValue());
      if (e.getKey().equals(attribute)) {
        read = lazy;
      }
      bh.consume(lazy);
    }
    bh.consume(read.get());
  }

  /** Wraps the twelve envelopes as lazy values and reads them all: the eager cost, same encoding. */
  @Benchmark
  public void lazyReadAllTwelve(Blackhole bh) {
    for (byte[] bytes : stored.values()) {
      bh.consume(serializer.lazy(bytes).get());
    }
  }
}
