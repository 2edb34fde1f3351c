package io.lazysession.serializer.codec;

/**
 * The bounds on what decoding one attribute value may cost, whatever its bytes say. Each exceeded
 * limit raises a {@link DecodeLimitException} naming it. With them, a few hundred hostile bytes in
 * Redis cost at most a bounded amount of CPU and heap per decode (see docs/hostile-input.md):
 *
 * <ul>
 *   <li>{@link #MAX_ELEMENTS}: elements of all collections, maps (entries) and object arrays in one
 *       value together, counted as declared, before anything is allocated for them;
 *   <li>{@link #MAX_GRAPH_VISITS}: the objects a full traversal ({@code hashCode}, {@code equals})
 *       of every object read would visit, counting a shared object once per place it appears. Hash
 *       collections call {@code hashCode} on each element as it is inserted, so nested sets sharing
 *       children (the "SerialDOS" pattern) cost 2^depth while their bytes grow linearly; this counts
 *       that cost and stops before paying it;
 *   <li>{@link #MAX_COLLISION_WORK}: the objects the {@code equals} calls of hash sets and maps
 *       inserting elements (keys) of one hash code would walk: an element that meets k earlier ones of
 *       its hash code in its container counts k times its own graph size. Elements that all share a
 *       hash code and are not {@code Comparable} cost n²/2 {@code equals} calls while their bytes
 *       grow linearly (hash flooding); this counts them, as each element is read and before its
 *       container inserts it;
 *   <li>{@link #MAX_DEPTH}: object nesting, before the stack overflows;
 *   <li>{@link #PRESIZE_LIMIT}: not a limit but a rule: no collection is pre-sized from a declared
 *       count beyond this; it grows as elements actually arrive.
 * </ul>
 *
 * Writing enforces the same limits, so a value beyond one is refused at write, not stored and then
 * refused at every read. The decompressed size is bounded by the payload maximum and the zstd ratio cap
 * ({@code ZstdCompressor.MAX_RATIO}).
 */
final class DecodeLimits {
  static final int MAX_ELEMENTS = 2_000_000;
  static final long MAX_GRAPH_VISITS = 10_000_000L;
  static final long MAX_COLLISION_WORK = 50_000_000L;
  static final int MAX_DEPTH = 512;
  static final int PRESIZE_LIMIT = 256;

  private DecodeLimits() {}
}
