package io.lazysession.serializer.codec;

import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * The hash codes of the elements (or keys) of one hash container being read or written, so that
 * {@link BoundedKryo} can count the {@code equals} calls inserting them costs: an element meets, at
 * most, every element already in the container with its hash code. One per nesting level of a pooled
 * Kryo, reused from container to container: not thread-safe.
 *
 * <p>Only distinct elements make a container's bins longer: a key put again (the same null key 950,000
 * times) replaces the value in place. When reading, an element whose insertion did not grow the
 * container is taken out of the count as the next one arrives; when writing, the container's elements
 * are distinct already.
 *
 * <p>The counts are an open-addressing table over two int arrays, nothing allocated per element. The
 * hash codes come from the bytes, so the slot function must not be one they can aim at: a fixed one
 * would let distinct hash codes pile up in one run of this table, making the count itself quadratic.
 * The slot is the top bits of the hash code times an odd multiplier drawn per instance (multiplicative
 * hashing); the counts do not depend on it, only the probing does.
 */
final class HashCollisions {
  private static final int INITIAL_SLOTS = 16;
  /** A table that grew beyond this is dropped when the container closes, not kept with the Kryo. */
  private static final int RETAINED_SLOTS = 1 << 12;

  private final int multiplier = ThreadLocalRandom.current().nextInt() | 1;
  private int[] hashes;
  /** Per slot, 1 plus how many distinct elements have its hash code; 0 marks a free slot. */
  private int[] counts;
  private int shift;
  private int size;

  private @Nullable Object container;
  private boolean keys;
  private boolean reading;
  private int childIndex;
  /** The hash code of the element read last, and the container's size before it was inserted. */
  private int pendingHash;
  private int pendingSize = -1;

  HashCollisions() {
    allocate(INITIAL_SLOTS);
  }

  /** Starts counting the children of {@code container}: all of them, or with {@code keys} every other. */
  void open(Object container, boolean keys, boolean reading) {
    this.container = container;
    this.keys = keys;
    this.reading = reading;
    this.childIndex = 0;
    this.pendingSize = -1;
  }

  boolean isOpen() {
    return container != null;
  }

  /**
   * Counts the next child read or written in the container: how many distinct elements with its
   * hash code the container holds before it (what inserting it compares it with, at most); 0 for a
   * map's value, which is not hashed.
   */
  int next(@Nullable Object child) {
    if (keys && (childIndex++ & 1) != 0) {
      return 0;
    }
    if (pendingSize >= 0 && sizeOf(container) == pendingSize) {
      counts[find(pendingHash)]--; // the last one was equal to one before it: nothing inserted
    }
    int hash = child == null ? 0 : child.hashCode();
    int earlier = add(hash);
    if (reading) {
      pendingHash = hash;
      pendingSize = sizeOf(container);
    }
    return earlier;
  }

  void close() {
    container = null;
    if (size == 0) {
      return;
    }
    if (hashes.length > RETAINED_SLOTS) {
      allocate(INITIAL_SLOTS);
    } else {
      Arrays.fill(counts, 0);
    }
    size = 0;
  }

  private static int sizeOf(@Nullable Object container) {
    return container instanceof Collection<?> c ? c.size() : container instanceof Map<?, ?> m ? m.size() : -1;
  }

  private int add(int hash) {
    int i = find(hash);
    if (counts[i] != 0) {
      return counts[i]++ - 1;
    }
    hashes[i] = hash;
    counts[i] = 2;
    if (++size > hashes.length >>> 1) {
      grow();
    }
    return 0;
  }

  /** The slot holding {@code hash}, or the free slot where it goes. */
  private int find(int hash) {
    int mask = hashes.length - 1;
    int i = (hash * multiplier) >>> shift;
    while (counts[i] != 0 && hashes[i] != hash) {
      i = (i + 1) & mask;
    }
    return i;
  }

  private void grow() {
    int[] oldHashes = hashes;
    int[] oldCounts = counts;
    allocate(hashes.length * 2);
    for (int j = 0; j < oldCounts.length; j++) {
      if (oldCounts[j] != 0) {
        int i = find(oldHashes[j]);
        hashes[i] = oldHashes[j];
        counts[i] = oldCounts[j];
      }
    }
  }

  private void allocate(int slots) {
    hashes = new int[slots];
    counts = new int[slots];
    shift = Integer.numberOfLeadingZeros(slots) + 1;
  }
}
