package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

import io.lazysession.testing.RedisServerExtension;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.ReactiveFindByIndexNameSessionRepository;
import org.springframework.session.Session;
import org.springframework.session.events.SessionCreatedEvent;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionDestroyedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * The contract of Spring Session's repository interfaces ({@code SessionRepository},
 * {@code FindByIndexNameSessionRepository}, {@code ReactiveSessionRepository},
 * {@code ReactiveFindByIndexNameSessionRepository}) and of its session events, each rule stated
 * from their documentation and checked on every configuration: the servlet face and the reactive
 * face, each with the near cache off, validated (the default), and tracked. The reactive face
 * refuses tracked reads ({@link LazyReactiveRedisSessionRepository#of}), so that pair is not in the
 * matrix.
 * Where lazysession deliberately differs from Spring Session Data Redis, the rule states
 * lazysession's behaviour and docs/spring-session-differences.md says why.
 *
 * <p>Each rule loads a session once more before checking it whenever a near cache could answer, so
 * that the cached path is the one checked. Expiry is reached by moving the clock.
 */
class SpringSessionContractIT {
  static final Duration MAX_INACTIVE = Duration.ofMinutes(30);
  static final Duration DEADLINE = Duration.ofSeconds(20);
  static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
  static final String REACTIVE_PRINCIPAL =
      ReactiveFindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, builder -> builder
      .defaultMaxInactiveInterval(MAX_INACTIVE));

  /** One configuration: a face over a repository with a near-cache mode. */
  record Configuration(String face, String nearCache,
      UnaryOperator<LazyRedisSessionRepositoryBuilder> mode,
      Function<LazyRedisSessionRepository, Face> faceOf) {
    @Override
    public String toString() {
      return face + ", near cache " + nearCache;
    }
  }

  static Stream<Configuration> configurations() {
    UnaryOperator<LazyRedisSessionRepositoryBuilder> off = b -> b.nearCacheMaxBytes(0);
    UnaryOperator<LazyRedisSessionRepositoryBuilder> validated = b -> b;
    UnaryOperator<LazyRedisSessionRepositoryBuilder> tracked =
        b -> b.nearCacheTracking(Duration.ofMillis(500));
    return Stream.of(
        new Configuration("servlet", "off", off, Face::servlet),
        new Configuration("servlet", "validated", validated, Face::servlet),
        new Configuration("servlet", "tracked", tracked, Face::servlet),
        new Configuration("reactive", "off", off, Face::reactive),
        new Configuration("reactive", "validated", validated, Face::reactive));
  }

  /** The repository of this test in {@code configuration}, through its face. */
  private static Face face(Configuration configuration) {
    nodes.configure(configuration.mode());
    return configuration.faceOf().apply(nodes.a());
  }

  private static LazySession saved(Face face, Map<String, Object> attributes) {
    LazySession session = face.create();
    attributes.forEach(session::setAttribute);
    face.save(session);
    return session;
  }

  /** Finds {@code id} twice: the second find is the one a near cache may answer. */
  private static LazySession findTwice(Face face, String id) {
    face.find(id);
    return face.find(id);
  }

  private static List<SessionDestroyedEvent> destroyed() {
    return nodes.eventsA().ofType(SessionDestroyedEvent.class);
  }

  // ---- SessionRepository / ReactiveSessionRepository -------------------------------------------

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void createSession_notYetSaved_isNewWithTheDefaultTimeoutAndIsNotFound(Configuration c) {
    Face face = face(c);

    LazySession session = face.create();

    assertThat(session.getId()).isNotBlank();
    assertThat(session.getMaxInactiveInterval()).isEqualTo(MAX_INACTIVE);
    assertThat(session.getCreationTime()).isEqualTo(session.getLastAccessedTime());
    assertThat(session.isExpired()).isFalse();
    assertThat(session.getAttributeNames()).isEmpty();
    assertThat(face.find(session.getId())).isNull();
    assertThat(face.create().getId()).isNotEqualTo(session.getId());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void save_newSession_isFoundByIdWithItsAttributesAndTimes(Configuration c) {
    Face face = face(c);
    LazySession session = face.create();
    session.setAttribute("a", "alpha");
    session.setAttribute("cart", ShopFixtures.attributes().get("cart"));
    session.setMaxInactiveInterval(Duration.ofMinutes(5));

    face.save(session);
    LazySession found = findTwice(face, session.getId());

    assertThat(found.getId()).isEqualTo(session.getId());
    assertThat(found.getAttributeNames()).containsExactlyInAnyOrder("a", "cart");
    assertThat((Object) found.getAttribute("a")).isEqualTo("alpha");
    assertThat((Object) found.getAttribute("cart"))
        .isEqualTo(ShopFixtures.attributes().get("cart"));
    assertThat(found.getCreationTime())
        .isEqualTo(session.getCreationTime().truncatedTo(ChronoUnit.MILLIS));
    assertThat(found.getLastAccessedTime())
        .isEqualTo(session.getLastAccessedTime().truncatedTo(ChronoUnit.MILLIS));
    assertThat(found.getMaxInactiveInterval()).isEqualTo(Duration.ofMinutes(5));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void findById_unknownId_isNull(Configuration c) {
    Face face = face(c);

    assertThat(face.find("no-such-session-id")).isNull();
    assertThat(face.find(face.create().getId())).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void save_attributesSetChangedAndRemoved_nextFindSeesExactlyThat(Configuration c) {
    Face face = face(c);
    String id = saved(face, Map.of("kept", "k", "changed", "before", "removed", "r",
        "nulled", "n")).getId();
    LazySession loaded = findTwice(face, id);

    loaded.setAttribute("changed", "after");
    loaded.setAttribute("added", 42);
    loaded.removeAttribute("removed");
    loaded.setAttribute("nulled", null); // a null value removes the attribute (Session javadoc)
    face.save(loaded);
    LazySession found = findTwice(face, id);

    assertThat(found.getAttributeNames()).containsExactlyInAnyOrder("kept", "changed", "added");
    assertThat((Object) found.getAttribute("kept")).isEqualTo("k");
    assertThat((Object) found.getAttribute("changed")).isEqualTo("after");
    assertThat((Object) found.getAttribute("added")).isEqualTo(42);
    assertThat((Object) found.getAttribute("removed")).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void save_loadedSessionUnchanged_keepsEverything(Configuration c) {
    Face face = face(c);
    String id = saved(face, Map.of("a", "alpha")).getId();

    face.save(findTwice(face, id));

    assertThat((Object) findTwice(face, id).getAttribute("a")).isEqualTo("alpha");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void findById_pastMaxInactiveSinceLastAccess_isNull(Configuration c) {
    Face face = face(c);
    String id = saved(face, Map.of("a", "alpha")).getId();
    findTwice(face, id);

    nodes.clock().advance(MAX_INACTIVE);

    assertThat(face.find(id)).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void save_lastAccessedTimeMoved_sessionLivesMaxInactiveFromThere(Configuration c) {
    Face face = face(c);
    String id = saved(face, Map.of()).getId();
    nodes.clock().advance(MAX_INACTIVE.minusMinutes(1));
    LazySession loaded = findTwice(face, id);
    Instant accessed = nodes.clock().instant();

    loaded.setLastAccessedTime(accessed);
    face.save(loaded);
    nodes.clock().advance(Duration.ofMinutes(2));

    LazySession found = findTwice(face, id);
    assertThat(found).isNotNull();
    assertThat(found.getLastAccessedTime()).isEqualTo(accessed.truncatedTo(ChronoUnit.MILLIS));
    nodes.clock().advance(MAX_INACTIVE);
    assertThat(face.find(id)).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void save_negativeMaxInactiveInterval_sessionNeverExpires(Configuration c) {
    Face face = face(c);
    LazySession session = face.create();
    session.setMaxInactiveInterval(Duration.ofSeconds(-1));
    face.save(session);

    nodes.clock().advance(Duration.ofDays(400));

    LazySession found = findTwice(face, session.getId());
    assertThat(found).isNotNull();
    assertThat(found.isExpired()).isFalse();
    assertThat(found.getMaxInactiveInterval().isNegative()).isTrue();
    assertThat(face.sweep()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void save_maxInactiveIntervalChangedOnALoadedSession_isKept(Configuration c) {
    Face face = face(c);
    String id = saved(face, Map.of()).getId();
    LazySession loaded = findTwice(face, id);

    loaded.setMaxInactiveInterval(Duration.ofMinutes(2));
    face.save(loaded);

    assertThat(findTwice(face, id).getMaxInactiveInterval()).isEqualTo(Duration.ofMinutes(2));
    nodes.clock().advance(Duration.ofMinutes(2));
    assertThat(face.find(id)).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void deleteById_savedSession_isNoLongerFound(Configuration c) {
    Face face = face(c);
    String id = saved(face, Map.of("a", "alpha")).getId();
    findTwice(face, id);

    face.delete(id);

    assertThat(face.find(id)).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void deleteById_unknownId_doesNothing(Configuration c) {
    Face face = face(c);

    assertThatCode(() -> face.delete("no-such-session-id")).doesNotThrowAnyException();
    assertThatCode(() -> face.delete(face.create().getId())).doesNotThrowAnyException();
    assertThat(destroyed()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void changeSessionId_saved_foundUnderTheNewIdOnlyWithItsAttributes(Configuration c) {
    Face face = face(c);
    LazySession session = saved(face, Map.of("a", "alpha"));
    String oldId = session.getId();
    LazySession loaded = findTwice(face, oldId);

    String newId = loaded.changeSessionId();
    face.save(loaded);

    assertThat(newId).isNotEqualTo(oldId).isEqualTo(loaded.getId());
    assertThat(face.find(oldId)).isNull();
    LazySession found = findTwice(face, newId);
    assertThat((Object) found.getAttribute("a")).isEqualTo("alpha");
    assertThat(found.getCreationTime())
        .isEqualTo(session.getCreationTime().truncatedTo(ChronoUnit.MILLIS));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void changeSessionId_newSessionBeforeItsFirstSave_savedUnderTheNewId(Configuration c) {
    Face face = face(c);
    LazySession session = face.create();
    String firstId = session.getId();
    session.setAttribute("a", "alpha");

    String newId = session.changeSessionId();
    face.save(session);

    assertThat(face.find(firstId)).isNull();
    assertThat((Object) findTwice(face, newId).getAttribute("a")).isEqualTo("alpha");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void save_sessionDeletedMeanwhile_writesNothingAndThrowsNothing(Configuration c) {
    Face face = face(c);
    String id = saved(face, Map.of("a", "alpha")).getId();
    LazySession loaded = findTwice(face, id);
    face.delete(id);

    loaded.setAttribute("b", "beta");
    assertThatCode(() -> face.save(loaded)).doesNotThrowAnyException();

    assertThat(face.find(id)).isNull();
    assertThat(nodes.raw().exists(nodes.sessionKey(id))).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void findById_changedThenDeletedThroughAnotherRepository_seesEachWhileHoldingACopy(
      Configuration c) {
    Face face = face(c);
    Face other = c.faceOf().apply(nodes.b());
    String id = saved(face, Map.of("a", "alpha")).getId();
    findTwice(face, id); // this node now holds a copy, where a near cache is on

    LazySession elsewhere = findTwice(other, id);
    elsewhere.setAttribute("a", "changed");
    other.save(elsewhere);
    // Tracked reads see another node's write within their staleness bound: awaited, not timed.
    await().atMost(DEADLINE).until(() -> "changed".equals(face.find(id).getAttribute("a")));

    other.delete(id);
    await().atMost(DEADLINE).until(() -> face.find(id) == null);
  }

  // ---- FindByIndexNameSessionRepository / ReactiveFindByIndexNameSessionRepository -------------

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void findByPrincipalName_principalAttribute_mapsEachIdToItsSession(Configuration c) {
    Face face = face(c);
    String first = saved(face, Map.of(PRINCIPAL, "alice", "a", "1")).getId();
    String second = saved(face, Map.of(PRINCIPAL, "alice", "a", "2")).getId();
    saved(face, Map.of(PRINCIPAL, "bob"));

    Map<String, LazySession> found = face.findByPrincipalName("alice");

    assertThat(found).containsOnlyKeys(first, second);
    found.forEach((id, session) -> assertThat(session.getId()).isEqualTo(id));
    assertThat((Object) found.get(second).getAttribute("a")).isEqualTo("2");
    assertThat(face.findByIndex(PRINCIPAL, "alice")).containsOnlyKeys(first, second);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void findByPrincipalName_reactivePrincipalAttribute_isIndexedToo(Configuration c) {
    Face face = face(c);
    String id = saved(face, Map.of(REACTIVE_PRINCIPAL, "alice")).getId();

    assertThat(face.findByPrincipalName("alice")).containsOnlyKeys(id);
    assertThat(face.findByIndex(REACTIVE_PRINCIPAL, "alice")).containsOnlyKeys(id);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void findByPrincipalName_springSecurityContext_isIndexedByTheAuthenticationName(
      Configuration c) {
    Face face = face(c);
    String id = saved(face, Map.of("SPRING_SECURITY_CONTEXT", new SecurityContextImpl(
        UsernamePasswordAuthenticationToken.authenticated("alice", null, List.of())))).getId();

    assertThat(face.findByPrincipalName("alice")).containsOnlyKeys(id);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void findByPrincipalName_noSuchPrincipal_isAnEmptyMap(Configuration c) {
    Face face = face(c);
    saved(face, Map.of(PRINCIPAL, "alice"));

    assertThat(face.findByPrincipalName("nobody")).isNotNull().isEmpty();
    assertThat(face.findByIndex("some.other.index", "alice")).isNotNull().isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void findByPrincipalName_principalChangedThenRemoved_followsTheSession(Configuration c) {
    Face face = face(c);
    String id = saved(face, Map.of(PRINCIPAL, "alice")).getId();
    LazySession loaded = findTwice(face, id);

    loaded.setAttribute(PRINCIPAL, "bob");
    face.save(loaded);
    assertThat(face.findByPrincipalName("alice")).isEmpty();
    assertThat(face.findByPrincipalName("bob")).containsOnlyKeys(id);

    LazySession again = findTwice(face, id);
    again.removeAttribute(PRINCIPAL);
    face.save(again);
    assertThat(face.findByPrincipalName("bob")).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void findByPrincipalName_deletedExpiredOrMovedSessions_onlyLiveIdsFound(Configuration c) {
    Face face = face(c);
    String deleted = saved(face, Map.of(PRINCIPAL, "alice")).getId();
    LazySession moved = saved(face, Map.of(PRINCIPAL, "alice"));
    String oldId = moved.getId();
    LazySession expiring = face.create();
    expiring.setAttribute(PRINCIPAL, "alice");
    expiring.setMaxInactiveInterval(Duration.ofMinutes(1));
    face.save(expiring);

    face.delete(deleted);
    LazySession loaded = findTwice(face, oldId);
    loaded.changeSessionId();
    face.save(loaded);
    nodes.clock().advance(Duration.ofMinutes(1));

    assertThat(face.findByPrincipalName("alice")).containsOnlyKeys(loaded.getId());
  }

  // ---- events ----------------------------------------------------------------------------------

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void save_newSession_publishesOneCreatedEventAndLaterSavesNone(Configuration c) {
    Face face = face(c);
    LazySession session = saved(face, Map.of("a", "alpha"));
    LazySession loaded = findTwice(face, session.getId());
    loaded.setAttribute("b", "beta");
    face.save(loaded);

    List<SessionCreatedEvent> created = nodes.eventsA().ofType(SessionCreatedEvent.class);
    assertThat(created).hasSize(1);
    assertThat(created.get(0).getSessionId()).isEqualTo(session.getId());
    assertThat(created.get(0).<Session>getSession().getId()).isEqualTo(session.getId());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void deleteById_publishesOneDeletedEventCarryingTheSession(Configuration c) {
    Face face = face(c);
    LazySession session = saved(face, Map.of("a", "alpha", PRINCIPAL, "alice"));

    face.delete(session.getId());
    face.delete(session.getId());

    assertThat(destroyed()).hasSize(1).allMatch(SessionDeletedEvent.class::isInstance);
    Session deleted = destroyed().get(0).getSession();
    assertThat(destroyed().get(0).getSessionId()).isEqualTo(session.getId());
    assertThat(deleted.getId()).isEqualTo(session.getId());
    assertThat((Object) deleted.getAttribute("a")).isEqualTo("alpha");
    assertThat((Object) deleted.getAttribute(PRINCIPAL)).isEqualTo("alice");
    assertThat(deleted.getCreationTime())
        .isEqualTo(session.getCreationTime().truncatedTo(ChronoUnit.MILLIS));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void sweep_expiredSession_publishesOneExpiredEventCarryingTheSessionAndNoDeletedEvent(
      Configuration c) {
    Face face = face(c);
    LazySession session = saved(face, Map.of("a", "alpha", PRINCIPAL, "alice"));

    nodes.clock().advance(MAX_INACTIVE);
    face.find(session.getId()); // a read after expiry reports nothing by itself
    face.delete(session.getId()); // nor does a delete of an expired session
    assertThat(face.sweep()).isEqualTo(1);
    assertThat(face.sweep()).isZero();

    assertThat(destroyed()).hasSize(1).allMatch(SessionExpiredEvent.class::isInstance);
    Session expired = destroyed().get(0).getSession();
    assertThat(expired.getId()).isEqualTo(session.getId());
    assertThat((Object) expired.getAttribute("a")).isEqualTo("alpha");
    assertThat((Object) expired.getAttribute(PRINCIPAL)).isEqualTo("alice");
    assertThat(face.findByPrincipalName("alice")).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void changeSessionId_publishesNeitherCreatedNorDestroyedEvents(Configuration c) {
    Face face = face(c);
    LazySession session = saved(face, Map.of("a", "alpha"));
    LazySession loaded = findTwice(face, session.getId());

    loaded.changeSessionId();
    face.save(loaded);

    assertThat(nodes.eventsA().ofType(SessionCreatedEvent.class)).hasSize(1);
    assertThat(destroyed()).isEmpty();
  }
}
