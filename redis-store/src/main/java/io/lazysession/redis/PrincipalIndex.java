package io.lazysession.redis;

import io.lettuce.core.RedisException;
import java.time.Clock;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.session.PrincipalNameIndexResolver;

/**
 * The principal name index: one Redis set of session ids per principal name, next to the principal
 * stored in each session hash, which is the truth: a set may briefly hold an id whose session has
 * another principal (two requests changing it at once) or none yet (a create in flight); lookups
 * filter by the stored principal. Resolves what a save changes about a session's principal and
 * keeps the sets in step. Thread-safe.
 */
final class PrincipalIndex {
  private static final Logger log = LoggerFactory.getLogger(PrincipalIndex.class);

  private final RedisSessionStore store;
  private final Clock clock;
  private final PrincipalNameIndexResolver<LazySession> resolver =
      new PrincipalNameIndexResolver<>();

  PrincipalIndex(RedisSessionStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
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
      principal = resolver.resolveIndexValueFor(session);
    } catch (RuntimeException e) {
      log.warn("cannot resolve the principal name of session {}: {}", session.getId(), e.toString());
      return PrincipalChange.UNCHANGED;
    }
    if (Objects.equals(principal, session.storedPrincipal())) {
      return PrincipalChange.UNCHANGED;
    }
    return principal == null ? PrincipalChange.REMOVED : PrincipalChange.setTo(principal);
  }

  /** Adds {@code id} to the set of {@code principal}; true when it was not there yet. */
  boolean add(String principal, String id) {
    return store.addToPrincipal(principal, id);
  }

  void remove(@Nullable String principal, String id) {
    if (principal != null) {
      store.removeFromPrincipal(principal, id);
    }
  }

  /** Moves an index entry after a session changed its id, its principal, or both. */
  void move(String oldId, @Nullable String oldPrincipal, String newId,
      @Nullable String newPrincipal) {
    if (Objects.equals(oldId, newId) && Objects.equals(oldPrincipal, newPrincipal)) {
      return;
    }
    remove(oldPrincipal, oldId);
    if (newPrincipal != null) {
      store.addToPrincipal(newPrincipal, newId);
    }
  }

  /**
   * The sessions whose stored principal is {@code principal}, each loaded by {@code loader}. Entries
   * whose session is gone, or now stores another principal, are removed on the way; an entry whose
   * hash is missing but whose id is scheduled to expire in the future is a create (or an id change)
   * in flight, and is kept.
   *
   * @throws RedisException as the store does
   */
  Map<String, LazySession> find(String principal,
      Function<String, @Nullable LazySession> loader) {
    Map<String, LazySession> sessions = new LinkedHashMap<>();
    for (String id : store.principalSessions(principal)) {
      LazySession session = loader.apply(id);
      if (session != null && principal.equals(session.storedPrincipal())) {
        sessions.put(id, session);
      } else if (session != null || !beingWritten(id)) {
        removeStale(principal, id);
      }
    }
    return sessions.isEmpty() ? Collections.emptyMap() : sessions;
  }

  /**
   * Whether a missing hash may still be written: every create and id change puts the id on the
   * expiry schedule (at a future due time) before it adds the index entry and runs the create
   * script, and every delete takes it off the schedule first.
   */
  private boolean beingWritten(String id) {
    Long due = store.scheduledExpiry(id);
    return due != null && due > clock.millis();
  }

  /**
   * Removes an entry that looked stale, then checks the hash again: a save that set this principal
   * meanwhile (its script ran after the look, its SADD before the SREM) gets its entry back.
   */
  private void removeStale(String principal, String id) {
    store.removeFromPrincipal(principal, id);
    if (principal.equals(store.metadata(id).principal())) {
      store.addToPrincipal(principal, id);
    }
  }
}
