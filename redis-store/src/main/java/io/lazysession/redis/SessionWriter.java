package io.lazysession.redis;

import io.lazysession.redis.SaveRequest.SaveMode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a session to Redis: the changes of a loaded one (one save script call, or nothing at all),
 * every field of a new one, or the whole session under a new id. Then one commit step brings the
 * session, the near cache, the expiry schedule and the principal index in line with what Redis
 * holds, and durability is checked last. Thread-safe (sessions are not: one request saves its own).
 */
final class SessionWriter {
  private static final Logger log = LoggerFactory.getLogger(SessionWriter.class);
  /** Claims of a Spring Session Data Redis hash that changed meanwhile; the last one forces it. */
  static final int CLAIM_ATTEMPTS = 4;

  private final RedisSessionStore store;
  private final NearCache nearCache;
  private final MetricsRecorder metrics;
  private final PrincipalIndex principals;
  private final ExpirySweeper expiry;
  private final SessionEvents events;
  private final TouchPolicy touch;
  private final Clock clock;
  private final Duration expiryGrace;
  private final Durability durability;
  /** Null unless the repository takes over Spring Session Data Redis's sessions. */
  private final @Nullable SpringSessionDataRedisMigration migration;
  /** Budgets and size listeners: each save is checked as it is made (nothing sent on a refusal). */
  private final SessionSizeWatch sizes;

  SessionWriter(RedisSessionStore store, NearCache nearCache, MetricsRecorder metrics,
      PrincipalIndex principals, ExpirySweeper expiry, SessionEvents events, TouchPolicy touch,
      Clock clock, Duration expiryGrace, Durability durability,
      @Nullable SpringSessionDataRedisMigration migration, SessionSizeWatch sizes) {
    this.store = store;
    this.nearCache = nearCache;
    this.metrics = metrics;
    this.principals = principals;
    this.expiry = expiry;
    this.events = events;
    this.touch = touch;
    this.clock = clock;
    this.expiryGrace = expiryGrace;
    this.durability = durability;
    this.migration = migration;
    this.sizes = sizes;
  }

  /**
   * Writes a session that is not invalidated, with the principal change the caller resolved.
   *
   * @throws io.lettuce.core.RedisException as the store does
   * @throws SessionNotReplicatedException when too few replicas acknowledged in time (the write is
   *     applied, and this node's bookkeeping done)
   */
  void save(LazySession session, PrincipalChange principal) {
    SsdrSession origin = session.migratingFrom();
    if (origin != null && migration != null) {
      takeOver(session, principal, origin, migration);
    } else if (session.isNew()) {
      writeFull(session, false, principal);
    } else if (!session.getId().equals(session.storedId())) {
      changeId(session, principal);
    } else {
      writeChanges(session, principal);
    }
  }

