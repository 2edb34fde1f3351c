package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Many concurrent requests on one session, over two nodes, each changing an attribute of its own:
 * with delta writes none of the changes is lost.
 */
class LostUpdateIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  static final int THREADS = 16;
  static final int REQUESTS_PER_THREAD = 64;

  @Test
  void save_concurrentRequestsOnTwoNodesChangingOwnAttributes_loseNoUpdate() throws Exception {
    LazyRedisSessionRepository nodeA = nodes.a();
    LazyRedisSessionRepository nodeB = nodes.b();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      LazySession shared = nodeA.createSession();
      shared.setAttribute("cart", ShopFixtures.attributes().get("cart"));
      nodeA.save(shared);
      String id = shared.getId();

      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        LazyRedisSessionRepository node = t % 2 == 0 ? nodeA : nodeB;
        int thread = t;
        futures.add(pool.submit(() -> {
          start.await();
          for (int request = 0; request < REQUESTS_PER_THREAD; request++) {
            LazySession session = node.findById(id);
            session.getAttribute("cart"); // read, unchanged: must not overwrite anything
            session.setAttribute("t" + thread + "-r" + request, request);
            node.save(session);
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> future : futures) {
        future.get(120, TimeUnit.SECONDS);
      }

      LazySession result = nodeB.findById(id);
      assertThat(result.getAttributeNames()).hasSize(THREADS * REQUESTS_PER_THREAD + 1);
      for (int t = 0; t < THREADS; t++) {
        for (int request = 0; request < REQUESTS_PER_THREAD; request++) {
          assertThat(result.<Integer>getAttribute("t" + t + "-r" + request)).isEqualTo(request);
        }
      }
      // Every update adds a step of at least one to the version (save.lua).
      assertThat(result.version()).isGreaterThanOrEqualTo(THREADS * REQUESTS_PER_THREAD + 1);
    } finally {
      pool.shutdownNow();
    }
  }
}
