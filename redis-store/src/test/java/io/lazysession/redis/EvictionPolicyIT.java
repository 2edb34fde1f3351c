package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * What lazysession does with Redis's memory limit: a policy that may evict its index keys is warned
 * about when the repository connects, and a full Redis under noeviction is reported as unavailable
 * (503), not as an error, with nothing half-written.
 */
class EvictionPolicyIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  final Logger checkLogger = (Logger) LoggerFactory.getLogger(EvictionPolicyCheck.class);
  RedisClient client;
  RedisCommands<byte[], byte[]> raw;

  @BeforeEach
  void connect() {
    client = DurableSaves.client(redis.uri());
    raw = TestRedis.rawCommands(client);
    logs.start();
    checkLogger.addAppender(logs);
  }

  @AfterEach
  void restore() {
    checkLogger.detachAppender(logs);
    raw.configSet("maxmemory", "0");
    raw.configSet("maxmemory-policy", "noeviction");
    client.shutdown();
  }

  LazyRedisSessionRepository repository() {
    return LazyRedisSessionRepository.builder(client).serializer(TestRedis.serializer())
        .namespace(TestRedis.uniqueNamespace("eviction")).cleanupInterval(Duration.ZERO).build();
  }

  @Test
  void build_allKeysEviction_warnsNamingThePolicyAndTheFix() {
    raw.configSet("maxmemory", "1gb");
    raw.configSet("maxmemory-policy", "allkeys-lru");

    try (LazyRedisSessionRepository repository = repository()) {
      assertThat(logs.list).filteredOn(e -> e.getLevel() == Level.WARN).singleElement()
          .extracting(ILoggingEvent::getFormattedMessage).asString()
          .contains("maxmemory-policy allkeys-lru")
          .contains("expiry schedule")
          .contains("Set maxmemory-policy to noeviction")
          .contains("volatile-lru");
    }
  }

  @Test
  void build_volatileEvictionOrNoLimit_saysNothing() {
    raw.configSet("maxmemory", "1gb");
    raw.configSet("maxmemory-policy", "volatile-lru");
    try (LazyRedisSessionRepository repository = repository()) {
      assertThat(logs.list).isEmpty();
    }
    raw.configSet("maxmemory", "0");
    raw.configSet("maxmemory-policy", "allkeys-lru");
    try (LazyRedisSessionRepository repository = repository()) {
      assertThat(logs.list).isEmpty();
    }
  }

  @Test
  void save_redisFullUnderNoEviction_reportedUnavailableAndNothingWritten() {
    try (LazyRedisSessionRepository repository = repository()) {
      LazySession session = repository.createSession();
      session.setAttribute("cart", "book");
      raw.configSet("maxmemory-policy", "noeviction");
      raw.configSet("maxmemory", "1"); // below what Redis already uses: every write is refused

      assertThatThrownBy(() -> repository.save(session))
          .isInstanceOf(SessionStoreUnavailableException.class)
          .hasMessageContaining("OOM");

      raw.configSet("maxmemory", "0");
      assertThat(repository.findById(session.getId())).isNull();
      repository.save(session);
      assertThat((String) repository.findById(session.getId()).getAttribute("cart"))
          .isEqualTo("book");
    }
  }
}