  private void writeChanges(LazySession session, PrincipalChange principal) {
    Map<String, byte[]> writes = session.changedAttributes();
    List<String> removes = List.copyOf(session.removedNames());
    boolean timeoutChanged =
        !session.getMaxInactiveInterval().equals(session.storedMaxInactiveInterval());
    if (writes.isEmpty() && removes.isEmpty() && principal instanceof PrincipalChange.Unchanged
        && !timeoutChanged && !touch.isDue(session)) {
      metrics.savesSkipped.increment();
      return;
    }
    String id = session.getId();
    long epoch = nearCache.epoch();
    NearCacheTracking.SaveStart start = nearCache.saveStart(id); // see NearCache.afterSave
    Instant accessedBefore = session.storedLastAccessedTime();
    Sent sent = send(id, session,
        request(SaveMode.UPDATE, session, principal, timeoutChanged, writes, removes));
    id = session.getId(); // moved when the id was renewed meanwhile
    SaveResult result = sent.result();
    if (result.version() <= 0) {
      // Deleted or expired since it was loaded: writing would resurrect a partial session.
      log.debug("session {} was deleted or expired meanwhile; not saved", id);
      nearCache.invalidate(id);
      metrics.savesSkipped.increment();
      return;
    }
    String oldPrincipal = session.storedPrincipal();
    // Nobody wrote in between (the version moved by this request's step): this copy is what Redis
    // holds.
    boolean exact = result.version() == sent.request().nextVersion(session.version())
        && session.nearCacheEpoch() == epoch
        && !sent.retried();
    commit(session, result, writes, removes, false, principal.applyTo(oldPrincipal), epoch, exact,
        sent.request(), start);
    if (timeoutChanged) {
      expiry.schedule(id, session.getCreationTime(), session.storedLastAccessedTime(),
          session.getMaxInactiveInterval());
    }
    Duration maxInactive = session.getMaxInactiveInterval();
    String newPrincipal = session.storedPrincipal();
    if (!(principal instanceof PrincipalChange.Unchanged)) {
      principals.move(id, oldPrincipal, id, newPrincipal, maxInactive);
    } else if (principals.keepAliveDue(accessedBefore, session.storedLastAccessedTime(),
        maxInactive, timeoutChanged)) {
      // Another node may have set or changed the principal since this copy was loaded: then the
      // set that must live on is that of the principal Redis holds.
      String current = exact ? newPrincipal : store.metadata(id).principal();
      if (current != null) {
        principals.add(current, id, maxInactive); // renews the set's TTL
      }
    }
    durability.require(id, result);
  }

  /** Writes a session {@link IdRenewal} gave a new id, as loaded, whole under that id. */
  void writeMoved(LazySession session) {
    writeFull(session, true, PrincipalChange.UNCHANGED);
  }

  /** Writes every field of the session under its current id: a new session, or a new id. */
  private void writeFull(LazySession session, boolean idChanged, PrincipalChange change) {
    Map<String, byte[]> writes = session.allAttributes();
    String oldId = session.storedId();
    String oldPrincipal = session.storedPrincipal();
    String newPrincipal = change.applyTo(oldPrincipal);
    // A full write states the principal explicitly.
    PrincipalChange principal = newPrincipal == null ? change : PrincipalChange.setTo(newPrincipal);
    // Index entries first: a hash that exists is always on the schedule and in its principal set,
    // even if the connection drops right after the script ran (an entry without its hash is
    // harmless: the sweep and findByPrincipalName clean it up).
    String id = session.getId();
    Duration maxInactive = session.getMaxInactiveInterval();
    // Checked against the budget before anything is written (an id change: before changeId).
    SaveRequest request = request(SaveMode.whole(idChanged, session), session, principal, true,
        writes, List.of(), !idChanged);
    expiry.scheduleWrite(id, session.getCreationTime(), session.getLastAccessedTime(),
        maxInactive);
    boolean principalAdded = newPrincipal != null && principals.add(newPrincipal, id, maxInactive);
    long epoch = nearCache.epoch();
    NearCacheTracking.SaveStart start = nearCache.saveStart(id);
    SaveResult result = write(id, request);
    if (result.version() < 0) {
      if (principalAdded) {
        principals.remove(newPrincipal, id); // not ours: the id belongs to another session
      }
      throw new IllegalStateException("a session with the new id already exists in Redis; "
          + "the session id generator produced a duplicate");
    }
    // 0: an earlier attempt of this very write was applied and other writes followed it.
    boolean writtenSince = result.version() == 0;
    commit(session, result, writes, List.of(), true, newPrincipal, epoch, !writtenSince, request,
        start);
    if (idChanged) {
      principals.remove(oldPrincipal, oldId);
    } else {
      events.created(session);
    }
    if (newPrincipal != null && principals.expiringSets()) {
      // No schedule tells a lookup that this write was in flight: an entry it removed as stale
      // between the add above and the script comes back.
      principals.add(newPrincipal, id, maxInactive);
    }
    if (!writtenSince) {
      durability.require(id, result);
    }
  }

