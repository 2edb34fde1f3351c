package io.lazysession.serializer.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.esotericsoftware.kryo.kryo5.KryoException;
import com.esotericsoftware.kryo.kryo5.io.Output;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.SerializationException;
import io.lazysession.serializer.fixtures.SharedSets;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A structure-aware fuzzer of Kryo payloads that searches for slow or allocation-heavy inputs. It
 * mutates what the Kryo format is made of — varint counts and lengths (set to edge values), class ids
 * (swapped for other registered ones, collections most often), reference ids — and splices slices of
 * payloads into each other (nested and repeated collections). Each input's cost is measured by
 * counters, not time: the graph visits and elements {@link BoundedKryo} counted, the bytes
 * {@link BoundedInput} let be allocated, and the JVM's count of bytes this thread allocated. Inputs
 * costlier than any seen so far join the seeds, so the search climbs towards expensive inputs; each
 * must stay within the per-decode budget.
 *
 * <p>CI runs {@value #DEFAULT_ITERATIONS} inputs (seconds); a longer hunt:
 * {@code -Dtest=StructureFuzzTest -Dlazysession.fuzz.iterations=200000}. Any input found over budget
 * is printed in hex: add it to src/test/resources/regressions.
 */
class StructureFuzzTest {
  static final int DEFAULT_ITERATIONS = 2000;
  private static final int ITERATIONS =
      Integer.getInteger("lazysession.fuzz.iterations", DEFAULT_ITERATIONS);
  private static final long SEED = Long.getLong("lazysession.fuzz.seed", 20261123L);

  /**
   * Heap one decode may allocate, whatever the input: what the elements hold (at most
   * {@link DecodeLimits#MAX_ELEMENTS} references, grown as they arrive), plus what hashing allocates per
   * visit counted ({@code HashSet.hashCode} makes an iterator per set it walks): garbage proportional to
   * the work {@link BoundedKryo} bounds.
   */
  private static final long ALLOCATION_BASE = 32L << 20;
  private static final long ALLOCATION_PER_VISIT = 64;

  private static final long[] EDGE_VALUES = {0, 1, 2, 3, 127, 128, 255, 16_383, 16_384, 65_536,
      100_000, 1 << 20, DecodeLimits.MAX_ELEMENTS + 1L, Integer.MAX_VALUE,
      0xFFFF_FFFFL};

  private final Random random = new Random(SEED);
  private final KryoFactory.PooledKryo pooled =
      KryoFactory.create(ClassAllowList.jdkOnly(), getClass().getClassLoader(), 1 << 20);
  private final int[] collectionIds = collectionIds();

  @Test
  void decode_structureMutatedPayloads_stayWithinWorkAndAllocationBudget() {
    List<byte[]> pool = new ArrayList<>(seeds());
    long mostVisits = 0;
    long mostAllocated = 0;
    int refusedByLimit = 0;
    for (int i = 0; i < ITERATIONS; i++) {
      byte[] input = mutate(pool);
      Cost cost = decode(input);
      if (cost.limited()) {
        refusedByLimit++;
      }
      if (cost.allocated() > ALLOCATION_BASE + ALLOCATION_PER_VISIT * cost.visits()
          || cost.inputAllocated() > 16L * input.length + (1 << 20)) {
        fail("over the allocation budget (" + cost + "): " + HexFormat.of().formatHex(input));
      }
      if (!cost.limited() && cost.visits() > DecodeLimits.MAX_GRAPH_VISITS) {
        fail("graph visits beyond the limit without refusal (" + cost + "): "
            + HexFormat.of().formatHex(input));
      }
      // climb: keep inputs costlier than any before as seeds for further mutation
      if (cost.visits() > mostVisits || cost.allocated() > mostAllocated) {
        mostVisits = Math.max(mostVisits, cost.visits());
        mostAllocated = Math.max(mostAllocated, cost.allocated());
        if (input.length < 1 << 16) {
          pool.add(input);
        }
      }
    }
    System.out.printf("structure fuzz: %d inputs, %d refused by a limit, most visits %d, most bytes"
        + " allocated %d, %d seeds%n", ITERATIONS, refusedByLimit, mostVisits, mostAllocated, pool.size());
    assertThat(pool.size()).as("seeds").isGreaterThan(seeds().size() - 1);
  }

  @Test
  void decode_seedsUnchanged_readBack() {
    for (byte[] seed : seeds()) {
      assertThat(decode(seed).failure()).as(HexFormat.of().formatHex(seed)).isNull();
    }
  }

  /** What one decode cost; {@code failure} is null when it decoded. */
  record Cost(long visits, long elements, long inputAllocated, long allocated, boolean limited,
      RuntimeException failure) {}

  private Cost decode(byte[] input) {
    BoundedKryo kryo = (BoundedKryo) pooled.kryo();
    BoundedInput in = pooled.input();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    RuntimeException failure = null;
    try {
      in.setBuffer(input, 0, input.length);
      kryo.readClassAndObject(in);
    } catch (SerializationException | KryoException e) {
      failure = e;
    } catch (RuntimeException e) {
      failure = e; // KryoCodec reports any runtime failure as a SerializationException
    } catch (StackOverflowError | OutOfMemoryError e) {
      fail("decoding threw " + e + " for " + HexFormat.of().formatHex(input), e);
    } finally {
      kryo.reset();
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    boolean limited = isLimit(failure);
    Cost cost = new Cost(kryo.graphVisits(), kryo.elements(), in.allocatedBytes(), allocated, limited,
        failure);
    in.setBuffer(KryoFactory.EMPTY);
    return cost;
  }

  private static boolean isLimit(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof DecodeLimitException) {
        return true;
      }
    }
    return false;
  }

  /** Payloads of nested, shared and varied JDK collections, written by this codec's Kryo. */
  List<byte[]> seeds() {
    List<Object> values = new ArrayList<>();
    values.add(new ArrayList<>(List.of("a", 1, 2L, List.of(3, 4), Map.of("k", "v"))));
    Set<Object> shared = new HashSet<>(Set.of("x"));
    values.add(new ArrayList<>(List.of(shared, shared, new HashSet<>(Set.of(shared)))));
    values.add(SharedSets.serialDos(6));
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("list", new ArrayList<>(Collections.nCopies(5, null)));
    map.put("tree", new TreeMap<>(Map.of("b", 2, "a", 1)));
    map.put("set", new TreeSet<>(Set.of("c", "d")));
    map.put("array", new Object[] {"e", 5, null});
    map.put("ints", new int[] {1, 2, 3});
    map.put("bytes", new byte[] {1, 2});
    map.put("asList", Arrays.asList("f", "g"));
    map.put("unmodifiable", Collections.unmodifiableList(new ArrayList<>(List.of("h"))));
    map.put("enumMap", new EnumMap<>(Map.of(TimeUnit.SECONDS, "s")));
    values.add(map);
    values.add(new HashMap<>(Map.of(1, new HashMap<>(Map.of(2, new HashMap<>(Map.of(3, "deep")))))));
    List<byte[]> seeds = new ArrayList<>();
    for (Object value : values) {
      Output output = pooled.output();
      output.reset();
      pooled.kryo().writeClassAndObject(output, value);
      seeds.add(output.toBytes());
    }
    return seeds;
  }

  private byte[] mutate(List<byte[]> pool) {
    byte[] b = pool.get(random.nextInt(pool.size())).clone();
    int edits = 1 + random.nextInt(3);
    for (int e = 0; e < edits && b.length > 1; e++) {
      int at = random.nextInt(b.length);
      switch (random.nextInt(6)) {
        case 0 -> b = replaceVarint(b, at, EDGE_VALUES[random.nextInt(EDGE_VALUES.length)]);
        case 1 -> b[at] = (byte) (collectionIds[random.nextInt(collectionIds.length)] + 2);
        case 2 -> b[at] = (byte) (1 + random.nextInt(12)); // a reference id, or a small count
        case 3 -> { // splice a slice of another input here: nested or repeated structure
          byte[] other = pool.get(random.nextInt(pool.size()));
          int from = random.nextInt(other.length);
          int length = Math.min(other.length - from, 1 + random.nextInt(64));
          b = insert(b, at, Arrays.copyOfRange(other, from, from + length), 1);
        }
        case 4 -> { // repeat a slice of this input: deep or wide nesting
          int length = Math.min(b.length - at, 1 + random.nextInt(16));
          b = insert(b, at, Arrays.copyOfRange(b, at, at + length), 1 + random.nextInt(64));
        }
        default -> { // cross over: this input's head, another's tail
          byte[] other = pool.get(random.nextInt(pool.size()));
          int cut = random.nextInt(other.length);
          byte[] c = Arrays.copyOf(b, at + other.length - cut);
          System.arraycopy(other, cut, c, at, other.length - cut);
          b = c;
        }
      }
    }
    return b;
  }

  /** Replaces the unsigned varint starting at {@code at} by {@code value}, encoded the same way. */
  static byte[] replaceVarint(byte[] b, int at, long value) {
    int end = at;
    while (end < b.length && end - at < 5 && (b[end] & 0x80) != 0) {
      end++;
    }
    end = Math.min(end + 1, b.length);
    byte[] encoded = new byte[10];
    int n = 0;
    long v = value;
    while (v >= 0x80) {
      encoded[n++] = (byte) (v | 0x80);
      v >>>= 7;
    }
    encoded[n++] = (byte) v;
    byte[] c = new byte[b.length - (end - at) + n];
    System.arraycopy(b, 0, c, 0, at);
    System.arraycopy(encoded, 0, c, at, n);
    System.arraycopy(b, end, c, at + n, b.length - end);
    return c;
  }

  private static byte[] insert(byte[] b, int at, byte[] slice, int times) {
    byte[] c = new byte[b.length + slice.length * times];
    System.arraycopy(b, 0, c, 0, at);
    for (int i = 0; i < times; i++) {
      System.arraycopy(slice, 0, c, at + i * slice.length, slice.length);
    }
    System.arraycopy(b, at, c, at + slice.length * times, b.length - at);
    return c;
  }

  /** Registered ids of collections and maps: the class ids worth swapping in. */
  private static int[] collectionIds() {
    List<KryoRegistrations.Entry> entries = KryoRegistrations.entries();
    List<Integer> ids = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      Class<?> type = entries.get(i).type();
      if (java.util.Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)
          || type.isArray()) {
        ids.add(KryoRegistrations.FIRST_ID + i);
      }
    }
    return ids.stream().mapToInt(Integer::intValue).toArray();
  }
}
