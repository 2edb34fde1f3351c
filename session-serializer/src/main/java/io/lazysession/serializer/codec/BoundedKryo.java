package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.ClassResolver;
import com.esotericsoftware.kryo.kryo5.Kryo;
import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.io.Input;
import com.esotericsoftware.kryo.kryo5.io.Output;
import com.esotericsoftware.kryo.kryo5.util.MapReferenceResolver;
import io.lazysession.serializer.RecordCycleException;
import java.util.Arrays;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A Kryo that bounds, per value read or written, the nesting depth ({@link DecodeLimits#MAX_DEPTH}),
 * the collection elements ({@link DecodeLimits#MAX_ELEMENTS}, counted by the serializers), the
 * graph size a traversal of the result would visit ({@link DecodeLimits#MAX_GRAPH_VISITS}) and the
 * {@code equals} work of inserting elements that share a hash code ({@link
 * DecodeLimits#MAX_COLLISION_WORK}). Writing enforces the same limits as reading, so a
 * value is refused when it is stored, never stored and then refused at every read.
 *
 * <p>Design: every object read goes through one of the {@code read*} methods, so each call is a node.
 * Its cost is 1 plus the costs of the objects read while it was being read (its fields, elements, keys
 * and values); an object read again by reference costs what it cost the first time. The cost of an
 * object is thus the size of its graph unfolded into a tree — what {@code hashCode} or {@code equals}
 * of a collection walks — and the sum over all objects read is an upper bound of the hashing a decode
 * does (a hash collection hashes each element once, as it is inserted, and the element was counted just
 * before). The sum is checked as each object completes, before its parent uses it, so the work stops
 * before an exponential graph is paid for. Costs are kept by reference id (ids are dense, from 0 in each
 * graph), which {@link CostingReferences} reports as Kryo assigns and resolves them: no hashing beyond
 * Kryo's own.
 *
 * <p>Hash collisions: a hash set or map compares an element with {@code equals} against every element
 * already in it with the same hash code (a tree bin orders them only if they are {@code Comparable}),
 * so n elements of one hash code cost n²/2 {@code equals} calls: 30,000 two-element lists in a 154 KB
 * envelope took 8 s, while visiting only 90,000 objects. The serializers of hash containers say so
 * ({@link #hashesChildren}); each element (or key) is then hashed as it is read, before the container
 * inserts it, and counted in the {@link HashCollisions} of its level: one that meets k distinct
 * earlier elements of its hash code adds k times its own cost (what one {@code equals} with it walks:
 * its objects, a shared one counted once, {@link #ownChildCost}) to the collision work. A count, not a time: the same on every node, loaded or not, and checked
 * when writing too. One per pooled Kryo: not thread-safe.
 */
final class BoundedKryo extends Kryo {
  /** Children's cost per level being read; index 0 collects the root. */
  private long[] childCost = new long[32];
  /**
   * Children's own cost per level: as {@link #childCost}, but an object read or written before
   * counts 1 where it is referenced again. What an {@code equals} between two elements walks: it
   * stops at a shared object (the same instance on both sides), as the JDK's collections, records
   * and generated {@code equals} methods do, so an element's shared parts are not its collision cost.
   */
  private long[] ownChildCost = new long[32];
  /** The object being read or written at each level, when known. */
  private @Nullable Object[] inProgress = new Object[32];
  private int level;
  private boolean writing;
  private long elements;
  private long visits;
  /** Reference id of the object opened at each level, or -1. */
  private int[] openedId = new int[32];
  /** Reference id an object returned at this level was resolved from (a back-reference), or -1. */
  private int[] referencedId = new int[32];
  /**
   * Cost per reference id in the current graph: 0 while the object is open, then its cost (capped at
   * an int: beyond {@link DecodeLimits#MAX_GRAPH_VISITS} anyway). An id is set to 0 when assigned, so
   * nothing needs clearing between graphs.
   */
  private int[] costById = new int[256];
  /** Per level: the hash codes of what the container open there hashes, if it does; made on first use. */
  private @Nullable HashCollisions[] collisions = new HashCollisions[32];
  private long collisionWork;

  BoundedKryo(ClassResolver classResolver) {
    super(classResolver, new CostingReferences());
  }

  /**
   * Kryo's reference resolver (identity map when writing, list when reading) that tells which id each
   * object gets and which id a back-reference resolves.
   */
  static final class CostingReferences extends MapReferenceResolver {
    private @Nullable BoundedKryo owner;

    @Override
    public void setKryo(Kryo kryo) {
      super.setKryo(kryo);
      owner = (BoundedKryo) kryo;
    }

    @Override
    public int addWrittenObject(Object object) {
      int id = super.addWrittenObject(object);
      owner.opened(id);
      return id;
    }

    @Override
    public int getWrittenId(Object object) {
      int id = super.getWrittenId(object);
      if (id != -1) {
        owner.referencedId[owner.level] = id;
      }
      return id;
    }

    @Override
    public int nextReadId(Class type) {
      int id = super.nextReadId(type);
      owner.opened(id);
      return id;
    }

    @Override
    public Object getReadObject(Class type, int id) {
      owner.referencedId[owner.level] = id;
      return super.getReadObject(type, id);
    }

    /** The last id given to an object read: the object a serializer is called for, when new. */
    int lastReadId() {
      return readObjects.size() - 1;
    }

    /** Later back-references to {@code id} get {@code resolved}, if {@code id} is {@code read}'s. */
    void resolved(int id, Object read, Object resolved) {
      if (id >= 0 && id < readObjects.size() && readObjects.get(id) == read) {
        readObjects.set(id, resolved);
      }
    }
  }

  /** Kryo's default serializer for the class, keeping Java serialization's replacement methods. */
  @Override
  @SuppressWarnings("rawtypes")
  public Serializer getDefaultSerializer(Class type) {
    return JavaSerialSemantics.wrap(type, super.getDefaultSerializer(type));
  }

  private void opened(int id) {
    openedId[level] = id;
    if (id >= costById.length) {
      costById = Arrays.copyOf(costById, Math.max(id + 1, costById.length * 2));
    }
    costById[id] = 0;
  }

  /** Graph visits counted by the last (or current) encode or decode. */
  long graphVisits() {
    return visits;
  }

  /** Collection, map and array elements counted by the last (or current) encode or decode. */
  long elements() {
    return elements;
  }

  /**
   * Tells that {@code container}, being read or written at this level, hashes the objects read or
   * written in it next: all of them, or with {@code keys} the first of each pair (a map's keys).
   */
  void hashesChildren(Object container, boolean keys) {
    if (level > 0) {
      HashCollisions counted = collisions[level];
      if (counted == null) {
        counted = new HashCollisions();
        collisions[level] = counted;
      }
      counted.open(container, keys, !writing);
    }
  }

  /**
   * Counts a copy-on-write list or set of {@code size} elements: it copies (a set also compares)
   * what it holds on every insert, so reading it element by element costs {@code size}²/2 whatever
   * the elements are (nulls included, which Kryo reads without a node), counted as collision work.
   */
  void countCopyOnWrite(long size) {
    collisionWork = saturatedAdd(collisionWork, size * (size - 1) / 2);
    if (collisionWork > DecodeLimits.MAX_COLLISION_WORK) {
      throw limit("holds a copy-on-write list or set of " + size + " elements, which copies itself"
          + " on each of them: more than " + DecodeLimits.MAX_COLLISION_WORK + " steps (limit"
          + " maxCollisionWork)");
    }
  }

  /** Counts elements declared or written against {@link DecodeLimits#MAX_ELEMENTS}. */
  void countElements(long count) {
    elements += count;
    if (elements > DecodeLimits.MAX_ELEMENTS) {
      throw limit("holds more than " + DecodeLimits.MAX_ELEMENTS + " collection, map and array"
          + " elements in all (limit maxElements)");
    }
  }

  @Override
  public Object readClassAndObject(Input input) {
    int at = enter(false, null);
    try {
      return exit(super.readClassAndObject(input));
    } catch (StackOverflowError e) {
      if (at > 1) {
        throw e;
      }
      // Unwound to the root: the stack is usable again. Within maxDepth this is a hash collection
      // reached again from its own elements (hashCode recursing forever), which bytes can say.
      throw new DecodeLimitException("decoding stopped: the value overflows the stack (a hash"
          + " collection that contains itself, or nesting close to maxDepth " + DecodeLimits.MAX_DEPTH
          + ")");
    } finally {
      leave(at);
    }
  }

  @Override
  public <T> T readObject(Input input, Class<T> type) {
    int at = enter(false, null);
    try {
      return exit(super.readObject(input, type));
    } finally {
      leave(at);
    }
  }

  @Override
  public <T> T readObject(Input input, Class<T> type, Serializer serializer) {
    int at = enter(false, null);
    try {
      return exit(super.readObject(input, type, serializer));
    } finally {
      leave(at);
    }
  }

  @Override
  public <T> T readObjectOrNull(Input input, Class<T> type) {
    int at = enter(false, null);
    try {
      return exit(super.readObjectOrNull(input, type));
    } finally {
      leave(at);
    }
  }

  @Override
  public <T> T readObjectOrNull(Input input, Class<T> type, Serializer serializer) {
    int at = enter(false, null);
    try {
      return exit(super.readObjectOrNull(input, type, serializer));
    } finally {
      leave(at);
    }
  }

  // Writing counts the same way, so that a value beyond a limit is refused when it is stored rather
  // than stored and then refused at every read.

  @Override
  public void writeClassAndObject(Output output, @Nullable Object object) {
    int at = enter(true, object);
    try {
      super.writeClassAndObject(output, object);
      exit(object);
    } finally {
      leave(at);
    }
  }

  @Override
  public void writeObject(Output output, Object object) {
    int at = enter(true, object);
    try {
      super.writeObject(output, object);
      exit(object);
    } finally {
      leave(at);
    }
  }

  @Override
  public void writeObject(Output output, Object object, Serializer serializer) {
    int at = enter(true, object);
    try {
      super.writeObject(output, object, serializer);
      exit(object);
    } finally {
      leave(at);
    }
  }

  @Override
  public void writeObjectOrNull(Output output, @Nullable Object object, Class type) {
    int at = enter(true, object);
    try {
      super.writeObjectOrNull(output, object, type);
      exit(object);
    } finally {
      leave(at);
    }
  }

  @Override
  public void writeObjectOrNull(Output output, @Nullable Object object, Serializer serializer) {
    int at = enter(true, object);
    try {
      super.writeObjectOrNull(output, object, serializer);
      exit(object);
    } finally {
      leave(at);
    }
  }

  private int enter(boolean write, @Nullable Object written) {
    if (level == 0) {
      writing = write;
      elements = 0;
      visits = 0;
      collisionWork = 0;
      childCost[0] = 0;
      ownChildCost[0] = 0;
    }
    int at = ++level;
    if (at > DecodeLimits.MAX_DEPTH) {
      throw limit("nests objects more than " + DecodeLimits.MAX_DEPTH + " deep (limit maxDepth)");
    }

    if (at >= childCost.length) {
      childCost = Arrays.copyOf(childCost, childCost.length * 2);
      ownChildCost = Arrays.copyOf(ownChildCost, childCost.length);
      inProgress = Arrays.copyOf(inProgress, childCost.length);
      openedId = Arrays.copyOf(openedId, childCost.length);
      referencedId = Arrays.copyOf(referencedId, childCost.length);
      collisions = Arrays.copyOf(collisions, childCost.length);
    }
    childCost[at] = 0;
    ownChildCost[at] = 0;
    openedId[at] = -1;
    referencedId[at] = -1;
    inProgress[at] = written; // when reading, known once its serializer calls reference()
    return at;
  }

  private <T> T exit(T value) {
    long cost = saturatedAdd(childCost[level], 1);
    long own = saturatedAdd(ownChildCost[level], 1);
    int referenced = referencedId[level];
    if (referenced >= 0) { // an object read or written before, now referenced again
      int known = costById[referenced];
      if (known == 0) { // still open: a cycle
        if (value != null && isStructural(value)) {
          refuseStructuralCycle(referenced);
        }
        if (writing && value instanceof Record) {
          // read back, the record does not exist yet: it is built from what is being read
          Object holder = inProgress[level - 1];
          throw new RecordCycleException(value.getClass().getTypeName(),
              holder == null ? "component" : holder.getClass().getTypeName());
        }
        cost = 1;
      } else {
        cost = known;
      }
      own = 1;
    } else if (openedId[level] >= 0) {
      costById[openedId[level]] = (int) Math.min(cost, Integer.MAX_VALUE);
    }
    childCost[level - 1] = saturatedAdd(childCost[level - 1], cost);
    ownChildCost[level - 1] = saturatedAdd(ownChildCost[level - 1], own);
    visits = saturatedAdd(visits, cost);
    if (visits > DecodeLimits.MAX_GRAPH_VISITS) {
      throw limit("unfolds to more than " + DecodeLimits.MAX_GRAPH_VISITS + " objects when shared"
          + " ones are counted where each is used, which hashCode and equals walk (limit"
          + " maxGraphVisits)");
    }
    HashCollisions container = collisions[level - 1];
    if (container != null && container.isOpen()) {
      // hashed here, before the container does it: each earlier element met costs an equals call
      collisionWork = saturatedAdd(collisionWork, container.next(value) * own);
      if (collisionWork > DecodeLimits.MAX_COLLISION_WORK) {
        throw limit("holds hash sets or maps whose elements share hash codes: inserting them would"
            + " walk more than " + DecodeLimits.MAX_COLLISION_WORK + " objects in equals calls"
            + " (limit maxCollisionWork)");
      }
    }
    return value;
  }

  private DecodeLimitException limit(String what) {
    return new DecodeLimitException((writing ? "value not written: it " : "decoding stopped: the value ")
        + what);
  }

  /**
   * Refuses a reference back to a collection, map or record still being read or written when every
   * object between them is one too: hashing or comparing such a value never ends (each hashes its
   * elements or components), and crafted bytes would make the stack overflow only after walking
   * whatever was already read, again at every turn of the cycle. Cycles through any other object (a
   * parent pointer in an application class, whose {@code hashCode} is its own business) are fine.
   */
  private void refuseStructuralCycle(int id) {
    for (int i = level - 1; i >= 1; i--) {
      if (openedId[i] == id) {
        throw limit("contains itself through collections, maps or records only, so its hashCode"
            + " and equals never end (limit maxGraphVisits)");
      }
      Object open = inProgress[i];
      if (open == null || !isStructural(open)) {
        return;
      }
    }
  }

  @Override
  public void reference(Object object) {
    super.reference(object);
    if (level > 0 && inProgress[level] == null) {
      inProgress[level] = object;
    }
  }

  private static boolean isStructural(Object value) {
    return value instanceof java.util.Collection<?> || value instanceof Map<?, ?>
        || value instanceof Record;
  }

  private void leave(int at) {
    inProgress[at] = null;
    HashCollisions container = collisions[at];
    if (container != null && container.isOpen()) {
      container.close();
    }
    level = at - 1;
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }
}