  /**
   * Moves a stored session to its new id. Cluster-safe (the two keys may be in different slots):
   * first the old hash is deleted if it is still live and returned (so the old id stops working even
   * if the second step fails, and a session that expired meanwhile is not brought back), then what it
   * held, with this request's changes on top, is written under the new id. If the second step fails, the session is lost (the user signs in
   * again) rather than left reachable under the old id.
   */
  private void changeId(LazySession session, PrincipalChange principal) {
    String oldId = session.storedId();
    if (sizes.refuses()) { // before the old hash is taken: a refusal leaves the session as it was
      sizes.refuseOverBudget(session, SaveRequest.of(SaveMode.CREATE, clock.millis(), session,
          principal, true, expiryGrace.toMillis(), session.allAttributes(), List.of()));
    }
    nearCache.invalidate(oldId);
    if (migration != null && migration.handles(oldId)) {
      // As a delete does: a take-over of the old id still in flight on another node must not bring
      // it back once it is gone from here.
      migration.delete(oldId);
    }
    // Claimed as deleteById does, so that no sweep reports the old id as expired once its hash is
    // gone: the session lives on under the new id.
    // Renewed since this request loaded it: taken under the id it has now.
    ExpirySweeper.Taken taken = expiry.claimAndTake(oldId);
    if (taken == null) {
      log.debug("session {} was deleted or expired before its id changed; not saved", oldId);
      metrics.savesSkipped.increment();
      return;
    }
    ScriptReplies.DeletedHash stored = taken.hash();
    // Other requests may have saved the old id since this one loaded it: their changes move too.
    AttributePacking.Expanded expanded = AttributePacking.expand(session.serializer(),
        session.protection(), taken.id(), stored.attributes(), stored.pack());
    session.mergeStored(expanded.attributes(), stored.metadata());
    session.storedPack(expanded.pack());
    writeFull(session, true, principal);
    if (!taken.id().equals(oldId)) {
      nearCache.invalidate(taken.id());
      principals.remove(stored.metadata().principal(), taken.id());
    }
    if (taken.waited() != null) { // the old hash's removal, maybe on another primary (Cluster)
      durability.requireDeleted("changeSessionId", taken.id(), taken.waited());
    }
  }

  // ---- migration from Spring Session Data Redis -------------------------------------------------

