package io.lazysession.redis;

import io.lettuce.core.RedisException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.PrincipalNameIndexResolver;

/**
 * The principal name index: one Redis set of session ids per principal name, next to the principal
 * stored in each session hash, which is the truth: a set may briefly hold an id whose session has
 * another principal (two requests changing it at once) or none yet (a create in flight); lookups
 * filter by the stored principal. Resolves what a save changes about a session's principal and
 * keeps the sets in step. Thread-safe.
 *
 * <p>Without expiry events no sweep takes the ids of expired sessions out of the sets, so each set
 * expires by itself: every add (principal-add.lua) makes its TTL at least {@link #setTtl} (twice
 * the session's timeout plus the expiry grace; none for a session that never expires), and a save
 * that moves a session's stored last access into a new period of its timeout adds it again
 * ({@link #add} again). Each period is one timeout long, so a set outlives every session in it with
 * one command per session and timeout, not one per touch; lookups remove what expired meanwhile.
 */
final class PrincipalIndex {
  private static final Logger log = LoggerFactory.getLogger(PrincipalIndex.class);

  private final RedisSessionStore store;
  private final Clock clock;
  /** Whether the sets get a TTL: the repository publishes no expiry events. */
  private final boolean expiringSets;
  private final Duration expiryGrace;
  private static final String PRINCIPAL_NAME =
      FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
  private final PrincipalNameIndexResolver<LazySession> resolver =
      new PrincipalNameIndexResolver<>();
  private final PrincipalNameIndexResolver<LazySession> reactiveResolver =
      new PrincipalNameIndexResolver<>(LazySession.REACTIVE_PRINCIPAL_NAME);

  PrincipalIndex(RedisSessionStore store, Clock clock, boolean expiringSets, Duration expiryGrace) {
    this.store = store;
    this.clock = clock;
    this.expiringSets = expiringSets;
    this.expiryGrace = expiryGrace;
  }

  /** How long Redis keeps a hash after its session expired. */
  Duration expiryGrace() {
    return expiryGrace;
  }

  /** Whether the sets get a TTL (expiry events are off), and a full write adds its entry again. */
  boolean expiringSets() {
    return expiringSets;
  }

  /**
   * The TTL an add gives a set for a session with timeout {@code maxInactive}, milliseconds (-1:
   * none, the session never expires); null when the sets need none (the sweep empties them).
   */
  @Nullable Long setTtl(Duration maxInactive) {
    if (!expiringSets) {
      return null;
    }
    return maxInactive.isNegative() ? -1L : 2 * maxInactive.toMillis() + expiryGrace.toMillis();
  }

  /** {@link #setTtl} for a timeout in seconds as stored. */
  @Nullable Long setTtl(long maxInactiveSeconds) {
    return setTtl(Duration.ofSeconds(maxInactiveSeconds));
  }

  /**
   * Whether a save that stored {@code lastAccess} (before: {@code storedBefore}) must add the
   * session to its set again to keep the set alive: when the sets expire and the timeout changed or
   * the last access moved into another period of {@code maxInactive} (counted from the epoch). The
   * set's TTL, given at the previous add, reaches at least two periods past that add, and the
   * session expires at most one timeout after a last access still in the previous period.
   */
  boolean keepAliveDue(Instant storedBefore, Instant lastAccess, Duration maxInactive,
      boolean timeoutChanged) {
    if (!expiringSets) {
      return false;
    }
    if (timeoutChanged) {
      return true;
    }
    if (maxInactive.isNegative() || maxInactive.isZero()) {
      return false;
    }
    long period = maxInactive.toMillis();
    return Math.floorDiv(storedBefore.toEpochMilli(), period)
        != Math.floorDiv(lastAccess.toEpochMilli(), period);
  }

  /**
   * What a save of {@code session} changes about its principal. Resolving reads the index attributes
   * only when they may have changed; that may decode them (and so apply the decode failure policy).
   */
  PrincipalChange changeOf(LazySession session) {
    if (!session.principalMayHaveChanged()) {
      return PrincipalChange.UNCHANGED;
    }
    String principal;
    try {
      principal = resolve(session);
    } catch (RuntimeException e) {
      log.warn("cannot resolve the principal name of session {}: {}", session.getId(), e.toString());
      return PrincipalChange.UNCHANGED;
    }
    if (Objects.equals(principal, session.storedPrincipal())) {
      return PrincipalChange.UNCHANGED;
    }
    return principal == null ? PrincipalChange.REMOVED : PrincipalChange.setTo(principal);
  }

