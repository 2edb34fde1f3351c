package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.session.FindByIndexNameSessionRepository;

/**
 * A writer of Redis against nodes configured with the keys only (the default settings of
 * protection): each test is a row of docs/security.md's table "What a writer of Redis can do",
 * made with raw Redis commands and observed through the public API. The writer knows no key; it can
 * read, copy, replay, move and rewrite anything Redis holds, and use its own session's cookie.
 */
class WriterAdversaryIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .defaultMaxInactiveInterval(Duration.ofHours(1))
      .idRenewal(Duration.ofMinutes(15), Duration.ofSeconds(10))
      .encryption(keysOnly()));

  private static final byte[] ALIAS = SessionKeys.ALIAS.getBytes(UTF_8);
  private static final byte[] ALIAS_UNTIL = SessionKeys.ALIAS_UNTIL.getBytes(UTF_8);
  private static final byte[] ID = SessionKeys.ID.getBytes(UTF_8);

  /** What "Turning it on" in docs/security.md sets: the keys, nothing else. */
  static SessionEncryption keysOnly() {
    return SessionEncryption.builder().keys(List.of(EncryptionKey.of("k1", KeyedNamesIT.secret(1))))
        .build();
  }

  private static String signIn(LazyRedisSessionRepository node, String user) {
    LazySession session = node.createSession();
    session.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, user);
    session.setAttribute(LazySession.SPRING_SECURITY_CONTEXT, new SecurityContextImpl(
        UsernamePasswordAuthenticationToken.authenticated(user, null,
            AuthorityUtils.createAuthorityList("ROLE_USER"))));
    session.setAttribute("secret", "data of " + user);
    node.save(session);
    return session.getId();
  }

  private static byte[] key(String id) {
    return nodes.sessionKey(id);
  }

  private static String secretOf(LazyRedisSessionRepository node, String id) {
    LazySession session = node.findById(id);
    return session == null ? null : session.getAttribute("secret");
  }

  /** The attacker's own hash becomes an alias naming what it copied ({@code target}). */
  private static void plantAlias(String attacker, byte[] target, long until) {
    byte[] attackerKey = key(attacker);
    nodes.raw().del(attackerKey);
    nodes.raw().hset(attackerKey, ALIAS, target);
    nodes.raw().hset(attackerKey, ALIAS_UNTIL, Long.toString(until).getBytes(UTF_8));
    nodes.raw().pexpire(attackerKey, 3_600_000);
  }

  /** The victim's id is renewed (its interval passed): its old key now holds a genuine alias. */
  private static String renewed(String victim) {
    nodes.clock().advance(Duration.ofMinutes(16));
    LazySession session = nodes.a().findById(victim);
    assertThat(session.getId()).as("renewed").isNotEqualTo(victim);
    return session.getId();
  }

  // ---- alias (#>, #t) -----------------------------------------------------------------------

  @Test
  void findById_attackersOwnCookie_mustNotReturnAnotherUsersSession() {
    String victim = signIn(nodes.a(), "victim");
    String attacker = signIn(nodes.a(), "mallory");

    plantAlias(attacker, nodes.raw().hget(key(victim), ID), 99999999999999L);
    LazySession found = nodes.b().findById(attacker); // the attacker's own cookie, on node B

    assertThat(found == null ? null : found.getId()).as("session handed to the attacker's cookie "
        + "(victim id " + victim + ")").isNotEqualTo(victim);
  }

  @Test
  void save_attackersOwnSession_mustNotLandInAnotherUsersSession() {
    String victim = signIn(nodes.a(), "victim2");
    String attacker = signIn(nodes.a(), "mallory2");
    LazySession attackers = nodes.b().findById(attacker); // a request in flight

    plantAlias(attacker, nodes.raw().hget(key(victim), ID), 99999999999999L);
    attackers.setAttribute("secret", "written by mallory2");
    nodes.b().save(attackers);

    assertThat((String) nodes.a().findById(victim).getAttribute("secret"))
        .isEqualTo("data of victim2");
  }

  /** save.lua answers "moved" to an alias it finds, whether or not this node renews ids. */
  @Test
  void save_renewalOff_attackersOwnSession_mustNotLandInAnotherUsersSession() {
    nodes.configure(builder -> builder.idRenewal(null, Duration.ofSeconds(10)));
    save_attackersOwnSession_mustNotLandInAnotherUsersSession();
  }

  @Test
  void deleteById_attackersHashAliasesAnotherUsersSealedId_victimStaysSignedIn() {
    String victim = signIn(nodes.a(), "victim3");
    String attacker = signIn(nodes.a(), "mallory3");

    plantAlias(attacker, nodes.raw().hget(key(victim), ID), Long.MAX_VALUE / 2);
    nodes.b().deleteById(attacker); // the attacker signs out

    assertThat(secretOf(nodes.a(), victim)).isEqualTo("data of victim3");
    assertThat(nodes.a().findByPrincipalName("victim3")).containsOnlyKeys(victim);
  }

  @Test
  void findById_genuineAliasCopiedUnderTheAttackersKey_isNotFollowed() {
    String victim = signIn(nodes.a(), "victim4");
    String attacker = signIn(nodes.a(), "mallory4");
    String victimNow = renewed(victim);
    byte[] genuine = nodes.raw().hget(key(victim), ALIAS);
    assertThat(genuine).as("the alias the renewal left").isNotNull();

    plantAlias(attacker, genuine, Long.MAX_VALUE / 2);

    assertThat(nodes.b().findById(attacker)).isNull();
    assertThat(nodes.b().findById(victim).getId()).as("the victim's own old id, within its grace")
        .isEqualTo(victimNow);
  }

  @Test
  void findById_genuineAliasKeptPastItsGrace_isNotFollowed() {
    String victim = signIn(nodes.a(), "victim5");
    renewed(victim);
    // The writer extends the clear end of the grace and the key's life.
    nodes.raw().hset(key(victim), ALIAS_UNTIL, Long.toString(Long.MAX_VALUE / 2).getBytes(UTF_8));
    nodes.raw().pexpire(key(victim), 3_600_000);

    nodes.clock().advance(Duration.ofSeconds(11));

    assertThat(nodes.b().findById(victim)).isNull();
  }

  // ---- session hash names ---------------------------------------------------------------------

  @Test
  void findById_anotherUsersHashCopiedUnderTheAttackersKey_everyValueRejected() {
    String victim = signIn(nodes.a(), "victim14");
    String attacker = signIn(nodes.a(), "mallory14");
    nodes.raw().del(key(attacker));
    nodes.raw().copy(key(victim), key(attacker));

    LazySession found = nodes.b().findById(attacker);

    // The attacker's cookie finds a hash, whose values are bound to the victim's id: none opens.
    assertThat(found).isNotNull();
    assertThat(found.getAttributeNames()).isEmpty();
    assertThat(nodes.b().findByPrincipalName("victim14")).containsOnlyKeys(victim);
    assertThat(nodes.b().metrics().rejectedValues()).isPositive();
    assertThat(secretOf(nodes.b(), victim)).isEqualTo("data of victim14");
  }

  // ---- #i -------------------------------------------------------------------------------------

  @Test
  void reencrypt_sealedIdCopiedIntoAnotherHash_thatHashIsNotTakenForTheSession() {
    String victim = signIn(nodes.a(), "victim6");
    String attacker = signIn(nodes.a(), "mallory6");
    nodes.raw().hset(key(attacker), ID, nodes.raw().hget(key(victim), ID));

    ReencryptionReport report = nodes.a().reencrypt();

    assertThat(report.remaining()).as("the attacker's hash: a name this node does not read")
        .isEqualTo(1);
    assertThat(report.rewritten()).isZero();
    assertThat(secretOf(nodes.b(), victim)).isEqualTo("data of victim6");
    assertThat(nodes.b().metrics().rejectedValues()).isZero();
  }

  // ---- #r, # ----------------------------------------------------------------------------------

  @Test
  void findById_issueTimeMovedFarAhead_idIsRenewedAnyway() {
    String id = signIn(nodes.a(), "victim7");
    long future = nodes.clock().millis() + Duration.ofDays(3650).toMillis();
    nodes.raw().hset(key(id), SessionKeys.RENEWED.getBytes(UTF_8),
        Long.toString(future).getBytes(UTF_8));
    TestRedis.bumpVersion(nodes.raw(), key(id));

    LazySession session = nodes.b().findById(id);

    assertThat(session.getId()).as("renewed, not pinned by the planted #r").isNotEqualTo(id);
    assertThat(session.<String>getAttribute("secret")).isEqualTo("data of victim7");
  }

  @Test
  void findById_metadataVersionBumped_valuesStillAuthenticAndNothingRejected() {
    String id = signIn(nodes.a(), "victim8");
    nodes.a().findById(id); // near-cached on A
    TestRedis.bumpVersion(nodes.raw(), key(id));

    assertThat(secretOf(nodes.a(), id)).isEqualTo("data of victim8");
    assertThat(nodes.a().metrics().rejectedValues()).isZero();
  }

  // ---- values: planted, copied, replayed ------------------------------------------------------

  @Test
  void findById_keylessNodesSessionInTheNamespace_isAbsentForKeyedNodes() {
    LazyRedisSessionRepository keyless = nodes.another(nodes.clientB(), nodes.eventsB(),
        builder -> builder.encryption(null));
    String planted = signIn(keyless, "admin");

    assertThat(nodes.a().findById(planted)).isNull();
    assertThat(nodes.a().findByPrincipalName("admin")).isEmpty();
  }

  @Test
  void findById_clearSecurityContextPlantedInASession_isRejectedAndCounted() {
    String id = signIn(nodes.a(), "victim9");
    AttributeSerializer codec = TestRedis.serializer();
    SecurityContextImpl admin = new SecurityContextImpl(UsernamePasswordAuthenticationToken
        .authenticated("victim9", null, AuthorityUtils.createAuthorityList("ROLE_ADMIN")));
    nodes.raw().hset(key(id), "##forged".getBytes(UTF_8), codec.serialize(admin));
    nodes.raw().hset(key(id), "grant".getBytes(UTF_8), codec.serialize(admin));
    TestRedis.bumpVersion(nodes.raw(), key(id));

    LazySession session = nodes.b().findById(id);

    assertThat((Object) session.getAttribute("grant")).isNull();
    assertThat((Object) session.getAttribute("#forged")).isNull();
    assertThat(nodes.b().metrics().rejectedValues()).isEqualTo(2);
    assertThat(nodes.b().metrics().unprotectedValuesRead()).isZero();
    assertThat(session.<String>getAttribute("secret")).isEqualTo("data of victim9");
  }

  @Test
  void findById_sealedValueCopiedFromAnotherNamespace_isRejected() {
    LazyRedisSessionRepository elsewhere = nodes.another(nodes.clientB(), nodes.eventsB(),
        builder -> builder.namespace(nodes.namespace() + "-other"));
    String id = signIn(nodes.a(), "victim10");
    LazySession there = elsewhere.createSession();
    there.setAttribute("big", "x".repeat(5000)); // a field of its own
    elsewhere.save(there);
    byte[] sealedElsewhere = nodes.raw().hget(elsewhere.shared().store().keys()
        .session(there.getId()), "big".getBytes(UTF_8));
    nodes.raw().hset(key(id), "big".getBytes(UTF_8), sealedElsewhere);
    TestRedis.bumpVersion(nodes.raw(), key(id));

    assertThat((Object) nodes.b().findById(id).getAttribute("big")).isNull();
    assertThat(nodes.b().metrics().rejectedValues()).isEqualTo(1);
  }

  @Test
  void findById_olderSealedValueOfTheSameFieldReplayed_readsTheOlderValue() {
    LazySession session = nodes.a().createSession();
    session.setAttribute("big", "first " + "x".repeat(5000));
    nodes.a().save(session);
    byte[] older = nodes.raw().hget(key(session.getId()), "big".getBytes(UTF_8));
    LazySession loaded = nodes.a().findById(session.getId());
    loaded.setAttribute("big", "second " + "x".repeat(5000));
    nodes.a().save(loaded);

    nodes.raw().hset(key(session.getId()), "big".getBytes(UTF_8), older);
    TestRedis.bumpVersion(nodes.raw(), key(session.getId()));

    // The documented limit: a value is bound to its session and field, not to a version.
    assertThat(nodes.b().findById(session.getId()).<String>getAttribute("big"))
        .startsWith("first ");
    assertThat(nodes.b().metrics().rejectedValues()).isZero();
  }

  // ---- principal sets, #p ---------------------------------------------------------------------

  @Test
  void findByPrincipalName_anotherUsersMemberAddedToTheAttackersSet_isNotListed() {
    String victim = signIn(nodes.a(), "victim11");
    signIn(nodes.a(), "mallory11");
    SessionKeys keys = nodes.a().shared().store().keys();
    nodes.raw().sadd(keys.principal("mallory11"), keys.member(victim));

    assertThat(nodes.b().findByPrincipalName("mallory11")).doesNotContainKey(victim);
    assertThat(nodes.b().findByPrincipalName("victim11")).containsOnlyKeys(victim);
  }

  @Test
  void findByPrincipalName_attackersSealedPrincipalCopiedIntoAnotherSession_isNotListed() {
    String victim = signIn(nodes.a(), "victim12");
    String attacker = signIn(nodes.a(), "mallory12");
    SessionKeys keys = nodes.a().shared().store().keys();
    byte[] principal = SessionKeys.PRINCIPAL.getBytes(UTF_8);
    nodes.raw().hset(key(victim), principal, nodes.raw().hget(key(attacker), principal));
    nodes.raw().sadd(keys.principal("mallory12"), keys.member(victim));
    TestRedis.bumpVersion(nodes.raw(), key(victim));

    assertThat(nodes.b().findByPrincipalName("mallory12")).containsOnlyKeys(attacker);
  }

  @Test
  void save_anotherUsersMemberAddedToTheAttackersSignInOrder_victimIsNotEvicted() {
    nodes.configure(builder -> builder.sessionLimit(SessionLimit.evictOldest(1)));
    String victim = signIn(nodes.a(), "victim15");
    String attacker = signIn(nodes.a(), "mallory15");
    SessionKeys keys = nodes.a().shared().store().keys();
    byte[] set = keys.principal("mallory15");
    nodes.raw().sadd(set, keys.member(victim));
    nodes.raw().zadd(SessionLimiter.orderKey(set), 1.0, keys.member(victim)); // the oldest

    signIn(nodes.b(), "mallory15"); // over the limit of one: the oldest is evicted

    assertThat(secretOf(nodes.a(), victim)).isEqualTo("data of victim15");
    assertThat(nodes.a().findById(attacker)).as("the attacker's own older session").isNull();
  }

  @Test
  void save_anotherUsersMemberRecentInTheAttackersSignInOrder_victimIsNotEvicted() {
    nodes.configure(builder -> builder.sessionLimit(SessionLimit.evictOldest(1)));
    String victim = signIn(nodes.a(), "victim16");
    signIn(nodes.a(), "mallory16");
    SessionKeys keys = nodes.a().shared().store().keys();
    byte[] set = keys.principal("mallory16");
    nodes.raw().sadd(set, keys.member(victim));
    nodes.raw().zadd(SessionLimiter.orderKey(set), redisMillis(), keys.member(victim));

    signIn(nodes.b(), "mallory16");

    assertThat(secretOf(nodes.a(), victim)).isEqualTo("data of victim16");
  }

  @Test
  void save_anotherUsersIdLinkedToTheAttackersAdmission_victimIsNotEvicted() {
    nodes.configure(builder -> builder.sessionLimit(SessionLimit.evictOldest(1)));
    String victim = signIn(nodes.a(), "victim17");
    String attacker = signIn(nodes.a(), "mallory17");
    SessionKeys keys = nodes.a().shared().store().keys();
    byte[] set = keys.principal("mallory17");
    // "the attacker's session is an id change of the victim's": one session, evicted as one
    byte[] link = concat((Long.toString((long) redisMillis()) + " ").getBytes(UTF_8), keys.member(victim));
    nodes.raw().hset(SessionLimiter.admissionsKey(set), keys.member(attacker), link);

    signIn(nodes.b(), "mallory17");

    assertThat(secretOf(nodes.a(), victim)).isEqualTo("data of victim17");
  }

  /** Redis's clock, milliseconds: what the limit's script compares admissions with. */
  private static double redisMillis() {
    List<byte[]> time = nodes.raw().time();
    return Long.parseLong(new String(time.get(0), UTF_8)) * 1000
        + Long.parseLong(new String(time.get(1), UTF_8)) / 1000;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] joined = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, joined, a.length, b.length);
    return joined;
  }

  // ---- expiry schedule ------------------------------------------------------------------------

  @Test
  void cleanUp_liveSessionRescheduledIntoThePast_staysAndNoEvent() {
    String victim = signIn(nodes.a(), "victim13");
    SessionKeys keys = nodes.a().shared().store().keys();
    nodes.raw().zadd(keys.expirations(), 1.0, keys.member(victim));
    nodes.raw().zadd(keys.expirations(), 1.0, forgedSealedId());

    nodes.a().cleanUpExpiredSessions();

    assertThat(secretOf(nodes.b(), victim)).isEqualTo("data of victim13");
    assertThat(nodes.destroyed()).isEmpty();
    assertThat(nodes.raw().zscore(keys.expirations(), forgedSealedId())).as("dropped").isNull();
  }

  /** A member shaped as a sealed id that no key made. */
  private static byte[] forgedSealedId() {
    byte[] forged = new byte[1 + SessionNames.TAG_BYTES + 22];
    forged[0] = (byte) SessionNames.MARKER;
    for (int i = 1; i < forged.length; i++) {
      forged[i] = (byte) i;
    }
    return forged;
  }

  // ---- names key ------------------------------------------------------------------------------

  @Test
  void build_namesKeyFieldReplacedByAnotherNamespacesField_nodeRefusesToStartAndWritesNothing() {
    nodes.a(); // the namespace's names key exists
    LazyRedisSessionRepository elsewhere = nodes.another(nodes.clientB(), nodes.eventsB(),
        builder -> builder.namespace(nodes.namespace() + "-names"));
    byte[] field = "k1".getBytes(UTF_8);
    byte[] planted = nodes.raw().hget((elsewhere.namespace() + ":names-key").getBytes(UTF_8),
        field);
    byte[] namesKey = (nodes.namespace() + ":names-key").getBytes(UTF_8);
    byte[] before = nodes.raw().hget(namesKey, field);
    nodes.raw().hset(namesKey, field, planted);

    assertThatThrownBy(() -> nodes.another(nodes.clientB(), nodes.eventsB(), builder -> builder))
        .hasMessageContaining("lazysession.encryption.keys").hasMessageContaining("k1");
    assertThat(nodes.raw().hget(namesKey, field)).isEqualTo(planted);
    nodes.raw().hset(namesKey, field, before);
  }

  // ---- the take-over of Spring Session Data Redis's sessions ----------------------------------

  @Test
  void build_keysOnlyAndMigrateFrom_refusedNamingAcceptUnprotected() {
    assertThatThrownBy(() -> nodes.another(nodes.clientB(), nodes.eventsB(),
        builder -> builder.migrateFrom(SpringSessionDataRedis.defaults())))
        .hasMessageContaining("lazysession.encryption.accept-unprotected");
  }

  // ---- reencrypt() during a rollout -----------------------------------------------------------

  @Test
  void reencrypt_signOutMode_deletesSessionsHoldingUnprotectedValuesKeepsSealedOnes() {
    LazyRedisSessionRepository rollout = nodes.restartA(builder -> builder.encryption(
        keysOnly().toBuilder().acceptUnprotected(true).build()));
    LazyRedisSessionRepository keyless = nodes.another(nodes.clientB(), nodes.eventsB(),
        builder -> builder.encryption(null));
    String clearSession = signIn(keyless, "carol");
    String sealed = signIn(rollout, "dave");
    String planted = signIn(rollout, "erin");
    nodes.raw().hset(key(planted), "grant".getBytes(UTF_8),
        TestRedis.serializer().serialize("planted in clear"));
    TestRedis.bumpVersion(nodes.raw(), key(planted));

    ReencryptionReport report = rollout.reencrypt(ReencryptionMode.SIGN_OUT_UNPROTECTED);

    assertThat(report.signedOut()).isEqualTo(2);
    assertThat(report.remaining()).isZero();
    assertThat(rollout.findById(clearSession)).isNull();
    assertThat(rollout.findById(planted)).isNull();
    assertThat(rollout.findByPrincipalName("erin")).isEmpty();
    assertThat(secretOf(rollout, sealed)).isEqualTo("data of dave");
  }

  @Test
  void reencrypt_sealMode_sealsAPlantedValueWhichThenReadsAsAuthentic() {
    LazyRedisSessionRepository rollout = nodes.restartA(builder -> builder.encryption(
        keysOnly().toBuilder().acceptUnprotected(true).build()));
    String planted = signIn(rollout, "frank");
    nodes.raw().hset(key(planted), "grant".getBytes(UTF_8),
        TestRedis.serializer().serialize("planted in clear"));
    TestRedis.bumpVersion(nodes.raw(), key(planted));

    ReencryptionReport report = rollout.reencrypt();

    // What docs/security.md says reencrypt() certifies: whatever Redis held, planted or not.
    assertThat(report.rewritten()).isEqualTo(1);
    assertThat(report.signedOut()).isZero();
    assertThat(nodes.b().findById(planted).<String>getAttribute("grant"))
        .isEqualTo("planted in clear");
    assertThat(nodes.b().metrics().rejectedValues()).isZero();
  }

  @Test
  void reencrypt_renewalAliasesInTheNamespace_areNoSessionsNothingRemains() {
    String id = signIn(nodes.a(), "harry");
    renewed(id); // the old id's key is now an alias

    ReencryptionReport report = nodes.a().reencrypt(ReencryptionMode.SIGN_OUT_UNPROTECTED);

    assertThat(report.remaining()).isZero();
    assertThat(report.signedOut()).isZero();
  }

  @Test
  void reencrypt_signOutModeOnANodeWritingUnprotected_refusedSayingWhy() {
    LazyRedisSessionRepository turningOff = nodes.restartA(builder -> builder.encryption(
        keysOnly().toBuilder().acceptUnprotected(true).writeUnprotected(true).build()));
    String session = signIn(turningOff, "ivan");

    assertThatThrownBy(() -> turningOff.reencrypt(ReencryptionMode.SIGN_OUT_UNPROTECTED))
        .hasMessageContaining("lazysession.encryption.write-unprotected=true")
        .hasMessageContaining("every session");
    assertThat(secretOf(turningOff, session)).isEqualTo("data of ivan");
  }

  @Test
  void deleteAndIdChange_onANodeThatFoundTheSessionUnderItsClearName_afterReencryptRenamedIt() {
    UnaryOperator<LazyRedisSessionRepositoryBuilder> rollout = builder -> builder.encryption(
        keysOnly().toBuilder().acceptUnprotected(true).build());
    LazyRedisSessionRepository a = nodes.restartA(rollout);
    LazyRedisSessionRepository b = nodes.restartB(rollout);
    LazyRedisSessionRepository keyless = nodes.another(nodes.clientB(), nodes.eventsB(),
        builder -> builder.encryption(null));
    String signingOut = signIn(keyless, "judy");
    String signingIn = signIn(keyless, "ken");
    assertThat(secretOf(b, signingOut)).isEqualTo("data of judy"); // located under its clear id
    LazySession changing = b.findById(signingIn);
    assertThat(a.reencrypt().renamed()).isEqualTo(2);

    b.deleteById(signingOut);
    String newId = changing.changeSessionId();
    b.save(changing);

    assertThat(a.findById(signingOut)).as("signed out").isNull();
    assertThat(secretOf(a, newId)).as("signed in under the new id").isEqualTo("data of ken");
    assertThat(a.findById(signingIn)).isNull();
  }

  @Test
  void reencrypt_whileRenaming_sessionStaysLocatedWhereItIsUntilTheOldHashIsGone() {
    LazyRedisSessionRepository rollout = nodes.restartA(builder -> builder.encryption(
        keysOnly().toBuilder().acceptUnprotected(true).build()));
    LazyRedisSessionRepository keyless = nodes.another(nodes.clientB(), nodes.eventsB(),
        builder -> builder.encryption(null));
    String clearSession = signIn(keyless, "grace");
    assertThat(rollout.findById(clearSession)).isNotNull(); // located under its clear id
    SessionKeys keys = rollout.shared().store().keys();
    Reencryption run = new Reencryption(rollout.shared().connection(), rollout.shared().store(),
        rollout.shared().metrics());
    Map<String, Boolean> seenDuringCopy = new java.util.concurrent.ConcurrentHashMap<>();
    run.renaming().afterCopy(() -> seenDuringCopy.put("keyed", keys.keyed(clearSession)));

    ReencryptionReport report = run.run();

    assertThat(report.renamed()).isEqualTo(1);
    assertThat(seenDuringCopy).as("what a request thread saw between the copy and the delete")
        .containsEntry("keyed", false);
    assertThat(keys.keyed(clearSession)).isTrue();
    assertThat(secretOf(rollout, clearSession)).isEqualTo("data of grace");
  }
}
