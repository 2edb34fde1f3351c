package io.lazysession.serializer.codec;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A bounded pool of Kryo instances, each used by one thread at a time. Thread-safe and lock-free: a
 * borrower takes the first occupied slot, a returner fills the first empty one, and an instance that
 * finds no slot free is dropped. Kryo's own thread-safe pool goes through a {@code LinkedBlockingQueue}
 * whose lock, taken twice per value, cost a few percent of decoding a small attribute. Slots are
 * separate {@link AtomicReference}s rather than an {@code AtomicReferenceArray}, whose array element
 * access checks the element type on every call (a visible share of a small decode's profile).
 */
final class KryoPool {
  private final AtomicReference<KryoFactory.PooledKryo>[] slots;
  private final Supplier<KryoFactory.PooledKryo> factory;

  KryoPool(int capacity, Supplier<KryoFactory.PooledKryo> factory) {
    @SuppressWarnings("unchecked")
    AtomicReference<KryoFactory.PooledKryo>[] created = new AtomicReference[capacity];
    for (int i = 0; i < capacity; i++) {
      created[i] = new AtomicReference<>();
    }
    this.slots = created;
    this.factory = factory;
  }

  KryoFactory.PooledKryo obtain() {
    for (AtomicReference<KryoFactory.PooledKryo> slot : slots) {
      if (slot.get() != null) {
        KryoFactory.PooledKryo taken = slot.getAndSet(null);
        if (taken != null) {
          return taken;
        }
      }
    }
    return factory.get();
  }

  void free(KryoFactory.PooledKryo pooled) {
    for (AtomicReference<KryoFactory.PooledKryo> slot : slots) {
      if (slot.get() == null && slot.compareAndSet(null, pooled)) {
        return;
      }
    }
  }
}
