package io.lazysession.serializer.codec;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * A bounded pool of Kryo instances, each used by one thread at a time. Thread-safe and lock-free: a
 * borrower takes the first occupied slot, a returner fills the first empty one, and an instance that
 * finds no slot free is dropped. Kryo's own thread-safe pool goes through a {@code LinkedBlockingQueue}
 * whose lock, taken twice per value, cost a few percent of decoding a small attribute.
 */
final class KryoPool {
  private final AtomicReferenceArray<KryoFactory.PooledKryo> slots;
  private final Supplier<KryoFactory.PooledKryo> factory;

  KryoPool(int capacity, Supplier<KryoFactory.PooledKryo> factory) {
    this.slots = new AtomicReferenceArray<>(capacity);
    this.factory = factory;
  }

  KryoFactory.PooledKryo obtain() {
    for (int i = 0; i < slots.length(); i++) {
      if (slots.get(i) != null) {
        KryoFactory.PooledKryo taken = slots.getAndSet(i, null);
        if (taken != null) {
          return taken;
        }
      }
    }
    return factory.get();
  }

  void free(KryoFactory.PooledKryo pooled) {
    for (int i = 0; i < slots.length(); i++) {
      if (slots.get(i) == null && slots.compareAndSet(i, null, pooled)) {
        return;
      }
    }
  }
}
