package io.lazysession.redis;

import static io.lazysession.redis.RedisSessionStore.utf8;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The limit of live sessions per principal ({@link SessionLimit}, docs/session-policies.md):
 * admits each save that signs a session in, evicts or refuses as the limit says. Thread-safe.
 *
 * <p>Design note: the decision is principal-limit.lua's, on two keys of the principal's slot: the
 * principal set and the sign-in order (a sorted set beside it, {@link #orderKey}), so that it holds
 * for every node at once, also on a Cluster where the sessions live in other slots. The script
 * cannot read those sessions, so what is dead is found here: when a sign-in finds the principal at
 * its limit, the script answers the ids it holds, this class reads each one's metadata, and a
 * second call removes the dead ones and decides. An evicted session is deleted (claim-then-delete,
 * one {@code SessionDeletedEvent}) before the save that evicted it returns. A sign-in still being
 * written when another one evicts it is not there to delete yet: its own save, once written, finds
 * itself out of the order and deletes itself ({@link #save}). The script runs before anything of
 * the save is written, so a refusal writes nothing. An id change or renewal that was on its way
 * when its session was evicted is not a sign-in: the script keeps a tombstone of what it evicts for
 * as long as a sign-in counts as in flight, and such a move is answered as gone and writes nothing.
 * An id that leaves the principal set leaves the order at the next run, so a principal lookup never
 * removes an id admitted less than {@link #IN_FLIGHT} ago, whatever its hash holds yet
 * ({@link PrincipalIndex#find}).
 */
final class SessionLimiter {
  /**
   * How long an admitted id whose session cannot be read counts as live: the time between the
   * admission and the write of a sign-in (or, for {@link SessionLimitAuthenticationStrategy}, the
   * rest of the login request).
   */
  static final Duration IN_FLIGHT = Duration.ofMinutes(1);

  /** principal-limit.lua's ARGV[7]: a first attempt, a second one, a renewal's move. */
  private static final String FIRST = "1";
  private static final String CHECKED = "2";
  private static final String MOVE = "m";
  /** principal-limit.lua's answer when the id a move replaces was evicted a moment ago. */
  private static final long GONE = -2;

  private static final Logger log = LoggerFactory.getLogger(SessionLimiter.class);

  /** Null: no limit; every save is written as it is. */
  private final @Nullable SessionLimit limit;
  private final SessionConnection connection;
  private final RedisSessionStore store;
  private final ExpirySweeper expiry;
  private final PrincipalIndex principals;
  private final MetricsRecorder metrics;
  private final Clock clock;
  private final SessionPolicies policies;
  /** Test hook: runs once, after the next admission (of a sign-in or a renewal: before its write). */
  private final AtomicReference<@Nullable Runnable> onAdmitted = new AtomicReference<>();
  /** Test hook: runs once, between a first attempt's check of the ids and the second attempt. */
  private final AtomicReference<@Nullable Runnable> onChecked = new AtomicReference<>();

  SessionLimiter(@Nullable SessionLimit limit, SessionConnection connection,
      RedisSessionStore store, ExpirySweeper expiry, PrincipalIndex principals,
      MetricsRecorder metrics, Clock clock, SessionPolicies policies) {
    this.limit = limit;
    this.connection = connection;
    this.store = store;
    this.expiry = expiry;
    this.principals = principals;
    this.metrics = metrics;
    this.clock = clock;
    this.policies = policies;
  }

  /** Loads principal-limit.lua when there is a limit, so that no sign-in sends it whole. */
  static void loadScript(SessionConnection connection, @Nullable SessionLimit limit) {
    if (limit != null) {
      connection.commands().scriptLoad(RedisScript.PRINCIPAL_LIMIT.source());
    }
  }

  @Nullable SessionLimit limit() {
    return limit;
  }

  /**
   * Saves {@code session} by {@code write}; when the save signs it in (sets a principal, or moves
   * a signed-in session to a new id), admits it first and evicts what the limit says.
   *
   * @throws SessionLimitExceededException when the limit refuses the sign-in (nothing written)
   */
  void save(LazySession session, PrincipalChange principal,
      BiConsumer<LazySession, PrincipalChange> write) {
    String name = signingIn(session, principal);
    if (name == null) {
      write.accept(session, principal);
      return;
    }
    if (admitAndEvict(name, session.getId(), replaced(session),
        session.getMaxInactiveInterval())) {
      write.accept(session, principal);
      afterWrite(name, session.getId());
    }
  }

  /** As {@link #save}, for the reactive face: the limit's commands run on a worker thread. */
  Mono<Void> save(LazySession session, PrincipalChange principal,
      BiFunction<LazySession, PrincipalChange, Mono<Void>> write) {
    String name = signingIn(session, principal);
    if (name == null) {
      return write.apply(session, principal);
    }
    String id = session.getId();
    return Mono.fromCallable(() -> admitAndEvict(name, id, replaced(session),
            session.getMaxInactiveInterval()))
        .subscribeOn(Schedulers.boundedElastic())
        .flatMap(admitted -> admitted ? write.apply(session, principal)
            .then(Mono.<Void>fromRunnable(() -> afterWrite(name, id))
                .subscribeOn(Schedulers.boundedElastic())) : Mono.empty());
  }

  /**
   * Admits session {@code id} among the sessions of {@code principal} (a sign-in about to be
   * saved) and deletes the sessions it evicts.
   *
   * @return false when {@code id} replaces an id that was evicted (or found dead) a moment ago:
   *     the session is gone, and its save must write nothing
   * @throws SessionLimitExceededException when the limit refuses it
   */
  boolean admitAndEvict(String principal, String id, @Nullable String replaced,
      Duration maxInactive) {
    List<String> evicted = admit(principal, id, replaced, maxInactive);
    if (evicted == null) {
      log.debug("session {} of {} was evicted while its id changed; its save writes nothing",
          replaced, principal);
      return false;
    }
    for (String session : evicted) {
      if (signedInAsAnother(principal, session)) {
        // Only a writer of Redis puts another principal's session in this one's order or
        // admissions: that session is not this principal's to evict.
        log.warn("session limit of {}: an id in its sign-in order belongs to a session of another "
            + "principal; it is not evicted (its order or admissions were written outside "
            + "lazysession)", principal);
        continue;
      }
      expiry.evict(session);
    }
    runOnce(onAdmitted);
    return true;
  }

  /** Whether session {@code id} exists signed in as another principal than {@code principal}. */
  private boolean signedInAsAnother(String principal, String id) {
    String stored = store.metadata(id).principal();
    return stored != null && !stored.equals(principal);
  }

  /**
   * The principal a save signs the session in as: a principal set, or a signed-in session's new
   * id; null when neither (nothing to admit), or when there is no limit.
   */
  @Nullable String signingIn(LazySession session, PrincipalChange principal) {
    if (limit == null) {
      return null;
    }
    if (principal instanceof PrincipalChange.SetTo set) {
      return set.name();
    }
    boolean idChanged = !session.isNew() && !session.getId().equals(session.storedId());
    return principal instanceof PrincipalChange.Unchanged && idChanged
        ? session.storedPrincipal() : null;
  }

  /**
   * The id a save of {@code session} moves it from (null: it moves nowhere): where the session is
   * now, which, when another request renewed its id since this one loaded it, is the renewed id
   * (the id change moves that one: {@link ExpirySweeper#claimAndTake}), so that it keeps the
   * session's sign-in time and is not counted as another session of its own.
   */
  private @Nullable String replaced(LazySession session) {
    if (session.isNew() || session.getId().equals(session.storedId())) {
      return null;
    }
    String current = session.storedId();
    for (int hops = 0; hops < SessionReader.ALIAS_HOPS; hops++) {
      String renewed = expiry.renewedTo(current);
      if (renewed == null) {
        break;
      }
      current = renewed;
    }
    return current;
  }

  /**
   * With evict-oldest, after the write: a session evicted while it was being written (after its
   * admission, before its hash existed) was not there for the evicting node to delete, so it
   * deletes itself, reported like any eviction. It is out of the order, or back in it at 0: its
   * writer's index entry may have come after the eviction, and another sign-in's script joins set
   * members to the order at 0, which no admission writes (principal-limit.lua). That other sign-in
   * then drops it without deleting it (it found no hash, and 0 is older than the in-flight time).
   */
  private void afterWrite(String principal, String id) {
    if (limit != null && limit.action() == SessionLimit.Action.EVICT_OLDEST) {
      metrics.roundTrips.increment();
      Double score = connection.commands().zscore(orderKey(principal, id), keys().member(id));
      if (score == null || score < 1) {
        expiry.evict(id);
      }
    }
  }

  /**
   * Runs principal-limit.lua: once, and when the principal is at its limit, again with the ids it
   * holds that are dead. Returns the evicted ids; null, with nothing admitted, when {@code
   * replaced} was evicted or found dead less than {@link #IN_FLIGHT} ago (a move from it that was
   * on its way when it went: not a sign-in, a session that is gone).
   *
   * @throws SessionLimitExceededException when the limit refuses the sign-in
   */
  @Nullable List<String> admit(String principal, String id, @Nullable String replaced,
      Duration maxInactive) {
    List<Object> reply = run(principal, id, replaced, maxInactive, FIRST, null);
    if (code(reply) == 0) {
      Checked checked = checked(principal, id, replaced, reply);
      runOnce(onChecked);
      reply = run(principal, id, replaced, maxInactive, CHECKED, checked);
    }
    long code = code(reply);
    if (code == GONE) {
      return null;
    }
    if (code == -1) {
      throw new SessionLimitExceededException(principal, required().maxSessions());
    }
    List<String> evicted = new ArrayList<>();
    if (code == 2) {
      for (int i = 1; i < reply.size(); i++) {
        String member = keys().idOf((byte[]) reply.get(i));
        if (member != null) {
          evicted.add(member);
        }
      }
    }
    return evicted;
  }

  /**
   * An id renewal ({@link IdRenewal}) of a signed-in session, before its copy is written: its new
   * id {@code id} takes the sign-in time of {@code replaced} in the order (both stay there until
   * the set has only one of them). Never evicts nor refuses: a renewal is no sign-in. Nothing
   * without a limit.
   *
   * @return false when {@code replaced} was evicted (or found dead) a moment ago: the session is
   *     gone, nothing was moved, and the renewal must write nothing
   */
  boolean move(String principal, String id, String replaced, Duration maxInactive) {
    if (limit == null) {
      return true;
    }
    if (code(run(principal, id, replaced, maxInactive, MOVE, null)) == GONE) {
      return false;
    }
    runOnce(onAdmitted);
    return true;
  }

  /**
   * The members of a first answer sorted into dead ones and ones not found live (members that open
   * to no id: not found).
   */
  private Checked checked(String principal, String id, @Nullable String replaced,
      List<Object> reply) {
    List<byte[]> dead = new ArrayList<>();
    List<byte[]> notFound = new ArrayList<>();
    long now = clock.millis();
    for (int i = 1; i + 1 < reply.size(); i += 2) {
      byte[] member = (byte[]) reply.get(i);
      String memberId = keys().idOf(member);
      if (memberId == null || !SessionKeys.isPlausibleId(memberId)) {
        notFound.add(member);
        continue;
      }
      if (memberId.equals(id) || memberId.equals(replaced)) {
        continue;
      }
      SessionMetadata metadata = store.metadata(memberId);
      if (metadata.lastAccess() == null || metadata.maxInactiveSeconds() == null) {
        notFound.add(member); // no hash: deleted, or a sign-in being written
      } else if ((metadata.expires() && metadata.dueMillis() <= now) || (metadata.creation() != null
          && policies.pastDeadline(Instant.ofEpochMilli(metadata.creation()),
              Instant.ofEpochMilli(now)))) {
        dead.add(member);
      } else if (!principal.equals(metadata.principal())) {
        notFound.add(member);
      }
    }
    return new Checked(dead, notFound);
  }

  /** Members (as stored: sealed under keyed names) of dead sessions and of ones not found live. */
  private record Checked(List<byte[]> dead, List<byte[]> notFound) {}

  /**
   * Runs principal-limit.lua on the set {@code id} is indexed in, ids as they stand in members
   * ({@link SessionKeys#member}: sealed under keyed names, so that no id is sent in clear).
   */
  private List<Object> run(String principal, String id, @Nullable String replaced,
      Duration maxInactive, String attempt, @Nullable Checked checked) {
    Long setTtl = principals.setTtl(maxInactive);
    long orderTtl = maxInactive.isNegative() ? -1
        : 2 * maxInactive.toMillis() + principals.expiryGrace().toMillis();
    List<byte[]> arguments = new ArrayList<>(Arrays.asList(keys().member(id),
        replaced == null ? new byte[0] : keys().member(replaced),
        utf8(Integer.toString(required().maxSessions())),
        utf8(required().action() == SessionLimit.Action.REFUSE_NEW ? "r" : "e"),
        utf8(setTtl == null ? "" : setTtl.toString()), utf8(Long.toString(orderTtl)),
        utf8(attempt), utf8(Long.toString(IN_FLIGHT.toMillis())),
        utf8(Integer.toString(checked == null ? 0 : checked.dead().size()))));
    if (checked != null) {
      arguments.addAll(checked.dead());
      arguments.addAll(checked.notFound());
    }
    byte[] set = keys().principal(principal, id);
    byte[][] keys = {set, orderKey(set), admissionsKey(set)};
    List<Object> reply = store.eval(connection.commands(), RedisScript.PRINCIPAL_LIMIT,
        ScriptOutputType.MULTI, keys, arguments.toArray(new byte[0][]));
    return reply == null ? List.of() : reply;
  }

  private static long code(List<Object> reply) {
    return reply.isEmpty() || !(reply.get(0) instanceof Long code) ? 1 : code;
  }

  private byte[] orderKey(String principal, String id) {
    return orderKey(keys().principal(principal, id));
  }

  private SessionKeys keys() {
    return store.keys();
  }

  /** The key of a principal's sign-in order, beside its set {@code set} ({@link #besideSet}). */
  static byte[] orderKey(byte[] set) {
    return besideSet(set, "order");
  }

  /**
   * The key of a principal's recent admissions (ids admitted less than {@link #IN_FLIGHT} ago),
   * beside its set {@code set} ({@link #besideSet}).
   */
  static byte[] admissionsKey(byte[] set) {
    return besideSet(set, "admitted");
  }

  /**
   * A key named {@code suffix} in the slot of the principal set {@code set}, which has no hash tag
   * of its own unless the principal name has one: {@code {<set>}:<suffix>} when that is the same
   * slot, {@code <set>:<suffix>} when the set has a tag, else {@code <set>:<suffix>:{<n>}} with the
   * first {@code n} that hashes alike. Each form starts with the namespace or {@code {} and the
   * namespace, which is what an ACL's key patterns name (docs/security.md).
   */
  private static byte[] besideSet(byte[] set, String suffix) {
    int slot = SlotHash.getSlot(set);
    String name = new String(set, UTF_8);
    for (String candidate : List.of("{" + name + "}:" + suffix, name + ":" + suffix)) {
      if (SlotHash.getSlot(utf8(candidate)) == slot) {
        return utf8(candidate);
      }
    }
    for (int tag = 0; ; tag++) {
      byte[] candidate = utf8(name + ":" + suffix + ":{" + tag + "}");
      if (SlotHash.getSlot(candidate) == slot) {
        return candidate;
      }
    }
  }

  /** Test hook: {@code hook} runs once, on the next sign-in or renewal, after its admission. */
  void onAdmitted(Runnable hook) {
    onAdmitted.set(hook);
  }

  /** Test hook: {@code hook} runs once, after the next check of a first attempt's ids. */
  void onChecked(Runnable hook) {
    onChecked.set(hook);
  }

  private static void runOnce(AtomicReference<@Nullable Runnable> hook) {
    Runnable action = hook.getAndSet(null);
    if (action != null) {
      action.run();
    }
  }

  private SessionLimit required() {
    return Objects.requireNonNull(limit);
  }
}
