package io.lazysession.redis;

import io.lettuce.core.RedisException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The expiry schedule (a sorted set of session ids by due time, {@code ns:expirations}, in Redis
 * format 1; one set per minute, {@link ExpiryBuckets}, once the namespace is finalized at format 2)
 * and the sweep that reports expired sessions ({@link ExpirySweep}), on a background thread of its
 * own. Thread-safe.
 *
 * <p>Design note: whoever removes an id from the schedule (ZREM answered 1) <em>claims</em> it.
 * Deletes, id changes and sweeps all claim before they delete ({@link #claimAndDelete},
 * {@link #expireClaimed}). The call whose script deletes a live hash reports it as deleted, claim
 * or not (a delete or an eviction; an id change reports nothing: the session lives on); the claim
 * decides who reports a session nobody deleted live: the sweep that holds it reports it as expired.
 * So a claimant that finds the hash gone although it was there (another call deleted or moved it)
 * reports nothing and does not put the id back on the schedule: of two deletes racing, or a delete
 * and a sweep, exactly one reports the session, and a session whose id moved is never reported as
 * expired. In format 2 the claim is on {@code ns:expirations} alone: a bucket's member claims
 * nothing, and only the script that deletes a live hash reports it (docs/redis-layout.md, "Expiry
 * schedule, format 2").
 *
 * <p>Without expiry events ({@code scheduling} false) there is no schedule: nothing here writes
 * {@code ns:expirations}, no sweep runs, a delete needs no claim (it always reports the session
 * as deleted), and Redis alone drops an expired hash, by its TTL.
 */
final class ExpirySweeper implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ExpirySweeper.class);

  private final RedisSessionStore store;
  private final NearCache nearCache;
  private final PrincipalIndex principals;
  private final SessionEvents events;
  private final MetricsRecorder metrics;
  /** How long the id of a never-expiring session being written stays on the schedule. */
  static final Duration IN_FLIGHT = Duration.ofMinutes(1);

  private final Clock clock;
  /** Whether sessions are put on the schedule and swept: expiry events are on. */
  private final boolean scheduling;
  /** The absolute timeout brings a session's due time forward (never stored: see SessionPolicies). */
  private final SessionPolicies policies;
  /** With replicas: a delete ({@link #delete}) waits for them, as a save does. */
  private final Durability durability;
  private final @Nullable ScheduledExecutorService thread;
  private final ExpirySweep sweep;

  /**
   * Starts sweeping every {@code interval} (after a jittered first delay); zero, or no
   * {@code scheduling}: never by itself.
   */
  ExpirySweeper(RedisSessionStore store, NearCache nearCache, PrincipalIndex principals,
      SessionEvents events, MetricsRecorder metrics, Clock clock, Duration interval,
      boolean scheduling, SessionPolicies policies, Durability durability) {
    this.policies = policies;
    this.durability = durability;
    this.store = store;
    this.nearCache = nearCache;
    this.principals = principals;
    this.events = events;
    this.metrics = metrics;
    this.clock = clock;
    this.scheduling = scheduling;
    this.sweep = new ExpirySweep(store, nearCache, principals, events, metrics, policies);
    if (interval.isZero() || !scheduling) {
      this.thread = null;
      return;
    }
    this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread sweeper = new Thread(runnable, "lazysession-expiry-" + store.keys().namespace());
      sweeper.setDaemon(true);
      return sweeper;
    });
    // At least 1 ms: a shorter interval (500us) would be 0, which the scheduler refuses.
    long period = Math.max(1, interval.toMillis());
    // Jitter, so that nodes started together do not sweep in lockstep.
    long initialDelay = period / 2 + ThreadLocalRandom.current().nextLong(period / 2 + 1);
    thread.scheduleWithFixedDelay(this::sweepQuietly, initialDelay, period, TimeUnit.MILLISECONDS);
  }

  /** Whether sessions are scheduled and swept (expiry events are on). */
  boolean scheduling() {
    return scheduling;
  }

  /** Puts a session on the schedule at its due time, or takes it off when it never expires. */
  void schedule(String id, Instant creation, Instant lastAccess, Duration maxInactive) {
    if (!scheduling) {
      return;
    }
    Long due = dueMillis(policies, creation, lastAccess, maxInactive);
    if (due == null) {
      store.indexes().unscheduleExpiry(id, clock.millis());
    } else {
      store.indexes().scheduleExpiry(id, due);
    }
  }

  /**
   * When a session expires by its idle timeout or its absolute deadline, whichever comes first;
   * null when it never does.
   */
  static @Nullable Long dueMillis(SessionPolicies policies, Instant creation, Instant lastAccess,
      Duration maxInactive) {
    return policies.due(creation.toEpochMilli(), maxInactive.isNegative() ? null
        : lastAccess.toEpochMilli() + maxInactive.toMillis());
  }

  /**
   * Schedules the id of a session about to be written whole (a create, an id change), before its
   * index entries and its hash: a scheduled id with a future due time is how {@link PrincipalIndex}
   * tells a write in flight from a session that is gone. A session that never expires is scheduled
   * too, {@link #IN_FLIGHT} ahead: the sweep then finds it never expires and takes it off.
   */
  void scheduleWrite(String id, Instant creation, Instant lastAccess, Duration maxInactive) {
    if (!scheduling) {
      return;
    }
    Long due = dueMillis(policies, creation, lastAccess, maxInactive);
    long inFlight = clock.millis() + IN_FLIGHT.toMillis();
    if (due == null) {
      store.indexes().scheduleExpiry(id, inFlight);
    } else if (store.indexes().bucketed()) {
      // Format 2: in the buckets a lookup of a write in flight looks in (ExpiryBuckets), at the
      // latest; the sweep of that minute moves it to the bucket of its due time.
      store.indexes().scheduleExpiry(id, Math.min(due, inFlight));
    } else {
      store.indexes().scheduleExpiry(id, due);
    }
  }

  /**
   * Deletes a live session and reports it as deleted, unless a sweep claimed it first (then the
   * sweep reports it). An expired session is left to the sweep, which reports it as expired.
   *
   * @return true when a live session was deleted
   */
  boolean delete(String id) {
    return SessionRenaming.elsewhereToo(store.keys(), id,
        () -> whereItIs(id, current -> deleteLive(current, false) ? Boolean.TRUE : null)) != null;
  }

  /**
   * {@code step} on {@code id}, and, while it answers null (nothing live there), on the id a renewal
   * moved it to ({@link #renewedTo}), at most {@link SessionReader#ALIAS_HOPS} times; its first
   * answer that is not null, else null.
   */
  private <T> @Nullable T whereItIs(String id, Function<String, @Nullable T> step) {
    String current = id;
    for (int hops = 0; ; hops++) {
      T done = step.apply(current);
      if (done != null) {
        return done;
      }
      current = hops < SessionReader.ALIAS_HOPS ? renewedTo(current) : null;
      if (current == null) {
        return null;
      }
    }
  }

  /**
   * The id an id renewal moved {@code id} to, while the alias it left lasts; null when ids are not
   * renewed or {@code id} is no such alias. A request that loaded a session just before another
   * request renewed it still holds the old id: its delete (a sign-out) and its id change (a sign-in)
   * act on the session where it is now, as its saves do.
   */
  @Nullable String renewedTo(String id) {
    return policies.idRenewalInterval() == null ? null : store.aliasOf(id, clock.millis());
  }

  /**
   * Deletes a session the limit of sessions per principal evicted ({@link SessionLimiter}) and
   * reports it as deleted when this call deleted it. Two calls may race on one id (the evicting
   * node, and the evicted session's own save when it was written after the eviction): the delete
   * script deletes for one of them, which reports it, whoever claimed the id first. A session
   * already expired is left to the sweep, as by {@link #delete}.
   *
   * @return true when this call deleted the session
   */
  boolean evict(String id) {
    return deleteLive(id, true);
  }

  /**
   * {@link #delete}; {@code evicted}: {@link #evict}. Reported whenever this call deleted it. With
   * durability, the delete waits for the replicas (WAIT on the primary of the session, which on a
   * Cluster may be another than the one of the save that follows an eviction), so that neither a
   * sign-out nor an eviction comes back with a failover. A delete throws when fewer acknowledged it,
   * once everything else is done; an eviction, part of another session's sign-in, logs it.
   *
   * @throws SessionNotReplicatedException when fewer replicas had the delete within the timeout
   */
  private boolean deleteLive(String id, boolean evicted) {
    List<ReplicaWait.Waited<?>> waited = new ArrayList<>(1);
    // With a publisher, the same script call returns the attributes the event carries.
    Claim<ScriptReplies.DeletedHash> claim =
        claimThenDelete(id, now -> deleteHash(id, now, events.publishing(), waited));
    ScriptReplies.DeletedHash hash = claim.deleted();
    if (hash == null) {
      return false;
    }
    principals.remove(hash.metadata().principal(), id);
    metrics.sessionsDeleted.increment();
    events.deleted(id, hash); // claim or not: a sweep that holds the claim finds it gone
    if (!waited.isEmpty() && evicted) {
      ReplicaWait.Waited<?> wait = waited.get(0);
      if (!durability.replicated(wait)) {
        log.warn("session {} was evicted by the limit of sessions per principal on the primary, "
            + "but {} of the {} required replica(s) acknowledged it within {}: a failover now "
            + "could bring it back", id, wait.acknowledged(), durability.replicas(),
            durability.timeout(), wait.failure());
      }
    } else if (!waited.isEmpty()) {
      durability.requireDeleted("deleteById", id, waited.get(0));
    }
    return true;
  }

  /**
   * A live session deleted by {@link #claimAndDelete}.
   *
   * @param claimed whether this call removed the id from the schedule
   */
  record Deleted(SessionMetadata metadata, boolean claimed) {}

  /**
   * Claims an id, then deletes its hash if the session is still live (deleteById). Returns null when
   * there was nothing live: an expired session is put back on the schedule, so that the sweep
   * reports it, once, as expired.
   */
  @Nullable Deleted claimAndDelete(String id) {
    Claim<ScriptReplies.DeletedHash> claim =
        claimThenDelete(id, now -> store.delete(id, now, false));
    return claim.deleted() == null ? null
        : new Deleted(claim.deleted().metadata(), claim.claimed());
  }

  /**
   * As {@link #claimAndDelete}, returning the whole deleted hash (changeSessionId carries it over to
   * the new id), taken where the session is now ({@link #renewedTo}); null when there was nothing
   * live. With durability, the delete is followed by WAIT on its primary (on a Cluster, maybe not
   * the new id's): the caller checks {@link Taken#waited} once the new id is written.
   */
  @Nullable Taken claimAndTake(String id) {
    return SessionRenaming.elsewhereToo(store.keys(), id, () -> whereItIs(id, at -> {
      List<ReplicaWait.Waited<?>> waited = new ArrayList<>(1);
      ScriptReplies.DeletedHash hash =
          claimThenDelete(at, now -> deleteHash(at, now, true, waited)).deleted();
      return hash == null ? null : new Taken(at, hash, waited.isEmpty() ? null : waited.get(0));
    }));
  }

  /** delete.lua; with durability, followed by WAIT on the session's primary, added to waited. */
  private ScriptReplies.@Nullable DeletedHash deleteHash(String id, long now, boolean all,
      List<ReplicaWait.Waited<?>> waited) {
    if (!durability.on()) {
      return store.delete(id, now, all);
    }
    ReplicaWait.Waited<ScriptReplies.@Nullable DeletedHash> wait =
        store.deleteAndWait(id, now, all, durability.replicas(), durability.timeout());
    waited.add(wait);
    return wait.result();
  }

  /**
   * A hash {@link #claimAndTake} took: {@code id} is where it was, the id asked for or, when that
   * was renewed meanwhile, the id the renewal moved it to ({@link #renewedTo}); {@code waited}, with
   * durability, how many replicas had its removal.
   */
  record Taken(String id, ScriptReplies.DeletedHash hash, ReplicaWait.@Nullable Waited<?> waited) {}

  /**
   * Claims {@code id}, then runs {@code step} (an id renewal's renew.lua): null from it means the
   * hash stayed, and a claimed id goes back on the schedule as after a delete that found nothing.
   */
  <T> @Nullable T claimThen(String id, LongFunction<@Nullable T> step) {
    return claimThenDelete(id, step).deleted();
  }

  private record Claim<T>(@Nullable T deleted, boolean claimed) {}

  /**
   * The claim-then-delete step every delete of a live session takes. A claimed id whose hash is
   * there but not live (expired) goes back on the schedule, so that the sweep reports it; one whose
   * hash is gone does not: another call deleted it (and reported it) or moved it.
   */
  private <T> Claim<T> claimThenDelete(String id, LongFunction<@Nullable T> delete) {
    long now = clock.millis();
    // Without a schedule nobody else reports the session: the delete is its own claim.
    boolean claimed = !scheduling || store.indexes().unscheduleExpiry(id, now);
    T deleted = delete.apply(now);
    nearCache.deleted(id); // a copy a racing read stores now is older than this delete
    if (deleted == null && claimed && scheduling && store.indexes().sessionExists(id)) {
      // Format 2: in the bucket of this minute, swept within the next one.
      store.indexes().scheduleExpiry(id, now);
    }
    return new Claim<>(deleted, claimed);
  }

  /**
   * Reports every session that is due; when several nodes sweep at once, each session is reported
   * by exactly one of them ({@link ExpirySweep}). Without expiry events, nothing (not even a look at
   * the schedule).
   *
   * @return how many sessions this call reported as expired
   */
  int sweepDue() {
    return scheduling ? sweep.sweepDue(clock) : 0;
  }

  /**
   * Claims an id of {@code ns:expirations} that looked expired and reports it, unless a save made it
   * live again meanwhile: the hash is deleted by a script that checks again, atomically, that it
   * has expired. A session found live again is put back on the schedule at its new due time, and
   * nothing is published.
   *
   * @return true when this call deleted and reported the session
   */
  boolean expireClaimed(String id, long now) {
    return sweep.expireClaimed(id, now, true);
  }

  /**
   * The part of {@link #expireClaimed} after this node won the claim on {@code id}, having found its
   * hash when it looked.
   */
  boolean expireAfterClaim(String id, long now) {
    return sweep.expireAfterClaim(id, now, true, true);
  }

  /**
   * The part of a sweep of the schedule of Redis format 2 after it took {@code id} off its bucket:
   * expire.lua alone decides whether this call reports it ({@link ExpirySweep}).
   */
  boolean expireTakenFromBucket(String id, long now) {
    return sweep.expireAfterClaim(id, now, false, false);
  }

  /**
   * The background sweep. Nothing may escape it: a scheduled task that throws is never run again, so
   * one failure (even an {@link Error} from a listener or a codec) would end expiry events for good.
   */
  private void sweepQuietly() {
    try {
      sweepDue();
      metrics.outage.available();
    } catch (VirtualMachineError e) {
      throw e;
    } catch (RedisException e) {
      // Redis unavailable: one line per outage (OutageLog), not one per sweep.
      SessionStoreException failure = metrics.outage.translate("expiry sweep", null, e);
      if (!(failure instanceof SessionStoreUnavailableException)) {
        log.warn("lazysession expiry sweep failed; it will run again: {}", failure.getMessage());
      }
    } catch (RuntimeException e) {
      log.warn("lazysession expiry sweep failed; it will run again: {}", e.toString());
    } catch (Throwable e) {
      log.error("lazysession expiry sweep failed; it will run again", e);
    }
  }

  /** Stops the background sweep. */
  @Override
  public void close() {
    if (thread != null) {
      thread.shutdownNow();
    }
  }
}
