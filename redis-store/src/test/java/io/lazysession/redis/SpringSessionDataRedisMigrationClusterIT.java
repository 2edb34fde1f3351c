package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.config.ClientsFromProperties;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.session.Session;
import org.springframework.session.SessionRepository;
import org.springframework.session.data.redis.RedisIndexedSessionRepository;
import org.springframework.session.data.redis.RedisSessionRepository;

/**
 * Taking Spring Session Data Redis's indexed sessions over on a Redis Cluster, where its keys and
 * lazysession's key for the same id are in different slots: the lookup is a second call on a miss,
 * and every removal a command routed to its own slot.
 */
class SpringSessionDataRedisMigrationClusterIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.cluster();

  static RedisClusterClient clientA;
  static RedisClusterClient clientB;
  static LettuceConnectionFactory connectionFactory;
  static RedisIndexedSessionRepository ssdr;
  static RedisTemplate<String, Object> template;

  @BeforeAll
  static void connect() {
    List<String> nodes = redis.clusterNodes().stream()
        .map(node -> node.host() + ":" + node.port()).toList();
    Map<String, String> properties = Map.of(
        "spring.data.redis.cluster.nodes", String.join(",", nodes),
        "spring.data.redis.timeout", "2s");
    clientA = (RedisClusterClient) ClientsFromProperties.create(properties);
    clientB = (RedisClusterClient) ClientsFromProperties.create(properties);
    connectionFactory = new LettuceConnectionFactory(new RedisClusterConfiguration(nodes));
    connectionFactory.afterPropertiesSet();
    connectionFactory.start();
    template = SpringSessionDataRedisMigrationIT.ssdrTemplate(connectionFactory);
    ssdr = new RedisIndexedSessionRepository(template);
    ssdr.setCleanupCron("-");
    ssdr.afterPropertiesSet();
  }

  @AfterAll
  static void shutdown() throws Exception {
    ssdr.destroy();
    connectionFactory.destroy();
    clientA.shutdown();
    clientB.shutdown();
  }

  static LazyRedisSessionRepository node(RedisClusterClient client) {
    return LazyRedisSessionRepository.builder(client)
        .serializer(SpringSessionDataRedisMigrationIT.serializer())
        .namespace(TestRedis.uniqueNamespace("migration"))
        .cleanupInterval(Duration.ZERO)
        .migrateFrom(SpringSessionDataRedis.defaults())
        .build();
  }

  @Test
  void save_sessionsOfEverySlot_takenOverWithAllAttributesAndRemovedFromSpringSessionDataRedis() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      RedisIndexedSessionRepository.RedisSession session = ssdr.createSession();
      SpringSessionDataRedisMigrationIT.attributes("user" + i).forEach(session::setAttribute);
      ssdr.save(session);
      ids.add(session.getId());
    }
    try (LazyRedisSessionRepository nodeA = node(clientA);
        LazyRedisSessionRepository nodeB = sameNamespace(nodeA)) {
      assertThat(nodeA.countSessionsWaitingForMigration()).isEqualTo(ids.size());
      assertThat(nodeA.findById("no-such-session")).isNull(); // the first call loads the scripts
      long before = nodeA.metrics().roundTrips();
      assertThat(nodeA.findById("no-such-session")).isNull();
      // A miss here, a miss there (SSDR's hash and its claim key, one script), one more look here
      // (another node may have moved it meanwhile).
      assertThat(nodeA.metrics().roundTrips() - before).isEqualTo(3);
      assertThat(nodeA.findByPrincipalName("user3")).containsOnlyKeys(ids.get(3));

      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        LazySession session = nodeA.findById(id);
        SpringSessionDataRedisMigrationIT.assertHoldsAll(session,
            SpringSessionDataRedisMigrationIT.attributes("user" + i));
        session.setAttribute("migrated", true);
        nodeA.save(session);

        assertThat(ssdr.findById(id)).isNull();
        assertThat(template.hasKey("spring:session:sessions:expires:" + id)).isFalse();
        assertThat(template.opsForSet().members("spring:session:index:"
            + "org.springframework.session.FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME"
            + ":user" + i)).doesNotContain(id);
        LazySession onB = nodeB.findById(id);
        assertThat((Boolean) onB.getAttribute("migrated")).isTrue();
        assertThat(nodeB.findByPrincipalName("user" + i)).containsOnlyKeys(id);
      }
      assertThat(nodeB.countSessionsWaitingForMigration()).isZero();
      assertThat(nodeA.metrics().sessionsMigrated()).isEqualTo(ids.size());
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  @SuppressWarnings({"unchecked", "rawtypes"})
  void save_springSessionDataRedisNodeWroteAfterTheLoad_nothingLostOnCluster(boolean indexed) {
    SessionRepository<Session> repository;
    if (indexed) {
      repository = (SessionRepository) ssdr;
    } else {
      repository = (SessionRepository) new RedisSessionRepository(template);
    }
    Session stored = repository.createSession();
    stored.setAttribute("items", new ArrayList<>(List.of("book")));
    stored.setAttribute("greeting", "hello");
    repository.save(stored);
    String id = stored.getId();
    try (LazyRedisSessionRepository nodeA = node(clientA);
        LazyRedisSessionRepository nodeB = sameNamespace(nodeA)) {
      LazySession onA = nodeA.findById(id);
      assertThat((Object) onA.getAttribute("items")).isEqualTo(List.of("book"));
      // Meanwhile, a request on the SSDR node.
      Session onSsdr = repository.findById(id);
      onSsdr.setAttribute("items", new ArrayList<>(List.of("book", "pen")));
      onSsdr.setAttribute("coupon", "SAVE10");
      repository.save(onSsdr);
      onA.setAttribute("theme", "dark");

      nodeA.save(onA);

      LazySession onB = nodeB.findById(id);
      assertThat((Object) onB.getAttribute("items")).isEqualTo(List.of("book", "pen"));
      assertThat((String) onB.getAttribute("coupon")).isEqualTo("SAVE10");
      assertThat((String) onB.getAttribute("theme")).isEqualTo("dark");
      assertThat((String) onB.getAttribute("greeting")).isEqualTo("hello");
      assertThat(repository.findById(id)).isNull();
      assertThat(template.hasKey("spring:session:sessions:" + id)).isFalse();
    }
  }

  static LazyRedisSessionRepository sameNamespace(LazyRedisSessionRepository node) {
    return LazyRedisSessionRepository.builder(clientB)
        .serializer(SpringSessionDataRedisMigrationIT.serializer())
        .namespace(node.namespace())
        .cleanupInterval(Duration.ZERO)
        .migrateFrom(SpringSessionDataRedis.defaults())
        .build();
  }
}
