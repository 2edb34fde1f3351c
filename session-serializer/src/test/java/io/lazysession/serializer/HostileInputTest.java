package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.codec.DecodeLimitException;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.envelope.EnvelopeCompression;
import io.lazysession.serializer.fixtures.CollidingLists;
import io.lazysession.serializer.fixtures.ConstantHashEntity;
import io.lazysession.serializer.fixtures.Node;
import io.lazysession.serializer.fixtures.SharedSets;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Per-decode limits against bytes written by someone with write access to Redis: each attack costs a
 * bounded amount of work and memory, measured by the decoder's own counters or the JVM's per-thread
 * allocation counter, never by wall-clock time. Writing enforces the same limits, so a value beyond
 * one is refused at write instead of stored and then refused at every read.
 */
class HostileInputTest {
  private static final AttributeSerializer KRYO = AttributeSerializer.builder().build();
  private static final AttributeSerializer KRYO_RAW = AttributeSerializer.builder()
      .compression(Compression.none()).build();

  @Test
  void deserialize_serialDosHashSets_refusedByGraphLimit() {
    byte[] depth40 = GoldenFiles.read("regressions/kryo-serialdos-hashsets-depth40.hex");

    assertThatThrownBy(() -> KRYO.deserialize(depth40)).isInstanceOf(DecodeLimitException.class)
        .hasMessageContaining("maxGraphVisits");
  }

  @Test
  void serialize_serialDosHashSets_refusedAtWrite() {
    // depth 25 decodes in seconds without the limit (2^25 hashCode calls), 40 never ends
    assertThatThrownBy(() -> KRYO.serialize(SharedSets.serialDos(25))).isInstanceOf(DecodeLimitException.class)
        .hasMessageContaining("value not written").hasMessageContaining("maxGraphVisits");
  }

  @Test
  void deserialize_serialDosHashSetsWithJdkCodec_refusedByALimit() {
    // The JDK codec writes what Kryo refuses: these are the bytes an attacker would plant. The graph
    // limit stops them after 0.3 to 0.5 s of hashing; on a slow or loaded machine the CPU budget (1 s)
    // may come first. JdkCodecLimitsTest pins the graph limit alone.
    AttributeSerializer jdk = AttributeSerializer.builder().codec(CodecKind.JDK)
        .compression(Compression.none()).build();
    byte[] depth40 = jdk.serialize(SharedSets.serialDos(40));

    assertThatThrownBy(() -> jdk.deserialize(depth40)).isInstanceOf(DecodeLimitException.class)
        .hasMessageMatching("(?s).*(maxGraphVisits|decodeCpuTime).*");
    Set<Object> shallow = SharedSets.serialDos(10);
    assertThat(jdk.deserialize(jdk.serialize(shallow)).hashCode()).isEqualTo(shallow.hashCode());
  }

  @Test
  void serialize_sharedSetsWithinLimit_readBack() {
    Set<Object> shallow = SharedSets.serialDos(10);

    Object read = KRYO.deserialize(KRYO.serialize(shallow));

    // equals and a failure message would walk the 2^10 paths again and again: compare hashes
    assertThat(read).isInstanceOf(HashSet.class);
    assertThat(read.hashCode()).isEqualTo(shallow.hashCode());
  }

  @Test
  void deserialize_hashSetOfCollidingLists_refusedByCollisionLimit() {
    // What an attacker plants: lists sharing one hash code, in a list whose class id is changed to
    // HashSet's (the same serializer reads both). 6,000 of them decoded in 0.3 s, 30,000 in 8 s.
    byte[] envelope = KRYO_RAW.serialize(CollidingLists.of(6_000));
    assertThat(envelope[3]).as("ArrayList's class id").isEqualTo((byte) (16 + 2));
    envelope[3] = 22 + 2; // HashSet's

    assertThatThrownBy(() -> KRYO_RAW.deserialize(envelope)).isInstanceOf(DecodeLimitException.class)
        .hasMessageContaining("share hash codes").hasMessageContaining("maxCollisionWork");
  }

  @Test
  void serialize_hashSetOfCollidingLists_refusedAtWrite() {
    assertThatThrownBy(() -> KRYO.serialize(CollidingLists.inHashSet(6_000)))
        .isInstanceOf(DecodeLimitException.class).hasMessageContaining("value not written")
        .hasMessageContaining("maxCollisionWork");
  }

  @Test
  void deserialize_hashSetOfCollidingListsWithJdkCodec_refusedByCpuBudget() {
    // JDK serialization inserts each element as it reads it: no count ahead, a CPU-time budget
    // (1 s plus 200 ns a byte); 20,000 such lists decoded in half a minute.
    AttributeSerializer jdk = AttributeSerializer.builder().codec(CodecKind.JDK).build();
    byte[] envelope = jdk.serialize(CollidingLists.inHashSet(20_000));

    assertThatThrownBy(() -> jdk.deserialize(envelope)).isInstanceOf(DecodeLimitException.class)
        .hasMessageContaining("decodeCpuTime");
  }

