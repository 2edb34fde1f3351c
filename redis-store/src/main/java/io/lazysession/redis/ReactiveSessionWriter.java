package io.lazysession.redis;

import io.lazysession.redis.SaveRequest.SaveMode;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The reactive counterpart of {@link SessionWriter} and of the delete path of
 * {@link ExpirySweeper}: the same steps in the same order (index entries before a create,
 * claim-then-delete, the one commit step that decides what the near cache keeps), each Redis call
 * through {@link ReactiveRedisSessionStore}. Steps that only touch memory (the session, the near
 * cache, events) run on the thread that delivers the previous answer. Thread-safe (sessions are not:
 * one request saves its own).
 *
 * <p>Not here: WAIT after a save (durability) and the take-over of Spring Session Data Redis
 * sessions; {@link LazyReactiveRedisSessionRepository} refuses a repository configured with either.
 */
final class ReactiveSessionWriter {
  private static final Logger log = LoggerFactory.getLogger(ReactiveSessionWriter.class);

  private final ReactiveRedisSessionStore store;
  private final NearCache nearCache;
  private final MetricsRecorder metrics;
  private final SessionEvents events;
  private final TouchPolicy touch;
  private final SessionContext context;
  private final Duration expiryGrace;
  private final PrincipalIndex principals;
  /** Whether sessions go on the expiry schedule (expiry events on); see {@link ExpirySweeper}. */
  private final boolean scheduling;
  /** Budgets and size listeners, as for {@link SessionWriter}. */
  private final SessionSizeWatch sizes;
  private final ExpirySweeper expiry;

  ReactiveSessionWriter(ReactiveRedisSessionStore store, SharedCollaborators shared) {
    this.store = store;
    this.nearCache = shared.nearCache();
    this.metrics = shared.metrics();
    this.events = shared.events();
    this.touch = shared.touch();
    this.context = shared.context();
    this.expiryGrace = shared.expiryGrace();
    this.principals = shared.principals();
    this.expiry = shared.expiry();
    this.scheduling = expiry.scheduling();
    this.sizes = shared.sizes();
  }

  /** Writes a session that is not invalidated, with the principal change the caller resolved. */
  Mono<Void> save(LazySession session, PrincipalChange principal) {
    if (session.isNew()) {
      return writeFull(session, false, principal);
    }
    if (!session.getId().equals(session.storedId())) {
      return changeId(session, principal);
    }
    return writeChanges(session, principal);
  }

  private Mono<Void> writeChanges(LazySession session, PrincipalChange principal) {
    return Mono.defer(() -> {
      Map<String, byte[]> writes = session.changedAttributes();
      List<String> removes = List.copyOf(session.removedNames());
      boolean timeoutChanged =
          !session.getMaxInactiveInterval().equals(session.storedMaxInactiveInterval());
      if (writes.isEmpty() && removes.isEmpty() && principal instanceof PrincipalChange.Unchanged
          && !timeoutChanged && !touch.isDue(session)) {
        metrics.savesSkipped.increment();
        return Mono.empty();
      }
      long epoch = nearCache.epoch();
      Instant accessedBefore = session.storedLastAccessedTime();
      return send(session.getId(), session,
              request(SaveMode.UPDATE, session, principal, timeoutChanged, writes, removes), 1)
          .flatMap(sent -> {
            String id = session.getId(); // moved when the id was renewed meanwhile
            long version = sent.result().version();
            if (version <= 0) {
              // Deleted or expired since it was loaded: writing would resurrect a partial session.
              log.debug("session {} was deleted or expired meanwhile; not saved", id);
              nearCache.invalidate(id);
              metrics.savesSkipped.increment();
              return Mono.empty();
            }
            String oldPrincipal = session.storedPrincipal();
            boolean exact = version == sent.request().nextVersion(session.version())
                && session.nearCacheEpoch() == epoch
                && sent.attempt() == 1;
            commit(session, version, writes, removes, false, principal.applyTo(oldPrincipal),
                epoch, exact, sent.request().packAfter(session.storedPack()));
            Mono<Void> schedule = timeoutChanged ? schedule(id, session.getCreationTime(),
                session.storedLastAccessedTime(), session.getMaxInactiveInterval()) : Mono.empty();
            Duration maxInactive = session.getMaxInactiveInterval();
            String newPrincipal = session.storedPrincipal();
            Mono<Void> index;
            if (!(principal instanceof PrincipalChange.Unchanged)) {
              index = move(id, oldPrincipal, id, newPrincipal, maxInactive);
            } else if (principals.keepAliveDue(accessedBefore, session.storedLastAccessedTime(),
                maxInactive, timeoutChanged)) {
              // As SessionWriter.writeChanges: the principal Redis holds unless this copy is exact.
              Mono<String> current = exact ? Mono.justOrEmpty(newPrincipal)
                  : store.metadata(id).mapNotNull(SessionMetadata::principal);
              index = current.flatMap(name -> add(name, id, maxInactive)).then();
            } else {
              index = Mono.empty();
            }
            return schedule.then(index);
          });
    });
  }

