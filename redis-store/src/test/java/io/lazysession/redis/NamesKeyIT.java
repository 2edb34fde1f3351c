package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The names secret kept in Redis wrapped under every key ({@link NamesKey}): keys are the only
 * setting; a node whose secret for a known key id is not the cluster's refuses to start and writes
 * nothing; a rotation across nodes keeps every session's name; nodes starting together agree.
 */
class NamesKeyIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final AtomicInteger NAMESPACES = new AtomicInteger();
  static RedisClient client;
  static RedisCommands<byte[], byte[]> raw;
  final List<LazyRedisSessionRepository> open = new ArrayList<>();

  @BeforeAll
  static void connect() {
    client = RedisClient.create(redis.uri());
    raw = TestRedis.rawCommands(client);
  }

  @AfterAll
  static void shutdown() {
    client.shutdown();
  }

  @AfterEach
  void closeNodes() {
    open.forEach(LazyRedisSessionRepository::close);
  }

  static EncryptionKey key(String id, int seed) {
    byte[] bytes = new byte[EncryptionKey.SECRET_BYTES];
    new Random(seed).nextBytes(bytes);
    return EncryptionKey.of(id, bytes);
  }

  static String namespace() {
    return "names" + NAMESPACES.incrementAndGet();
  }

  LazyRedisSessionRepository node(String namespace, EncryptionKey... keys) {
    LazyRedisSessionRepository node = LazyRedisSessionRepository.builder(client)
        .namespace(namespace)
        .encryption(SessionEncryption.builder().keys(List.of(keys)).acceptUnprotected(false)
            .build())
        .build();
    open.add(node);
    return node;
  }

  static String created(LazyRedisSessionRepository node, String marker) {
    LazySession session = node.createSession();
    session.setAttribute("marker", marker);
    node.save(session);
    return session.getId();
  }

  static void assertFound(LazyRedisSessionRepository node, String id, String marker) {
    LazySession session = node.findById(id);
    assertThat(session).as("session %s", marker).isNotNull();
    assertThat(session.<String>getAttribute("marker")).isEqualTo(marker);
  }

  /** Every key of the namespace with its fields and values, to compare before and after. */
  static Map<String, String> snapshot(String namespace) {
    Map<String, String> all = new TreeMap<>();
    ScanIterator<byte[]> keys = ScanIterator.scan(raw, KeyScanArgs.Builder.matches(namespace + ":*"));
    while (keys.hasNext()) {
      byte[] key = keys.next();
      String type = raw.type(key);
      Map<String, String> fields = new TreeMap<>();
      if (type.equals("hash")) {
        raw.hgetall(key).forEach((f, v) -> fields.put(new String(f, UTF_8),
            java.util.HexFormat.of().formatHex(v)));
      }
      all.put(new String(key, UTF_8), type + fields);
    }
    return all;
  }

  @Test
  void build_sameKeyIdOtherSecret_refusesNamingTheKeyAndWritesNothing() {
    String namespace = namespace();
    LazyRedisSessionRepository first = node(namespace, key("k1", 1));
    String id = created(first, "kept");
    Map<String, String> before = snapshot(namespace);

    assertThatThrownBy(() -> node(namespace, key("k1", 666)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("key 'k1' of this node is not the key 'k1'")
        .hasMessageContaining("lazysession.encryption.keys")
        .hasMessageContaining("same secret for 'k1'");
    assertThatThrownBy(() -> node(namespace, key("k2", 2), key("k1", 666)))
        .hasMessageContaining("key 'k1' of this node is not the key 'k1'");

    assertThat(snapshot(namespace)).isEqualTo(before);
    assertFound(first, id, "kept");
  }

  @Test
  void build_noneOfTheKeyIdsTheSecretIsStoredUnder_refusesNamingThem() {
    String namespace = namespace();
    node(namespace, key("k1", 1));

    assertThatThrownBy(() -> node(namespace, key("k9", 9)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stored in Redis under key ids [k1] only")
        .hasMessageContaining("it holds [k9]");
  }

  @Test
  void rotation_twoNodesThroughEveryStep_keepEveryName() {
    String namespace = namespace();
    EncryptionKey k1 = key("k1", 1);
    EncryptionKey k2 = key("k2", 2);
    List<String> markers = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    EncryptionKey[][] steps = {{k1}, {k1, k2}, {k2, k1}, {k2}};
    LazyRedisSessionRepository a = null;
    LazyRedisSessionRepository b = null;
    for (int step = 0; step < steps.length; step++) {
      // a rolling deploy: node a restarts with the step's keys first, then node b
      for (int restart = 0; restart < 2; restart++) {
        LazyRedisSessionRepository restarted = node(namespace, steps[step]);
        if (restart == 0) {
          a = restarted;
        } else {
          b = restarted;
        }
        if (b == null) {
          b = a;
        }
        String marker = "step " + step + " restart " + restart;
        ids.add(created(restarted, marker));
        markers.add(marker);
        for (int i = 0; i < ids.size(); i++) {
          assertFound(a, ids.get(i), markers.get(i));
          assertFound(b, ids.get(i), markers.get(i));
        }
      }
      if (step == 2) {
        assertThat(a.reencrypt().remaining()).isZero(); // before k1 goes
      }
    }
    assertThat(raw.hkeys(NamesKey.key(namespace)))
        .extracting(field -> new String(field, UTF_8)).containsExactlyInAnyOrder("k1", "k2");
  }

  @Test
  void build_nodesStartingTogether_agreeOnOneNamesSecret() throws Exception {
    String namespace = namespace();
    int nodes = 4;
    ExecutorService threads = Executors.newFixedThreadPool(nodes);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<LazyRedisSessionRepository>> started = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      EncryptionKey[] keys = i % 2 == 0 ? new EncryptionKey[] {key("k1", 1)}
          : new EncryptionKey[] {key("k1", 1), key("k2", 2)};
      started.add(threads.submit(() -> {
        start.await();
        return LazyRedisSessionRepository.builder(client).namespace(namespace)
            .encryption(SessionEncryption.builder().keys(List.of(keys)).build()).build();
      }));
    }
    start.countDown();
    List<LazyRedisSessionRepository> built = new ArrayList<>();
    for (Future<LazyRedisSessionRepository> node : started) {
      built.add(node.get(30, TimeUnit.SECONDS));
    }
    open.addAll(built);
    threads.shutdown();

    for (LazyRedisSessionRepository writer : built) {
      String id = created(writer, "by " + built.indexOf(writer));
      for (LazyRedisSessionRepository reader : built) {
        assertFound(reader, id, "by " + built.indexOf(writer));
      }
    }
  }
}
