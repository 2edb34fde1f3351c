package io.lazysession.redis;

import io.lettuce.core.RedisException;
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
 * stored in each session hash. Resolves what a save changes about a session's principal and keeps
 * the sets in step. Thread-safe.
 */
final class PrincipalIndex {
  private static final Logger log = LoggerFactory.getLogger(PrincipalIndex.class);

  private final RedisSessionStore store;
  private final PrincipalNameIndexResolver<LazySession> resolver =
      new PrincipalNameIndexResolver<>();

  PrincipalIndex(RedisSessionStore store) {
    this.store = store;
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
   * The sessions of {@code principal}, each loaded by {@code loader}; entries of sessions that are
   * gone are removed on the way.
   *
   * @throws RedisException as the store does
   */
  Map<String, LazySession> find(String principal,
      Function<String, @Nullable LazySession> loader) {
    Map<String, LazySession> sessions = new LinkedHashMap<>();
    for (String id : store.principalSessions(principal)) {
      LazySession session = loader.apply(id);
      if (session == null) {
        store.removeFromPrincipal(principal, id);
      } else {
        sessions.put(id, session);
      }
    }
    return sessions.isEmpty() ? Collections.emptyMap() : sessions;
  }
}