  /** Writes every field of the session under its current id: a new session, or a new id. */
  private Mono<Void> writeFull(LazySession session, boolean idChanged, PrincipalChange change) {
    return Mono.defer(() -> {
      Map<String, byte[]> writes = session.allAttributes();
      String oldId = session.storedId();
      String oldPrincipal = session.storedPrincipal();
      String newPrincipal = change.applyTo(oldPrincipal);
      PrincipalChange principal =
          newPrincipal == null ? change : PrincipalChange.setTo(newPrincipal);
      String id = session.getId();
      Duration maxInactive = session.getMaxInactiveInterval();
      // Built here, on the subscribing thread, as the attributes were encoded: making the pack
      // compresses, which is CPU work an event loop should not do, nor load native code for.
      // An id change was checked against the budget before its claim.
      SaveRequest request = request(SaveMode.whole(idChanged, session), session, principal, true,
          writes, List.of(), !idChanged);
      // Index entries first, as SessionWriter.writeFull explains.
      Mono<Boolean> added = newPrincipal == null ? Mono.just(false)
          : add(newPrincipal, id, maxInactive);
      return schedule(id, session.getCreationTime(), session.getLastAccessedTime(), maxInactive,
          true).then(added)
          .flatMap(principalAdded -> {
            long epoch = nearCache.epoch();
            return store.save(id, request)
                .flatMap(saved -> {
                  long version = saved.version();
                  if (version < 0) {
                    Mono<Void> undo = principalAdded && newPrincipal != null
                        ? store.removeFromPrincipal(newPrincipal, id) : Mono.empty();
                    return undo.then(Mono.error(new IllegalStateException("a session with the "
                        + "new id already exists in Redis; the session id generator produced a "
                        + "duplicate")));
                  }
                  boolean writtenSince = version == 0;
                  commit(session, version, writes, List.of(), true, newPrincipal, epoch,
                      !writtenSince, request.packAfter(session.storedPack()));
                  // As SessionWriter.writeFull: without a schedule, the entry is added again.
                  Mono<Void> readd = newPrincipal != null && principals.expiringSets()
                      ? add(newPrincipal, id, maxInactive).then() : Mono.empty();
                  if (idChanged) {
                    return readd.then(oldPrincipal == null ? Mono.<Void>empty()
                        : store.removeFromPrincipal(oldPrincipal, oldId));
                  }
                  events.created(session);
                  return readd;
                });
          });
    });
  }

  /** As {@link SessionWriter}'s id change: claim and take the old hash, then write it whole. */
  private Mono<Void> changeId(LazySession session, PrincipalChange principal) {
    return Mono.defer(() -> {
      String oldId = session.storedId();
      if (sizes.refuses()) { // before the old hash is taken, as SessionWriter.changeId
        sizes.refuseOverBudget(session, SaveRequest.of(SaveMode.CREATE,
            context.now().toEpochMilli(), session, principal, true, expiryGrace.toMillis(),
            session.allAttributes(), List.of()));
      }
      nearCache.invalidate(oldId);
      return SessionRenaming.elsewhereTooReactive(store.keys(), oldId, () -> take(oldId, 0),
              Optional::isPresent)
          // Unpacking decompresses: off Lettuce's event loop, which serves every connection.
          .publishOn(Schedulers.parallel())
          .flatMap(found -> {
            ExpirySweeper.Taken taken = found.orElse(null);
            if (taken == null) {
              log.debug("session {} was deleted or expired before its id changed; not saved",
                  oldId);
              metrics.savesSkipped.increment();
              return Mono.empty();
            }
            ScriptReplies.DeletedHash stored = taken.hash();
            AttributePacking.Expanded expanded = AttributePacking.expand(session.serializer(),
                session.protection(), taken.id(), stored.attributes(), stored.pack());
            session.mergeStored(expanded.attributes(), stored.metadata());
            session.storedPack(expanded.pack());
            String principalOf = stored.metadata().principal();
            Mono<Void> unindex = taken.id().equals(oldId) || principalOf == null ? Mono.empty()
                : store.removeFromPrincipal(principalOf, taken.id());
            return writeFull(session, true, principal).then(unindex);
          });
    });
  }

