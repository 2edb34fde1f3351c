package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.reference.ReferenceSession;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.util.concurrent.atomic.AtomicInteger;

/** Helpers shared by the store's integration tests. */
final class TestRedis {
  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  private TestRedis() {}

  /** A namespace no other test uses, so tests sharing a server stay independent. */
  static String uniqueNamespace(String test) {
    return "t" + ProcessHandle.current().pid() + "-" + NAMESPACES.incrementAndGet() + "-" + test;
  }

  static AttributeSerializer serializer(CodecKind codec) {
    return AttributeSerializer.builder()
        .codec(codec)
        .allowList(ClassAllowList.builder().allowPackage("io.lazysession.redis")
            .allowPackage(ReferenceSession.PACKAGE).build())
        .build();
  }

  static AttributeSerializer serializer() {
    return serializer(CodecKind.KRYO);
  }

  /** Saves a new session holding {@link ShopFixtures#attributes()}; returns its id. */
  static String storeShopSession(LazyRedisSessionRepository repository) {
    LazySession session = repository.createSession();
    ShopFixtures.attributes().forEach(session::setAttribute);
    repository.save(session);
    return session.getId();
  }

  /**
   * The attributes a session hash stores (name to envelope), those in fields of their own and those
   * in the pack ({@code #s}) alike, as a load sees them: an own field wins over a pack entry.
   */
  static java.util.Map<String, byte[]> storedAttributes(RedisCommands<byte[], byte[]> raw,
      byte[] key) {
    java.util.Map<String, byte[]> own = new java.util.LinkedHashMap<>();
    for (java.util.Map.Entry<byte[], byte[]> field : raw.hgetall(key).entrySet()) {
      String name = new String(field.getKey(), java.nio.charset.StandardCharsets.UTF_8);
      if (!PackFields.reserved(field.getKey()) && SessionKeys.attributeName(name) != null) {
        own.put(SessionKeys.attributeName(name), field.getValue());
      }
    }
    byte[] pack = pack(raw, key);
    java.util.Map<String, byte[]> all = new java.util.LinkedHashMap<>();
    if (pack != null) {
      all.putAll(serializer().unpack(pack));
    }
    all.putAll(own);
    return all;
  }

  /**
   * The pack of a session hash as the store reads it ({@link PackFields}): the field
   * {@code #s}, or else its chunks joined; null when there is none.
   */
  static byte[] pack(RedisCommands<byte[], byte[]> raw, byte[] key) {
    PackFields pack = new PackFields();
    raw.hgetall(key).forEach(pack::offer);
    return pack.pack();
  }

  /**
   * Moves a session hash to the next version, as every write of the store does: for a test that
   * plants bytes and wants no node to trust its near-cache copy any more.
   */
  static void bumpVersion(RedisCommands<byte[], byte[]> raw, byte[] key) {
    byte[] field = SessionKeys.METADATA.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    String[] parts = new String(raw.hget(key, field), java.nio.charset.StandardCharsets.UTF_8)
        .split(":");
    parts[3] = Long.toString(Long.parseLong(parts[3]) + 1);
    raw.hset(key, field, String.join(":", parts).getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** A plain binary connection, to look at (or plant) what the repository stores. */
  static RedisCommands<byte[], byte[]> rawCommands(RedisClient client) {
    StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
    return connection.sync();
  }

  /** Two clients on one server, standing for two application nodes, and a raw connection. */
  record TwoClients(RedisClient a, RedisClient b, RedisCommands<byte[], byte[]> raw)
      implements AutoCloseable {
    static TwoClients open(RedisURI uri) {
      RedisClient a = RedisClient.create(uri);
      return new TwoClients(a, RedisClient.create(uri), rawCommands(a));
    }

    @Override
    public void close() {
      a.shutdown();
      b.shutdown();
    }
  }
}
