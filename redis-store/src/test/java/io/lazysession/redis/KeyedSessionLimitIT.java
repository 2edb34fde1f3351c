package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The limit of sessions per principal with encryption keys and keyed names: the limit holds, and
 * neither its keys, nor the members of its sets, nor its script arguments name a session id or the
 * principal in clear.
 */
class KeyedSessionLimitIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static TestRedis.TwoClients clients;
  static RedisCommands<byte[], byte[]> raw;

  @BeforeAll
  static void connect() {
    clients = TestRedis.TwoClients.open(redis.uri());
    raw = clients.raw();
  }

  @AfterAll
  static void shutdown() {
    clients.close();
  }

  private static LazyRedisSessionRepository node(RedisClient client, String namespace,
      SessionLimit limit, RecordingEventPublisher events) {
    return LazyRedisSessionRepository.builder(client).serializer(TestRedis.serializer())
        .namespace(namespace).sessionLimit(limit).eventPublisher(events)
        .encryption(KeyedNamesIT.k1(false, false)).cleanupInterval(Duration.ZERO).build();
  }

  static Stream<Arguments> limits() {
    List<Arguments> arguments = new ArrayList<>();
    for (Function<LazyRedisSessionRepository, Face> face :
        List.<Function<LazyRedisSessionRepository, Face>>of(Face::servlet, Face::reactive)) {
      arguments.add(Arguments.of(face, SessionLimit.evictOldest(1)));
      arguments.add(Arguments.of(face, SessionLimit.refuseNew(2)));
    }
    return arguments.stream();
  }

  @ParameterizedTest(name = "{1} {0}")
  @MethodSource("limits")
  void save_keys_concurrentSignInsOverTwoNodes_leaveExactlyTheLimit(
      Function<LazyRedisSessionRepository, Face> faceOf, SessionLimit limit) throws Exception {
    String namespace = TestRedis.uniqueNamespace("keyed-limit");
    ConcurrentSignIns.runAndCheck((index, events) ->
        node(index == 0 ? clients.a() : clients.b(), namespace, limit, events), faceOf, limit);
    assertThat(KeyedNamesIT.dump(raw, "*" + namespace + "*")).as("dump")
        .doesNotContain(":principal:" + ConcurrentSignIns.USER);
    assertEveryMemberSealed(namespace);
  }

  /** Every member of the principal sets, their orders and the schedule is a sealed id. */
  static void assertEveryMemberSealed(String namespace) {
    io.lettuce.core.ScanIterator<byte[]> keys = io.lettuce.core.ScanIterator.scan(raw,
        io.lettuce.core.KeyScanArgs.Builder.matches("*" + namespace + "*"));
    int members = 0;
    while (keys.hasNext()) {
      byte[] key = keys.next();
      List<byte[]> found = switch (raw.type(key)) {
        case "set" -> new ArrayList<>(raw.smembers(key));
        case "zset" -> raw.zrange(key, 0, -1);
        default -> List.of();
      };
      for (byte[] member : found) {
        assertThat(SessionNames.isSealedId(member)).as("a member of %s",
            new String(key, java.nio.charset.StandardCharsets.ISO_8859_1)).isTrue();
        members++;
      }
    }
    assertThat(members).isPositive();
  }

  @Test
  void signIns_keysAndALimit_noIdNorPrincipalInRedisNorInCommands() throws Exception {
    String namespace = TestRedis.uniqueNamespace("keyed-limit-dump");
    String user = "limited.user@example.org";
    List<String> secrets = new ArrayList<>(List.of(user));
    RecordingEventPublisher events = new RecordingEventPublisher();
    try (KeyedNamesIT.Monitor monitor = KeyedNamesIT.Monitor.start(redis.uri().getHost(),
            redis.uri().getPort(), raw);
        LazyRedisSessionRepository evicting = node(clients.a(), namespace,
            SessionLimit.evictOldest(2), events);
        LazyRedisSessionRepository refusing = node(clients.b(), namespace,
            SessionLimit.refuseNew(2), new RecordingEventPublisher())) {
      for (int i = 0; i < 3; i++) {
        secrets.add(KeyedNamesIT.signIn(evicting, user));
      }
      assertThat(events.ofType(org.springframework.session.events.SessionDeletedEvent.class))
          .extracting(e -> e.getSessionId()).containsExactly(secrets.get(1));
      assertThat(evicting.findByPrincipalName(user)).containsOnlyKeys(secrets.get(2),
          secrets.get(3));
      LazySession changing = evicting.findById(secrets.get(3));
      secrets.add(changing.changeSessionId()); // an id change: admitted in the old id's place
      evicting.save(changing);
      assertThat(evicting.findByPrincipalName(user)).containsOnlyKeys(secrets.get(2),
          secrets.get(4));
      LazySession refused = refusing.createSession();
      secrets.add(refused.getId());
      refused.setAttribute(
          org.springframework.session.FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME,
          user);
      assertThatThrownBy(() -> refusing.save(refused))
          .isInstanceOf(SessionLimitExceededException.class);
      assertThat(refusing.findByPrincipalName(user)).containsOnlyKeys(secrets.get(2),
          secrets.get(4));

      String commands = monitor.stop();
      String dump = KeyedNamesIT.dump(raw, "*" + namespace + "*");
      assertThat(commands).contains(":order");
      assertThat(dump).contains(":order");
      for (String secret : secrets) {
        assertThat(commands).as("MONITOR").doesNotContain(secret);
        assertThat(dump).as("dump").doesNotContain(secret);
      }
      assertEveryMemberSealed(namespace);
    }
  }
}