  /**
   * As {@link ExpirySweeper#claimAndTake}: the hash of {@code id} claimed and taken, where the
   * session is now (an id renewal may have moved it since it was loaded); empty inside when there
   * was nothing live.
   */
  private Mono<Optional<ExpirySweeper.Taken>> take(String id, int hops) {
    return claimThenDelete(id, now -> store.delete(id, now, true)).flatMap(claim -> {
      if (claim.deleted() != null) {
        return Mono.just(Optional.of(new ExpirySweeper.Taken(id, claim.deleted(), null)));
      }
      return renewedTo(id, hops).flatMap(next -> {
        nearCache.invalidate(next);
        return take(next, hops + 1);
      }).defaultIfEmpty(Optional.empty());
    });
  }

  /** As {@link ExpirySweeper#renewedTo}, until {@code hops} aliases were followed. */
  private Mono<String> renewedTo(String id, int hops) {
    return context.policies().idRenewalInterval() == null || hops >= SessionReader.ALIAS_HOPS
        ? Mono.empty() : store.aliasOf(id, context.now().toEpochMilli());
  }

  /**
   * As {@link ExpirySweeper#delete}: deletes a live session and reports it as deleted, unless a
   * sweep claimed it first. Emits whether a live session was deleted.
   */
  Mono<Boolean> delete(String id) {
    return SessionRenaming.elsewhereTooReactive(store.keys(), id, () -> delete(id, 0),
        Boolean::booleanValue);
  }

  /** {@link #delete}, where the session is now ({@link ExpirySweeper#renewedTo}). */
  private Mono<Boolean> delete(String id, int hops) {
    // With a publisher, the same script call returns the attributes the event carries.
    return claimThenDelete(id, now -> store.delete(id, now, events.publishing())).flatMap(claim -> {
      ScriptReplies.DeletedHash hash = claim.deleted();
      if (hash == null) {
        return renewedTo(id, hops).flatMap(next -> {
          nearCache.invalidate(next);
          return delete(next, hops + 1);
        }).defaultIfEmpty(false);
      }
      SessionMetadata metadata = hash.metadata();
      Mono<Void> unindex = metadata.principal() == null ? Mono.empty()
          : store.removeFromPrincipal(metadata.principal(), id);
      return unindex.then(Mono.fromSupplier(() -> {
        metrics.sessionsDeleted.increment();
        events.deleted(id, hash); // claim or not: a sweep that holds the claim finds it gone
        return true;
      }));
    });
  }

  /** The outcome of a claim-then-delete: what was deleted (null: nothing live), and the claim. */
  private record Claim<T>(@Nullable T deleted, boolean claimed) {}

  /** The claim-then-delete step of {@link ExpirySweeper}, reactive. */
  private <T> Mono<Claim<T>> claimThenDelete(String id, LongFunction<Mono<T>> delete) {
    return Mono.defer(() -> {
      long now = context.now().toEpochMilli();
      // Without a schedule nobody else reports the session: the delete is its own claim.
      Mono<Boolean> claim = scheduling ? store.unscheduleExpiry(id, now) : Mono.just(true);
      return claim.flatMap(claimed -> delete.apply(now)
          .map(deleted -> new Claim<>(deleted, claimed))
          .switchIfEmpty(Mono.defer(() -> {
            // Expired, not deleted: back on the schedule, so that the sweep reports it once. Gone:
            // another call deleted (and reported) or moved it.
            Mono<Void> reschedule = claimed && scheduling
                ? store.sessionExists(id).flatMap(exists -> exists
                    ? store.scheduleExpiry(id, now) : Mono.<Void>empty())
                : Mono.empty();
            return reschedule.thenReturn(new Claim<>(null, claimed));
          })));
    });
  }

  /** As {@link ExpirySweeper#schedule}. */
  private Mono<Void> schedule(String id, Instant creation, Instant lastAccess,
      Duration maxInactive) {
    return schedule(id, creation, lastAccess, maxInactive, false);
  }

  /**
   * As {@link ExpirySweeper#schedule}; {@code write}: before a create or id change, which in Redis
   * format 2 goes in the buckets of a write in flight at the latest, as {@link
   * ExpirySweeper#scheduleWrite} explains.
   */
  private Mono<Void> schedule(String id, Instant creation, Instant lastAccess,
      Duration maxInactive, boolean write) {
    if (!scheduling) {
      return Mono.empty();
    }
    Long due = ExpirySweeper.dueMillis(context.policies(), creation, lastAccess, maxInactive);
    long now = context.now().toEpochMilli();
    if (due == null) {
      return store.unscheduleExpiry(id, now).then();
    }
    if (write && store.bucketed()) {
      due = Math.min(due, now + ExpirySweeper.IN_FLIGHT.toMillis());
    }
    return store.scheduleExpiry(id, due);
  }