  /**
   * The first save of a session loaded from Spring Session Data Redis: moves it here without losing
   * what an SSDR node or another lazysession node wrote meanwhile (a rolling switch serves the same
   * session from both kinds of node), and without ever leaving it in neither place.
   * <ol>
   *   <li>claim: claim-ssdr.lua moves SSDR's hash to the session's claim key if it is still what
   *       this request loaded. If an SSDR node saved it since, its content is merged into this
   *       request's session (this request's own changes win, as between two lazysession requests)
   *       and the claim is tried again; the last attempt moves it whatever it holds. A claim key
   *       that is already there (another node's take-over, not done yet) is merged the same way;
   *   <li>the migrate script creates the hash here from the session as claimed, unless it exists
   *       (another node created it: its changes stay). Values this request read and did not change
   *       are written in the configured encoding there and then, never later: a later write of a
   *       value nobody changed could undo another node's change;
   *   <li>claim-done.lua removes the claim key. If a delete marked it meanwhile (a sign-out on
   *       another node), the hash just created is deleted again rather than bringing the session
   *       back;
   *   <li>SSDR's expiry key, expirations entry and principal index entry are removed;
   *   <li>this request's changes are saved as for any session loaded from here (an update, or an id
   *       change, which takes in what other requests wrote here meanwhile).
   * </ol>
   * When there is nothing to claim (another node finished the take-over, or the session was
   * deleted), the last step alone runs: it finds the session here, or saves nothing.
   */
  private void takeOver(LazySession session, PrincipalChange principal, SsdrSession origin,
      SpringSessionDataRedisMigration migration) {
    String id = session.storedId();
    SsdrSession claimed = claim(session, id, origin, migration);
    if (claimed != null) {
      if (claimed != origin) {
        principal = principals.changeOf(session); // while still migrating: resolved from scratch
      }
      Map<String, AttributeEntry.Rebased> rebased = session.rebased(claimed.attributes());
      Map<String, byte[]> replaced = new LinkedHashMap<>();
      rebased.forEach((name, value) -> replaced.put(name, value.bytes()));
      expiry.scheduleWrite(id, Instant.ofEpochMilli(claimed.creation()),
          Instant.ofEpochMilli(claimed.lastAccess()),
          Duration.ofSeconds(claimed.maxInactiveSeconds()));
      // With durability, replicated before SSDR's copy is removed (claim-done).
      boolean created = migration.migrate(id, clock.millis(), claimed, replaced,
          expiryGrace.toMillis(), durability.replicas(), durability.timeout());
      if (created) {
        session.takenOver(rebased);
        metrics.sessionsMigrated.increment();
      }
      if (migration.claimDone(id)) {
        log.debug("session {} was deleted while being taken over from Spring Session Data Redis; "
            + "deleted here too", id);
        session.migratingFrom(null);
        nearCache.invalidate(id);
        ExpirySweeper.Deleted deleted = expiry.claimAndDelete(id);
        if (deleted != null) {
          principals.remove(deleted.metadata().principal(), id);
        }
        return;
      }
      migration.removeIndexEntries(id, origin);
      if (claimed != origin) { // SSDR may have moved them since (another timeout, another principal)
        migration.removeIndexEntries(id, claimed);
      }
    }
    session.migratingFrom(null);
    if (!session.getId().equals(id)) {
      changeId(session, principal);
    } else {
      writeChanges(session, principal);
    }
  }

  /**
   * Claims SSDR's session {@code id} (see {@link #takeOver}), merging into {@code session} what an
   * SSDR node wrote since {@code loaded}. Returns the session as claimed, or null when there is
   * nothing to claim.
   */
  private @Nullable SsdrSession claim(LazySession session, String id, SsdrSession loaded,
      SpringSessionDataRedisMigration migration) {
    SsdrSession expected = loaded;
    for (int attempt = 1; ; attempt++) {
      ScriptReplies.SsdrClaim claim =
          migration.claim(id, expected, attempt >= CLAIM_ATTEMPTS);
      if (claim.outcome() == ScriptReplies.SsdrClaimOutcome.GONE) {
        return null;
      }
      if (claim.outcome() == ScriptReplies.SsdrClaimOutcome.TAKEN) {
        return expected;
      }
      SsdrSession current = claim.hash() == null ? null : migration.read(id, claim.hash());
      boolean moved = claim.outcome() != ScriptReplies.SsdrClaimOutcome.CHANGED;
      if (current == null) {
        // Not a session SSDR could serve (no metadata): nothing to take in.
        if (moved) {
          return expected;
        }
        attempt = CLAIM_ATTEMPTS - 1; // the next attempt moves it
        continue;
      }
      if (!Arrays.equals(current.digest(), expected.digest())) {
        log.debug("session {} was changed by Spring Session Data Redis while being taken over; its "
            + "changes are taken in", id);
        session.mergeStored(current.attributes(), new SessionMetadata(current.creation(),
            current.lastAccess(), current.maxInactiveSeconds(), null));
      }
      if (moved) {
        return current;
      }
      expected = current;
    }
  }

  /**
   * The one commit step: the session now holds what Redis holds, and the near cache keeps a copy
   * only when it is exactly that ({@code exact}) and the replicas have it.
   */
  private void commit(LazySession session, SaveResult result, Map<String, byte[]> writes,
      Collection<String> removes, boolean full, @Nullable String principal, long epoch,
      boolean exact, SaveRequest request, NearCacheTracking.@Nullable SaveStart start) {
    metrics.saves.increment();
    NearCache.Metadata metadata = exact
        ? metadataAfter(session.storedMetadata(), request, full, principal) : null;
    StoredPack pack = request.packAfter(session.storedPack());
    // A copy not known exactly (another write came in between) never counts as exact again: a later
    // save of this same session object would otherwise put its incomplete attributes in the near
    // cache under a version Redis confirms.
    session.committed(result.version(), writes, removes, full, principal,
        exact ? epoch : NearCache.NO_EPOCH);
    session.storedPack(pack);
    session.storedMetadata(metadata);
    nearCache.afterSave(session, epoch, exact && durability.replicated(result), start);
  }