  /**
   * The principal name a session is indexed by: the servlet interface's attribute
   * ({@code FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME}), else the reactive one's
   * ({@code ReactiveFindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME}), else the name in
   * Spring Security's context; either face indexes by all three, so that a session is found from
   * both whichever one set it.
   */
  private @Nullable String resolve(LazySession session) {
    // Each resolver reads its attribute, then (when it is absent) Spring Security's context.
    return session.getAttribute(PRINCIPAL_NAME) != null ? resolver.resolveIndexValueFor(session)
        : reactiveResolver.resolveIndexValueFor(session);
  }

  /**
   * Adds {@code id}, a session with timeout {@code maxInactive}, to the set of {@code principal};
   * true when it was not there yet.
   */
  boolean add(String principal, String id, Duration maxInactive) {
    return store.indexes().addToPrincipal(principal, id, setTtl(maxInactive));
  }

  void remove(@Nullable String principal, String id) {
    if (principal != null) {
      store.indexes().removeFromPrincipal(principal, id);
    }
  }

  /** Moves an index entry after a session changed its id, its principal, or both. */
  void move(String oldId, @Nullable String oldPrincipal, String newId,
      @Nullable String newPrincipal, Duration maxInactive) {
    if (Objects.equals(oldId, newId) && Objects.equals(oldPrincipal, newPrincipal)) {
      return;
    }
    remove(oldPrincipal, oldId);
    if (newPrincipal != null) {
      add(newPrincipal, newId, maxInactive);
    }
  }

  /**
   * The sessions whose stored principal is {@code principal}, each loaded by {@code loader}. Entries
   * whose session is gone, or now stores another principal, are removed on the way; an entry whose
   * hash is missing but whose id is scheduled to expire in the future is a create (or an id change)
   * in flight, and is kept; so is one the limit of sessions admitted a moment ago, whatever its hash
   * holds (a stored session signing in has no principal there until its save is written).
   *
   * @throws RedisException as the store does
   */
  Map<String, LazySession> find(String principal,
      Function<String, @Nullable LazySession> loader) {
    Map<String, LazySession> sessions = new LinkedHashMap<>();
    for (String id : store.indexes().principalSessions(principal)) {
      LazySession session = loader.apply(id);
      if (session != null && principal.equals(session.storedPrincipal())) {
        sessions.put(id, session);
      } else if (!(session == null ? beingWritten(principal, id)
              || store.format().later(store.keys().session(id))
          : store.indexes().recentlyAdmitted(principal, id))) {
        removeStale(principal, id);
      }
    }
    return sessions.isEmpty() ? Collections.emptyMap() : sessions;
  }

  /**
   * Whether a missing hash may still be written: every create and id change puts the id on the
   * expiry schedule (at a future due time) before it adds the index entry and runs the create
   * script, and every delete takes it off the schedule first. A repository without expiry events
   * schedules nothing; its full writes add the entry again after the script instead, which undoes
   * a removal that raced with them (so a node with expiry events off still asks the schedule, for
   * the writes of nodes with them on during a rolling deploy). That entry comes too late for the
   * limit of sessions per principal, whose next run takes an id out of the sign-in order once it
   * is out of the set (the sign-in then deletes itself after its write, or, with refuse-new,
   * another sign-in takes its place): so an id the limit admitted a moment ago is being written as
   * well.
   */
  private boolean beingWritten(String principal, String id) {
    long now = clock.millis();
    Long due = store.indexes().scheduledExpiry(id, now);
    return (due != null && due > now)
        || store.indexes().recentlyAdmitted(principal, id);
  }

  /**
   * Removes an entry that looked stale, then checks the hash again: a save that set this principal
   * meanwhile (its script ran after the look, its SADD before the SREM) gets its entry back.
   */
  private void removeStale(String principal, String id) {
    store.indexes().removeFromPrincipal(principal, id);
    SessionMetadata metadata = store.metadata(id);
    // A hash without a readable timeout is incomplete, so missing: its entry stays removed (a set
    // given no TTL for it would outlive every session in it).
    if (principal.equals(metadata.principal()) && metadata.maxInactiveSeconds() != null) {
      store.indexes().addToPrincipal(principal, id, setTtl(metadata.maxInactiveSeconds()));
    }
  }
}