  /** As {@link PrincipalIndex#move}. */
  private Mono<Void> move(String oldId, @Nullable String oldPrincipal, String newId,
      @Nullable String newPrincipal, Duration maxInactive) {
    if (oldId.equals(newId) && Objects.equals(oldPrincipal, newPrincipal)) {
      return Mono.empty();
    }
    Mono<Void> remove = oldPrincipal == null ? Mono.empty()
        : store.removeFromPrincipal(oldPrincipal, oldId);
    Mono<Void> add = newPrincipal == null ? Mono.empty()
        : add(newPrincipal, newId, maxInactive).then();
    return remove.then(add);
  }

  /** As {@link PrincipalIndex#add}: with the set's TTL when the sets expire. */
  private Mono<Boolean> add(String principal, String id, Duration maxInactive) {
    return store.addToPrincipal(principal, id, principals.setTtl(maxInactive));
  }

  /** As {@link SessionWriter}'s commit step, without durability (no WAIT is sent). */
  private void commit(LazySession session, long version, Map<String, byte[]> writes,
      Collection<String> removes, boolean full, @Nullable String principal, long epoch,
      boolean exact, StoredPack pack) {
    metrics.saves.increment();
    // As SessionWriter.commit: a copy not known exactly never counts as exact again.
    session.committed(version, writes, removes, full, principal,
        exact ? epoch : NearCache.NO_EPOCH);
    session.storedPack(pack);
    session.storedMetadata(null); // not worked out here: the copy asks Redis for them once
    nearCache.afterSave(session, epoch, exact, null);
  }

  /** An update as finally sent, at which attempt (see {@link SessionWriter}'s). */
  private record Sent(SaveResult result, SaveRequest request, int attempt) {}

  /** As {@link SessionWriter}'s: sent again onto the current pack after a pack conflict. */
  private Mono<Sent> send(String id, LazySession session, SaveRequest request, int attempt) {
    return store.save(id, request).flatMap(answer -> {
      String movedTo = answer.movedTo(store.keys(), id, context.now().toEpochMilli());
      SaveResult result = answer.unlessMovedNowhere(movedTo);
      if (movedTo != null && attempt < AttributePacking.MAX_ATTEMPTS) {
        session.renewTo(movedTo, true); // renewed meanwhile (IdRenewal): the update goes there
        return send(movedTo, session, request, attempt + 1);
      }
      if (result.version() != SaveResult.PACK_CONFLICT) {
        return Mono.just(new Sent(result, request, attempt));
      }
      if (attempt >= AttributePacking.MAX_ATTEMPTS) {
        return Mono.error(AttributePacking.unsettled(id));
      }
      // Rebasing decompresses and recompresses the pack: off Lettuce's event loop. From the second
      // conflict in a row on, after the blocking writer's random pause, waited on a timer.
      Mono<SaveRequest> rebased = Mono.fromCallable(() -> request.with(AttributePacking.rebase(
              session.serializer(), session.protection(), id, request.placement(),
              result.currentPack())))
          .subscribeOn(Schedulers.parallel());
      return afterPause(AttributePacking.backOffNanos(attempt), rebased)
          .flatMap(next -> send(id, session, next, attempt + 1));
    });
  }

  /** {@code next}, subscribed once {@code nanos} have passed on Reactor's timer (at once for 0). */
  static <T> Mono<T> afterPause(long nanos, Mono<T> next) {
    return nanos <= 0 ? next : Mono.delay(Duration.ofNanos(nanos)).then(next);
  }

  private SaveRequest request(SaveMode mode, LazySession session, PrincipalChange principal,
      boolean withTimeout, Map<String, byte[]> writes, Collection<String> removes) {
    return request(mode, session, principal, withTimeout, writes, removes, true);
  }

  /** A save, checked against the budget ({@code refuse}: may refuse it) and reported. */
  private SaveRequest request(SaveMode mode, LazySession session, PrincipalChange principal,
      boolean withTimeout, Map<String, byte[]> writes, Collection<String> removes,
      boolean refuse) {
    SaveRequest request = SaveRequest.of(mode, context.now().toEpochMilli(), session, principal,
        withTimeout, expiryGrace.toMillis(), writes, removes);
    sizes.check(session, request, refuse);
    return request;
  }
}
