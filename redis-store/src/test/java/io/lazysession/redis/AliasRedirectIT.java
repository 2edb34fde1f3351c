package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.session.FindByIndexNameSessionRepository;

/**
 * A writer of Redis, against nodes with keys (id renewal on, and off: save.lua still answers
 * "moved" to an alias it finds), turns its own session
 * hash into a renewal alias ('#>') naming another user's sealed id (copied from any hash's '#i' or
 * from the expiry schedule): the alias is bound to the id it replaces, so no node follows it
 * (docs/security.md, "What a writer of Redis can do").
 */
class AliasRedirectIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .defaultMaxInactiveInterval(Duration.ofHours(1))
      .idRenewal(Duration.ofMinutes(15), Duration.ofSeconds(10))
      .encryption(KeyedNamesIT.k1(false, false)));

  private static String signIn(LazyRedisSessionRepository node, String user) {
    LazySession session = node.createSession();
    session.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, user);
    session.setAttribute("secret", "data of " + user);
    node.save(session);
    return session.getId();
  }

  /** What the attacker does with redis-cli: its own key (seen with MONITOR) becomes an alias. */
  private static void plantAlias(byte[] attackerKey, byte[] victimKey) {
    // The attacker finds another user's hash by SCAN (e.g. the newest by the clear '#' creation
    // time); it cannot compute the keyed name, the test names it directly.
    byte[] victimSealedId = nodes.raw().hget(victimKey, "#i".getBytes(UTF_8));
    assertThat(victimSealedId).as("a sealed id copied from another hash").isNotNull();
    nodes.raw().del(attackerKey);
    nodes.raw().hset(attackerKey, "#>".getBytes(UTF_8), victimSealedId);
    nodes.raw().hset(attackerKey, "#t".getBytes(UTF_8), "99999999999999".getBytes(UTF_8));
    nodes.raw().pexpire(attackerKey, 3_600_000);
  }

  @Test
  void findById_attackersOwnCookie_mustNotReturnAnotherUsersSession() {
    String victim = signIn(nodes.a(), "victim");
    String attacker = signIn(nodes.a(), "mallory");

    plantAlias(nodes.sessionKey(attacker), nodes.sessionKey(victim));
    LazySession found = nodes.b().findById(attacker); // the attacker's own cookie, on node B

    assertThat(found == null ? null : found.getId()).as("session handed to the attacker's cookie "
        + "(victim id " + victim + ")").isNotEqualTo(victim);
  }

  @Test
  void save_attackersOwnSession_mustNotLandInAnotherUsersSession() {
    String victim = signIn(nodes.a(), "victim2");
    String attacker = signIn(nodes.a(), "mallory2");
    LazySession attackers = nodes.b().findById(attacker); // a request in flight

    plantAlias(nodes.sessionKey(attacker), nodes.sessionKey(victim));
    attackers.setAttribute("secret", "written by mallory2");
    nodes.b().save(attackers);

    assertThat((String) nodes.a().findById(victim).getAttribute("secret"))
        .isEqualTo("data of victim2");
  }

  @Test
  void save_renewalOff_attackersOwnSession_mustNotLandInAnotherUsersSession() {
    nodes.configure(builder -> builder.idRenewal(null, Duration.ofSeconds(10)));
    save_attackersOwnSession_mustNotLandInAnotherUsersSession();
  }
}
