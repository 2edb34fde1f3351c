package io.lazysession.serializer.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.ClassNotAllowedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class KryoPoolTest {
  private static final ClassAllowList ALLOW = ClassAllowList.jdkOnly();

  private static KryoFactory.PooledKryo newKryo() {
    return KryoFactory.create(ALLOW, KryoPoolTest.class.getClassLoader(), 1 << 20);
  }

  @Test
  void obtain_afterFree_returnsSameInstance() {
    AtomicInteger created = new AtomicInteger();
    KryoPool pool = new KryoPool(2, () -> {
      created.incrementAndGet();
      return newKryo();
    });
    KryoFactory.PooledKryo first = pool.obtain();
    pool.free(first);

    assertThat(pool.obtain()).isSameAs(first);
    assertThat(created).hasValue(1);
  }

  @Test
  void free_poolFull_dropsInstance() {
    KryoPool pool = new KryoPool(1, KryoPoolTest::newKryo);
    KryoFactory.PooledKryo a = pool.obtain();
    KryoFactory.PooledKryo b = pool.obtain();
    pool.free(a);
    pool.free(b);

    assertThat(pool.obtain()).isSameAs(a);
    assertThat(pool.obtain()).isNotSameAs(b);
  }

  @Test
  void obtain_concurrentBorrowers_neverShareAnInstance() throws Exception {
    KryoPool pool = new KryoPool(2, KryoPoolTest::newKryo);
    List<KryoFactory.PooledKryo> inUse = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(threads.submit(() -> {
          for (int i = 0; i < 2000; i++) {
            KryoFactory.PooledKryo pooled = pool.obtain();
            synchronized (inUse) {
              Assertions.assertThat(inUse).doesNotContain(pooled);
              inUse.add(pooled);
            }
            inUse.remove(pooled);
            pool.free(pooled);
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void decode_disallowedNameAfterAllowedOnes_stillRefused() {
    Codec codec = Codecs.kryo(ClassAllowList.builder().allowPackage("io.lazysession.serializer.fixtures")
        .build(), KryoPoolTest.class.getClassLoader());
    Codec writer = Codecs.kryo(ClassAllowList.builder().allowPackage("io.lazysession.serializer")
        .build(), KryoPoolTest.class.getClassLoader());
    byte[] allowed = writer.encode(new io.lazysession.serializer.fixtures.Point(1, 2, "p"));
    byte[] refused = writer.encode(new io.lazysession.serializer.forbidden.Gadget());
    for (int i = 0; i < 3; i++) {
      codec.decode(allowed, 0, allowed.length);
      Assertions.assertThatThrownBy(() -> codec.decode(refused, 0, refused.length))
          .isInstanceOf(ClassNotAllowedException.class);
    }
  }
}