  /** Some applications' entities all hash alike (JPA guides advise it): a set of them still decodes. */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void serialize_thousandEntitiesOfConstantHashCode_readBack(CodecKind codec) {
    AttributeSerializer serializer = KRYO.toBuilder().codec(codec).allowList(ClassAllowList.builder()
        .allowPackage(ConstantHashEntity.class.getPackageName()).build()).build();
    Set<ConstantHashEntity> entities = new HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      entities.add(new ConstantHashEntity(i, "product " + i));
    }

    assertThat(serializer.deserialize(serializer.serialize(entities))).isEqualTo(entities);
  }

  /**
   * The same entities, each referring to one shared catalog entry of 200 objects: an {@code equals}
   * between two of them never walks what they share, so it is not their collision cost.
   */
  @Test
  void serialize_thousandEntitiesOfConstantHashCodeSharingALargeObject_readBack() {
    AttributeSerializer serializer = KRYO.toBuilder().allowList(ClassAllowList.builder()
        .allowPackage(ConstantHashEntity.class.getPackageName()).build()).build();
    List<String> catalog = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      catalog.add("tag " + i);
    }
    Set<ConstantHashEntity> entities = new HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      entities.add(new ConstantHashEntity(i, "product " + i, catalog));
    }

    byte[] envelope = serializer.serialize(entities);

    assertThat(serializer.header(envelope).codec()).isEqualTo(CodecKind.KRYO);
    assertThat(serializer.deserialize(envelope)).isEqualTo(entities);
  }

  /**
   * A copy-on-write list copies its array on every insert: n elements read one by one cost n²/2
   * whatever they are (400,000 nulls in 51 bytes took 25 s). Counted as colliding elements: refused
   * when written beyond the bound, and when bytes that declare such a list are read.
   */
  @Test
  void copyOnWriteListOfManyElements_refusedWhenWrittenAndWhenRead() {
    AttributeSerializer plain = KRYO.toBuilder().compression(Compression.none()).build();
    assertThat(plain.deserialize(plain.serialize(new CopyOnWriteArrayList<>(
        Collections.nCopies(1_000, "listener"))))).isEqualTo(Collections.nCopies(1_000, "listener"));
    assertThatThrownBy(() -> plain.serialize(new CopyOnWriteArrayList<>(
        Collections.nCopies(20_000, null)))).isInstanceOf(DecodeLimitException.class)
        .hasMessageContaining("maxCollisionWork");
    // What a writer without the bound stored: the same elements in a Vector, renamed in the bytes
    // (Kryo writes an unregistered class's name in ASCII, its last character's high bit set).
    byte[] vector = plain.serialize(new java.util.Vector<>(Collections.nCopies(20_000, null)));
    byte[] planted = renamed(vector, "java.util.Vector", CopyOnWriteArrayList.class.getName());

    assertThatThrownBy(() -> plain.deserialize(planted)).isInstanceOf(DecodeLimitException.class)
        .hasMessageContaining("maxCollisionWork");
  }

  /** {@code bytes} with the Kryo class name {@code from} replaced by {@code to}. */
  private static byte[] renamed(byte[] bytes, String from, String to) {
    byte[] name = ascii(from);
    for (int i = 0; i + name.length <= bytes.length; i++) {
      if (java.util.Arrays.equals(bytes, i, i + name.length, name, 0, name.length)) {
        byte[] replacement = ascii(to);
        byte[] result = new byte[bytes.length - name.length + replacement.length];
        System.arraycopy(bytes, 0, result, 0, i);
        System.arraycopy(replacement, 0, result, i, replacement.length);
        System.arraycopy(bytes, i + name.length, result, i + replacement.length,
            bytes.length - i - name.length);
        return result;
      }
    }
    throw new AssertionError(from + " is not written by name in these bytes");
  }

  private static byte[] ascii(String name) {
    byte[] bytes = name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    bytes[bytes.length - 1] |= (byte) 0x80;
    return bytes;
  }

  @Test
  void deserialize_hashMapDeclaringManyNullEntries_allocatesAsElementsArrive() {
    // 950,001 entries declared: the noise key, then (null, null) again and again: a map of 2 entries
    byte[] envelope = GoldenFiles.read("regressions/kryo-hashmap-declares-950k-null-entries.hex");
    int decoded = KRYO.header(envelope).decodedLength();

    long allocated = allocatedBy(() -> assertThat((Map<?, ?>) KRYO.deserialize(envelope)).hasSize(2));

    // the payload buffer plus Kryo's own bookkeeping; a table pre-sized for 950k entries is 8 MB more
    assertThat(allocated).isLessThan(2L * decoded + (2 << 20));
  }

  @Test
  void deserialize_smallZstdFrameDeclaring16MiB_refusedByRatioBeforeAllocating() {
    byte[] envelope = GoldenFiles.read("regressions/kryo-hashmap-count-15.9m-zstd-ratio.hex");

    long allocated = allocatedBy(() -> assertThatThrownBy(() -> KRYO.deserialize(envelope))
        .isInstanceOf(DecodeLimitException.class).hasMessageContaining("MAX_RATIO"));

    assertThat(envelope).hasSizeLessThan(600);
    assertThat(allocated).isLessThan(1 << 20);
  }

  @Test
  void deserialize_primitiveArrayDeclaring2e28Elements_refusedBeforeAllocating() {
    // 11 bytes: boolean[] whose declared length Kryo's serializer allocated before reading (256 MB)
    byte[] envelope = GoldenFiles.read("regressions/kryo-booleanarray-length-2e28.hex");

    long allocated = allocatedBy(() -> assertThatThrownBy(() -> KRYO.deserialize(envelope))
        .isInstanceOf(CorruptDataException.class).hasMessageContaining("exceeds"));

    assertThat(allocated).isLessThan(1 << 20);
  }

  @Test
  void serialize_payloadCompressingBeyondRatio_storedRawAndReadBack() {
    byte[] zeros = new byte[2 << 20]; // zstd makes a few hundred bytes of it

    byte[] envelope = KRYO.serialize(zeros);

    assertThat(KRYO.header(envelope).compression()).isEqualTo(EnvelopeCompression.NONE);
    assertThat((byte[]) KRYO.deserialize(envelope)).isEqualTo(zeros);
  }

  @Test
  void deserialize_collectionsOfNullsBeyondElementLimit_refused() {
    for (String name : List.of("kryo-arraylist-2.1m-nulls.hex", "kryo-three-lists-of-700k-nulls.hex")) {
      byte[] envelope = GoldenFiles.read("regressions/" + name);

      assertThat(envelope).as(name).hasSizeLessThan(32);
      assertThatThrownBy(() -> KRYO.deserialize(envelope)).as(name)
          .isInstanceOf(DecodeLimitException.class).hasMessageContaining("maxElements");
    }
  }

  @Test
  void serialize_listOfNulls_readsBack() {
    // Kryo writes a collection of nulls as its size alone, fewer bytes than elements
    List<Object> nulls = new ArrayList<>(Collections.nCopies(5000, null));

    assertThat(KRYO_RAW.serialize(nulls)).hasSizeLessThan(16);
    assertThat(KRYO_RAW.deserialize(KRYO_RAW.serialize(nulls))).isEqualTo(nulls);
  }

  @Test
  void serialize_beyondElementLimit_refusedAtWrite() {
    List<List<Object>> lists = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      lists.add(new ArrayList<>(Collections.nCopies(700_000, null)));
    }

    assertThatThrownBy(() -> KRYO_RAW.serialize(lists)).isInstanceOf(DecodeLimitException.class)
        .hasMessageContaining("value not written").hasMessageContaining("maxElements");
  }

  @Test
  void deserialize_nestingBeyondDepthLimit_refused() {
    byte[] envelope = GoldenFiles.read("regressions/kryo-nested-lists-depth600.hex");

    assertThat(KRYO.header(envelope).codec()).isEqualTo(CodecKind.KRYO);
    assertThatThrownBy(() -> KRYO.deserialize(envelope)).isInstanceOf(DecodeLimitException.class)
        .hasMessageContaining("maxDepth");
  }

  @Test
  void serialize_collectionContainingItself_refusedAtWrite() {
    // its hashCode and equals never end; crafted bytes made one decode walk 114 MB before overflowing
    List<Object> list = new ArrayList<>();
    Set<Object> set = new HashSet<>(Set.of("a"));
    list.add(set);
    list.add(list);

    assertThatThrownBy(() -> KRYO.serialize(list)).isInstanceOf(DecodeLimitException.class)
        .hasMessageContaining("contains itself");
  }

  @Test
  void serialize_cycleThroughApplicationObject_readsBack() {
    AttributeSerializer serializer = KRYO.toBuilder().allowList(ClassAllowList.builder()
        .allowPackage(Node.class.getPackageName()).build()).build();
    Node parent = new Node("parent");
    Node child = new Node("child");
    parent.children.add(child);
    child.next = parent;
    child.children = parent.children; // the list holds a node that holds the list

    Node read = (Node) serializer.deserialize(serializer.serialize(parent));

    assertThat(read.children.get(0).next).isSameAs(read);
    assertThat(read.children.get(0).children).isSameAs(read.children);
  }

  /**
   * Bytes the current thread allocated while running {@code action} (HotSpot's own counter), after a
   * first run that creates the pooled Kryo instance and loads classes.
   */
  static long allocatedBy(Runnable action) {
    action.run();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    action.run();
    return threads.getCurrentThreadAllocatedBytes() - before;
  }
}
