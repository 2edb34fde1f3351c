package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Id renewal with encryption keys and keyed names, on two nodes and one hand-moved clock: the
 * alias under the old id and the answers that send an update to the new id hold it sealed, the
 * copy under the new id carries {@code #i}, and no id nor principal appears in clear in Redis or in
 * a command, while the old id still reaches the session within the grace and nothing after it.
 */
class KeyedIdRenewalIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final Duration INTERVAL = Duration.ofMinutes(15);
  static final Duration GRACE = Duration.ofSeconds(10);

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .defaultMaxInactiveInterval(Duration.ofHours(1)).idRenewal(INTERVAL, GRACE)
      .encryption(KeyedNamesIT.k1(false, false)));

  static Stream<Function<LazyRedisSessionRepository, Face>> faces() {
    return IdRenewalIT.faces();
  }

  private static LazySession signedIn(Face face, String name) {
    return IdRenewalIT.signedIn(face, name); // with a cart of 3 books
  }

  /** The id a field of session {@code id}'s hash holds sealed; null when absent or not sealed. */
  private static String sealedField(String id, String field) {
    byte[] value = nodes.raw().hget(nodes.sessionKey(id), field.getBytes(UTF_8));
    return value == null || !SessionNames.isSealedId(value) ? null
        : nodes.a().shared().store().keys().idOf(value);
  }

  @ParameterizedTest
  @MethodSource("faces")
  void findById_keys_afterTheIntervalMovesToANewIdWithTheAliasAndTheCopySealed(
      Function<LazyRedisSessionRepository, Face> faceOf) {
    Face a = faceOf.apply(nodes.a());
    LazySession created = signedIn(a, "alice");
    String oldId = created.getId();
    nodes.clock().advance(INTERVAL);

    LazySession renewed = a.find(oldId);

    String newId = renewed.getId();
    assertThat(newId).isNotEqualTo(oldId);
    assertThat((String) renewed.getAttribute("cart")).isEqualTo("3 books");
    assertThat(a.findByPrincipalName("alice")).containsOnlyKeys(newId);
    byte[] alias = nodes.raw().hget(nodes.sessionKey(oldId), SessionKeys.ALIAS.getBytes(UTF_8));
    SessionKeys keys = nodes.a().shared().store().keys();
    assertThat(keys.aliasTarget(oldId, alias, nodes.clock().millis()))
        .as("the alias, sealed and bound to the old id").isEqualTo(newId);
    assertThat(keys.aliasTarget(newId, alias, nodes.clock().millis()))
        .as("under another id").isNull();
    assertThat(sealedField(newId, SessionKeys.ID)).as("#i of the copy").isEqualTo(newId);
    assertThat(faceOf.apply(nodes.b()).find(oldId).getId()).as("the old id on B").isEqualTo(newId);
  }

  @ParameterizedTest
  @MethodSource("faces")
  void oldId_keys_withinTheGraceReachesTheSessionAndItsWritesLandAfterItNothing(
      Function<LazyRedisSessionRepository, Face> faceOf) throws Exception {
    Face a = faceOf.apply(nodes.a());
    Face b = faceOf.apply(nodes.b());
    String user = "renewing.user@example.org";
    List<String> secrets = new ArrayList<>(List.of(user));
    String oldId = signedIn(a, user).getId();
    secrets.add(oldId);
    LazySession inFlight = b.find(oldId); // loaded on B before the renewal
    LazySession tooLate = b.find(oldId);
    nodes.clock().advance(INTERVAL);
    String newId;
    String commands;
    try (KeyedNamesIT.Monitor monitor = KeyedNamesIT.Monitor.start(redis.uri().getHost(),
        redis.uri().getPort(), nodes.raw())) {
      newId = a.find(oldId).getId();
      secrets.add(newId);
      inFlight.setAttribute("inFlight", "kept");
      b.save(inFlight); // save.lua sends it on to the new id
      nodes.clock().advance(GRACE.minusSeconds(1));
      LazySession late = b.find(oldId); // the old cookie within the grace
      late.setAttribute("late", "kept too");
      b.save(late);
      assertThat(inFlight.getId()).isEqualTo(newId);
      assertThat(late.getId()).isEqualTo(newId);
      commands = monitor.stop();
    }
    String dump = KeyedNamesIT.dump(nodes.raw(), "*" + nodes.namespace() + "*");
    assertThat(commands).contains(nodes.namespace() + ":s:{");
    for (String secret : secrets) {
      assertThat(commands).as("MONITOR").doesNotContain(secret);
      assertThat(dump).as("dump").doesNotContain(secret);
    }
    LazySession current = a.find(newId);
    assertThat((String) current.getAttribute("inFlight")).isEqualTo("kept");
    assertThat((String) current.getAttribute("late")).isEqualTo("kept too");
    assertThat(a.findByPrincipalName(user)).containsOnlyKeys(newId);

    nodes.clock().advance(Duration.ofSeconds(1)); // the grace is over
    tooLate.setAttribute("tooLate", "lost");
    b.save(tooLate);
    assertThat(b.find(oldId)).isNull();
    assertThat((String) a.find(newId).getAttribute("tooLate")).isNull();
  }
}