  /**
   * The metadata save.lua stored for {@code request} when nobody wrote in between: a create stores
   * what it sends; an update keeps the later of the stored and the sent access time, and the stored
   * timeout unless it sends one. Null when an update's stored metadata ({@code before}) is unknown.
   */
  static NearCache.@Nullable Metadata metadataAfter(NearCache.@Nullable Metadata before,
      SaveRequest request, boolean full, @Nullable String principal) {
    Long maxInactive = request.maxInactiveSeconds();
    if (full) {
      return maxInactive == null ? null
          : new NearCache.Metadata(request.lastAccessMillis(), maxInactive, principal);
    }
    if (before == null) {
      return null;
    }
    return new NearCache.Metadata(Math.max(before.lastAccess(), request.lastAccessMillis()),
        maxInactive != null ? maxInactive : before.maxInactiveSeconds(), principal);
  }

  /** A save as finally sent, and whether its pack had to be rebased onto another one first. */
  private record Sent(SaveResult result, SaveRequest request, boolean retried) {}

  /**
   * Writes an update; when another request rewrote the pack since this one loaded it, applies this
   * request's pack changes to the current pack and sends it again (see {@link AttributePacking});
   * when the session's id was renewed since, sends it to the new id, which the session takes.
   */
  private Sent send(String loadedId, LazySession session, SaveRequest request) {
    SaveRequest sending = request;
    String id = loadedId;
    for (int attempt = 1; ; attempt++) {
      SaveResult result = write(id, sending);
      String movedTo = result.movedTo(store.keys(), id, clock.millis());
      result = result.unlessMovedNowhere(movedTo);
      if (movedTo != null && attempt < AttributePacking.MAX_ATTEMPTS) {
        session.renewTo(movedTo, true); // renewed meanwhile (IdRenewal): the update goes there
        id = movedTo;
        continue;
      }
      if (result.version() != SaveResult.PACK_CONFLICT) {
        return new Sent(result, sending, attempt > 1);
      }
      if (attempt >= AttributePacking.MAX_ATTEMPTS) {
        throw AttributePacking.unsettled(id);
      }
      if (attempt > 1) {
        AttributePacking.backOff(attempt);
      }
      sending = sending.with(AttributePacking.rebase(session.serializer(), session.protection(), id,
          sending.placement(), result.currentPack()));
    }
  }

  private SaveRequest request(SaveMode mode, LazySession session, PrincipalChange principal,
      boolean withTimeout, Map<String, byte[]> writes, Collection<String> removes) {
    return request(mode, session, principal, withTimeout, writes, removes, true);
  }

  /** A save, checked against the budget ({@code refuse}: may refuse it) and reported. */
  private SaveRequest request(SaveMode mode, LazySession session, PrincipalChange principal,
      boolean withTimeout, Map<String, byte[]> writes, Collection<String> removes,
      boolean refuse) {
    SaveRequest request = SaveRequest.of(mode, clock.millis(), session, principal, withTimeout,
        expiryGrace.toMillis(), writes, removes);
    sizes.check(session, request, refuse);
    return request;
  }

  /** The save script, followed by WAIT when durability is on, where the session now is. */
  private SaveResult write(String id, SaveRequest request) {
    return SessionRenaming.followed(store.keys(), id, request, () -> durability.on()
        ? store.saveAndWait(id, request, durability.replicas(), durability.timeout())
        : store.save(id, request));
  }
}
