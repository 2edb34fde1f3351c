package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionDestroyedEvent;

/**
 * Many sign-ins of one user at the same moment, spread over two nodes, each the way Spring
 * Security signs in: an anonymous session from an earlier request gets the principal and a new id
 * (session fixation protection) in one save. Then checks that the limit holds exactly: the live
 * sessions of that user, found by id (not only through the index), are as many as the limit.
 */
final class ConcurrentSignIns {
  static final int SIGN_INS = 32;
  static final String USER = "ann";
  private static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;

  /** What one sign-in left: its ids before and after, and whether the limit refused it. */
  record SignIn(String anonymousId, String signedInId, boolean refused) {}

  private ConcurrentSignIns() {}

  /** Builds node 0 or 1 of a test, publishing to {@code events}. */
  interface Nodes {
    LazyRedisSessionRepository node(int index, RecordingEventPublisher events);
  }

  /**
   * Builds two nodes (each given its own event recorder), signs in on them through {@code faceOf}
   * as {@link #run} does, and checks the outcome as {@link #check} does.
   */
  static void runAndCheck(Nodes nodes,
      java.util.function.Function<LazyRedisSessionRepository, Face> faceOf, SessionLimit limit)
      throws Exception {
    RecordingEventPublisher eventsA = new RecordingEventPublisher();
    RecordingEventPublisher eventsB = new RecordingEventPublisher();
    try (LazyRedisSessionRepository a = nodes.node(0, eventsA);
        LazyRedisSessionRepository b = nodes.node(1, eventsB)) {
      List<SignIn> signIns = run(faceOf.apply(a), faceOf.apply(b));

      List<SessionDestroyedEvent> destroyed =
          new ArrayList<>(eventsA.ofType(SessionDestroyedEvent.class));
      destroyed.addAll(eventsB.ofType(SessionDestroyedEvent.class));
      check(signIns, Face.servlet(b), limit, destroyed);
    }
  }

  /** Signs {@link #USER} in {@link #SIGN_INS} times at once, alternating between the nodes. */
  static List<SignIn> run(Face nodeA, Face nodeB) throws Exception {
    List<LazySession> anonymous = new ArrayList<>();
    for (int i = 0; i < SIGN_INS; i++) {
      Face node = i % 2 == 0 ? nodeA : nodeB;
      LazySession session = node.create();
      session.setAttribute("csrf", "token-" + i);
      node.save(session);
      anonymous.add(session);
    }
    ExecutorService threads = Executors.newFixedThreadPool(SIGN_INS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<SignIn>> results = new ArrayList<>();
      for (int i = 0; i < SIGN_INS; i++) {
        Face node = i % 2 == 0 ? nodeA : nodeB;
        String id = anonymous.get(i).getId();
        results.add(threads.submit(() -> {
          start.await();
          LazySession session = node.find(id);
          session.setAttribute(PRINCIPAL, USER);
          String newId = session.changeSessionId();
          try {
            node.save(session);
            return new SignIn(id, newId, false);
          } catch (SessionLimitExceededException e) {
            assertThat(e.principalName()).isEqualTo(USER);
            return new SignIn(id, newId, true);
          }
        }));
      }
      start.countDown();
      List<SignIn> signIns = new ArrayList<>();
      for (Future<SignIn> result : results) {
        signIns.add(result.get(60, TimeUnit.SECONDS));
      }
      return signIns;
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * Checks what the sign-ins left, through {@code reader}: exactly {@code limit} live sessions of
   * the user; with refuse-new, the others refused and left as they were (anonymous, old id); with
   * evict-oldest, none refused and one {@code SessionDeletedEvent} per evicted session.
   */
  static void check(List<SignIn> signIns, Face reader, SessionLimit limit,
      List<SessionDestroyedEvent> destroyed) {
    int live = 0;
    Set<String> liveIds = new HashSet<>();
    for (SignIn signIn : signIns) {
      LazySession session = reader.find(signIn.signedInId());
      if (session != null && USER.equals(session.getAttribute(PRINCIPAL))) {
        live++;
        liveIds.add(signIn.signedInId());
      }
    }
    assertThat(live).as("live sessions of the user").isEqualTo(limit.maxSessions());
    assertThat(reader.findByPrincipalName(USER).keySet()).isEqualTo(liveIds);
    if (limit.action() == SessionLimit.Action.REFUSE_NEW) {
      assertThat(signIns).filteredOn(SignIn::refused).hasSize(SIGN_INS - limit.maxSessions());
      for (SignIn refused : signIns.stream().filter(SignIn::refused).toList()) {
        LazySession untouched = reader.find(refused.anonymousId());
        assertThat(untouched).as("a refused sign-in leaves its session as it was").isNotNull();
        assertThat(untouched.<Object>getAttribute(PRINCIPAL)).isNull();
        assertThat(reader.find(refused.signedInId())).isNull();
      }
      assertThat(destroyed).isEmpty();
    } else {
      assertThat(signIns).noneMatch(SignIn::refused);
      List<String> deleted = destroyed.stream().map(SessionDestroyedEvent::getSessionId).toList();
      assertThat(destroyed).allMatch(SessionDeletedEvent.class::isInstance);
      assertThat(deleted).doesNotHaveDuplicates().hasSize(SIGN_INS - limit.maxSessions())
          .doesNotContainAnyElementsOf(liveIds);
      for (SignIn signIn : signIns) {
        if (!liveIds.contains(signIn.signedInId())) {
          assertThat(reader.find(signIn.signedInId())).isNull();
          assertThat(reader.find(signIn.anonymousId())).isNull();
        }
      }
    }
  }
}
