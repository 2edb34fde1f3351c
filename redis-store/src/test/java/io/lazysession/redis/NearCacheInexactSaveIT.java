package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.session.FindByIndexNameSessionRepository;

/**
 * The near cache after saves that are not exact (another write came in between, or a retry after a
 * pack conflict): a later save of the same session object, a save then more changes in the same
 * request, an id change after a save; every read through the near cache then equals a read without
 * it.
 */
class NearCacheInexactSaveIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();
  static RedisClient client;

  @BeforeAll
  static void start() {
    client = RedisClient.create(redis.uri());
  }

  @AfterAll
  static void stop() {
    client.shutdown();
  }

  static LazyRedisSessionRepository repository(long nearCacheBytes) {
    LazyRedisSessionRepositoryBuilder b = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).cleanupInterval(Duration.ZERO);
    if (nearCacheBytes == 0) {
      b = b.nearCacheMaxBytes(0);
    }
    return b.build();
  }

  static void assertSame(LazyRedisSessionRepository cached, LazyRedisSessionRepository uncached,
      String id) {
    LazySession hit = cached.findById(id);
    LazySession loaded = uncached.findById(id);
    assertThat(hit.version()).isEqualTo(loaded.version());
    assertThat(hit.getAttributeNames()).containsExactlyInAnyOrderElementsOf(loaded.getAttributeNames());
    for (String name : loaded.getAttributeNames()) {
      Object a = hit.getAttribute(name);
      Object b = loaded.getAttribute(name);
      if (a instanceof byte[] x && b instanceof byte[] y) {
        assertThat(Arrays.equals(x, y)).as(name).isTrue();
      } else {
        assertThat(String.valueOf(a)).as(name).isEqualTo(String.valueOf(b));
      }
    }
    assertThat(hit.getLastAccessedTime()).isEqualTo(loaded.getLastAccessedTime());
    assertThat(hit.getMaxInactiveInterval()).isEqualTo(loaded.getMaxInactiveInterval());
    assertThat(hit.storedPrincipal()).isEqualTo(loaded.storedPrincipal());
  }

  @Test
  void saveThenModifyFurtherInSameRequest() {
    try (LazyRedisSessionRepository a = repository(-1); LazyRedisSessionRepository u = repository(0)) {
      String id = TestRedis.storeShopSession(a);
      LazySession s = a.findById(id);
      s.getAttribute("cart");
      s.setAttribute("visits", 43);
      a.save(s);
      assertSame(a, u, id);
      s.setAttribute("visits", 44);
      s.setAttribute("currency", "USD");
      s.setLastAccessedTime(s.getLastAccessedTime().minusSeconds(30));
      s.setMaxInactiveInterval(Duration.ofMinutes(9));
      s.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, "bob");
      a.save(s);
      assertSame(a, u, id);
      s.removeAttribute("locale");
      s.setAttribute("newOne", "x");
      a.save(s);
      assertSame(a, u, id);
      s.setAttribute("visits", 45);
      a.save(s);
      assertSame(a, u, id);
      assertThat(a.findById(id).<Integer>getAttribute("visits")).isEqualTo(45);
    }
  }

  @Test
  void twoRequestsInParallelOnOneNode_andPackConflict() {
    try (LazyRedisSessionRepository a = repository(-1); LazyRedisSessionRepository u = repository(0)) {
      String id = TestRedis.storeShopSession(a);
      LazySession s1 = a.findById(id);
      LazySession s2 = a.findById(id);
      s1.setAttribute("visits", 50);
      s1.setAttribute("small1", "a");
      a.save(s1);
      s2.setAttribute("currency", "GBP");
      s2.setAttribute("small2", "b");
      s2.setMaxInactiveInterval(Duration.ofMinutes(11));
      a.save(s2); // pack conflict, retried
      assertSame(a, u, id);
      s2.setAttribute("visits", 60);
      a.save(s2);
      assertSame(a, u, id);
      s1.setAttribute("currency", "CHF");
      a.save(s1);
      assertSame(a, u, id);
      LazySession r = u.findById(id);
      assertThat(r.<Integer>getAttribute("visits")).isEqualTo(60);
      assertThat(r.<String>getAttribute("small1")).isEqualTo("a");
      assertThat(r.<String>getAttribute("small2")).isEqualTo("b");
      assertThat(r.<String>getAttribute("currency")).isEqualTo("CHF");
    }
  }

  @Test
  void changeSessionIdAfterASaveInTheSameRequest() {
    try (LazyRedisSessionRepository a = repository(-1); LazyRedisSessionRepository u = repository(0)) {
      String id = TestRedis.storeShopSession(a);
      LazySession s = a.findById(id);
      s.setAttribute("visits", 70);
      a.save(s);
      LazySession other = a.findById(id);
      other.setAttribute("currency", "JPY");
      a.save(other);
      String newId = s.changeSessionId();
      s.setAttribute("cart", List.of("x"));
      a.save(s);
      assertThat(a.findById(id)).isNull();
      assertSame(a, u, newId);
      assertThat(u.findById(newId).<String>getAttribute("currency")).isEqualTo("JPY");
      s.setAttribute("visits", 71);
      a.save(s);
      assertSame(a, u, newId);
    }
  }

  @Test
  void secondSaveAfterANonExactSave_noPackConflict() {
    try (LazyRedisSessionRepository a = repository(-1); LazyRedisSessionRepository u = repository(0)) {
      String id = TestRedis.storeShopSession(a);
      LazySession s1 = a.findById(id);
      LazySession s2 = a.findById(id);
      s1.setAttribute("visits", 50);
      a.save(s1); // v2, exact
      s2.setMaxInactiveInterval(Duration.ofMinutes(12));
      a.save(s2); // v3, not exact: dropped from the near cache
      s2.setMaxInactiveInterval(Duration.ofMinutes(13));
      a.save(s2); // v4 == 3 + 1, but s2 never held visits 50: not a copy to cache
      assertThat(u.findById(id).<Integer>getAttribute("visits")).isEqualTo(50);
      assertThat(a.findById(id).<Integer>getAttribute("visits")).isEqualTo(50);
    }
  }
}
