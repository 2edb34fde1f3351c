package io.lazysession.redis;

import static io.lazysession.redis.RedisSessionStore.utf8;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassNotAllowedException;
import io.lazysession.serializer.SerializationException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.MapSession;
import org.springframework.session.PrincipalNameIndexResolver;
import org.springframework.session.SessionIdGenerator;
import org.springframework.session.UuidSessionIdGenerator;
import org.springframework.session.events.SessionCreatedEvent;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * A Spring Session repository that keeps each session in one Redis hash, with attributes that stay
 * encoded until read and are written back as deltas.
 *
 * <pre>{@code
 * LazyRedisSessionRepository sessions = LazyRedisSessionRepository.builder(RedisClient.create(uri))
 *     .serializer(AttributeSerializer.builder().allowList(allowList).build())
 *     .defaultMaxInactiveInterval(Duration.ofMinutes(30))
 *     .eventPublisher(applicationContext)
 *     .build();
 * }</pre>
 *
 * <p>Each {@link #findById} is one script call; each {@link #save} that changes attributes is one
 * atomic script call (creating a session, changing its id, its principal or its timeout costs one or
 * two commands more); a read-only request whose last-access time is not yet due for a touch sends
 * nothing. Concurrent requests that change different attributes of one session all keep their
 * changes; for one attribute, the last write wins.
 *
 * <p>Expiry: Redis drops a hash by TTL (max inactive interval + grace); each repository also sweeps a
 * per-namespace schedule every {@linkplain Builder#cleanupInterval cleanup interval} and publishes one
 * {@link SessionExpiredEvent} per expired session across all nodes. The events carry a
 * {@link MapSession} with the id, creation time, last access time and max inactive interval, and no
 * attributes. No Redis configuration (keyspace notifications) is needed.
 *
 * <p>Topologies: standalone or Sentinel-managed Redis through a {@link RedisClient} (Lettuce
 * re-resolves the primary through the Sentinels after a failover), or a Redis Cluster through a
 * {@link RedisClusterClient}; the same scripts and keys on each.
 *
 * <p>Failures: every method that talks to Redis throws {@link SessionStoreUnavailableException} when
 * Redis cannot be reached or does not answer within the client's command timeout, and
 * {@link SessionStoreException} for other error answers; {@link SessionNotReplicatedException} when
 * {@linkplain Builder#durability durability} is on and too few replicas acknowledged a save. A failed
 * save drops the session from the near cache. For requests to fail fast rather than queue while Redis
 * is down, give the client {@code ClientOptions} with {@code REJECT_COMMANDS}, a bounded request
 * queue and {@code TimeoutOptions} (the Spring configurations do).
 *
 * <p>Thread-safe: build one per application and share it; {@link #close()} when done. The client is
 * not closed by this repository.
 */
public final class LazyRedisSessionRepository
    implements FindByIndexNameSessionRepository<LazySession>, AutoCloseable {
  /** Default {@link Builder#namespace}. */
  public static final String DEFAULT_NAMESPACE = "lazysession";
  /** Default {@link Builder#defaultMaxInactiveInterval}, as in Spring Session. */
  public static final Duration DEFAULT_MAX_INACTIVE_INTERVAL = Duration.ofMinutes(30);
  /** Default {@link Builder#expiryGrace}. */
  public static final Duration DEFAULT_EXPIRY_GRACE = Duration.ofMinutes(5);
  /** Default {@link Builder#cleanupInterval}. */
  public static final Duration DEFAULT_CLEANUP_INTERVAL = Duration.ofSeconds(10);
  /** Default {@link Builder#nearCacheMaxBytes}: 64 MB. */
  public static final long DEFAULT_NEAR_CACHE_MAX_BYTES = 64L * 1024 * 1024;
  /** Default timeout of {@link Builder#durability}. */
  public static final Duration DEFAULT_DURABILITY_TIMEOUT = Duration.ofSeconds(1);
  /** The longest default {@link Builder#touchInterval}. */
  public static final Duration MAX_DEFAULT_TOUCH_INTERVAL = Duration.ofSeconds(60);

  private static final Logger log = LoggerFactory.getLogger(LazyRedisSessionRepository.class);
  private static final int MAX_ID_LENGTH = 256;
  private static final int SWEEP_BATCH = 200;
  private static final int SWEEP_MAX_BATCHES = 50;

  private final AttributeSerializer serializer;
  private final SessionConnection connection;
  private final RedisSessionStore store;
  private final Duration defaultMaxInactiveInterval;
  private final Duration touchInterval;
  private final @Nullable Duration configuredTouchInterval;
  private final Duration expiryGrace;
  private final DecodeFailurePolicy decodeFailurePolicy;
  private final @Nullable ApplicationEventPublisher eventPublisher;
  private final Clock clock;
  private final SessionIdGenerator idGenerator;
  private final MetricsRecorder metrics = new MetricsRecorder();
  private final NearCache nearCache;
  private final int durabilityReplicas;
  private final Duration durabilityTimeout;
  private final PrincipalNameIndexResolver<LazySession> principalResolver =
      new PrincipalNameIndexResolver<>();
  private final @Nullable ScheduledExecutorService sweeper;

  private LazyRedisSessionRepository(Builder builder, SessionConnection connection,
      NearCache nearCache) {
    this.serializer = Objects.requireNonNull(builder.serializer);
    this.connection = connection;
    this.defaultMaxInactiveInterval = builder.defaultMaxInactiveInterval;
    this.configuredTouchInterval = builder.touchInterval;
    this.touchInterval = touchIntervalFor(configuredTouchInterval, defaultMaxInactiveInterval);
    this.expiryGrace = builder.expiryGrace;
    this.decodeFailurePolicy = builder.decodeFailurePolicy;
    this.eventPublisher = builder.eventPublisher;
    this.clock = builder.clock;
    this.idGenerator = builder.idGenerator;
    this.nearCache = nearCache;
    this.durabilityReplicas = builder.durabilityReplicas;
    this.durabilityTimeout = builder.durabilityTimeout;
    this.store = new RedisSessionStore(connection, new SessionKeys(builder.namespace), metrics);
    store.loadScripts();
    if (builder.cleanupInterval.isZero()) {
      this.sweeper = null;
    } else {
      this.sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "lazysession-expiry-" + builder.namespace);
        thread.setDaemon(true);
        return thread;
      });
      long period = builder.cleanupInterval.toMillis();
      // Jitter, so that nodes started together do not sweep in lockstep.
      long initialDelay = period / 2 + ThreadLocalRandom.current().nextLong(period / 2 + 1);
      sweeper.scheduleWithFixedDelay(this::sweepQuietly, initialDelay, period,
          TimeUnit.MILLISECONDS);
    }
  }

  /**
   * A builder for a repository on the Redis that {@code client} connects to by default (standalone,
   * or Sentinel-managed when the client's URI names sentinels).
   */
  public static Builder builder(RedisClient client) {
    Objects.requireNonNull(client, "client must not be null");
    return new Builder((durable, onReset) -> SessionConnection.connect(client, durable, onReset));
  }

  /**
   * A builder for a repository on a Redis Cluster. Give the client {@code ClusterClientOptions} with
   * adaptive and periodic topology refresh, so that a failover is seen within seconds.
   */
  public static Builder builder(RedisClusterClient client) {
    Objects.requireNonNull(client, "client must not be null");
    return new Builder((durable, onReset) -> SessionConnection.connect(client, durable, onReset));
  }

  static Duration defaultTouchInterval(Duration maxInactive) {
    if (maxInactive.isNegative() || maxInactive.isZero()) {
      return MAX_DEFAULT_TOUCH_INTERVAL;
    }
    Duration onePercent = maxInactive.dividedBy(100);
    return onePercent.compareTo(MAX_DEFAULT_TOUCH_INTERVAL) > 0
        ? MAX_DEFAULT_TOUCH_INTERVAL : onePercent;
  }

  /**
   * The touch interval of a session with {@code maxInactive}: without a configured one, 1% of the
   * session's own timeout, at most 60 s; a configured one is capped at a tenth of the session's
   * timeout, so that a session with a shorter timeout of its own is still touched by read-only
   * requests well before it expires.
   */
  static Duration touchIntervalFor(@Nullable Duration configured, Duration maxInactive) {
    if (configured == null) {
      return defaultTouchInterval(maxInactive);
    }
    if (maxInactive.isNegative() || maxInactive.isZero()) {
      return configured;
    }
    Duration cap = maxInactive.dividedBy(10);
    return configured.compareTo(cap) > 0 ? cap : configured;
  }

  // ---- SessionRepository ------------------------------------------------------------------------

  @Override
  public LazySession createSession() {
    LazySession session = new LazySession(this, newSessionId(), now(), defaultMaxInactiveInterval);
    CurrentRequest.expose(session);
    return session;
  }

  /**
   * Loads a session in one round trip. Returns null when it does not exist, has expired, or is
   * incomplete in Redis. Attributes are not decoded here.
   */
  @Override
  public @Nullable LazySession findById(String id) {
    if (!isPlausibleId(id)) {
      return null;
    }
    long epoch = nearCache.epoch();
    NearCache.Snapshot cached = nearCache.get(id);
    List<byte[]> fields;
    try {
      fields = store.find(id, cached == null ? null : Long.toString(cached.version()));
    } catch (RedisException e) {
      throw StoreFailures.translate("findById", id, e);
    }
    metrics.loads.increment();
    StoredSession stored = fields == null ? null : StoredSession.parse(fields, cached);
    if (stored == null) {
      nearCache.invalidate(id); // missing, or a hash without complete metadata
      return null;
    }
    if (stored.unchanged()) {
      metrics.nearCacheHits.increment();
    } else if (nearCache.enabled()) {
      nearCache.put(id, new NearCache.Snapshot(stored.version(), stored.creation(),
          Collections.unmodifiableMap(stored.attributes()), epoch));
    }
    LazySession session = new LazySession(this, id, Instant.ofEpochMilli(stored.creation()),
        Instant.ofEpochMilli(stored.lastAccess()), Duration.ofSeconds(stored.maxInactiveSeconds()),
        stored.version(), stored.principal());
    session.nearCacheEpoch = epoch;
    if (session.isExpired(now())) {
      return null;
    }
    stored.attributes().forEach((name, bytes) -> session.loaded(name, serializer.lazy(bytes), bytes));
    CurrentRequest.exposeIfAbsent(session);
    return session;
  }

  /**
   * Writes what changed. With {@linkplain Builder#durability durability} on, waits for the replicas.
   *
   * @throws SessionStoreUnavailableException when Redis cannot be reached in time (whether the change
   *     was applied is then unknown)
   * @throws SessionNotReplicatedException when the primary applied the change but too few replicas
   *     acknowledged it in time
   */
  @Override
  public void save(LazySession session) {
    Objects.requireNonNull(session, "session must not be null");
    // First, because resolving the principal may decode attributes, and a decode failure may drop
    // one or invalidate the session: what is written below must already reflect that.
    String principalOp = session.invalidated() ? "" : principalOperation(session);
    countInflation(session);
    if (session.invalidated()) {
      if (!session.isNew()) {
        deleteById(session.storedId());
      }
      return;
    }
    String id = session.getId();
    String storedId = session.storedId();
    try {
      if (session.isNew()) {
        writeFull(session, false, principalOp);
      } else if (!id.equals(storedId)) {
        changeId(session, principalOp);
      } else {
        writeChanges(session, principalOp);
      }
    } catch (RedisException e) {
      nearCache.invalidate(id);
      nearCache.invalidate(storedId);
      throw StoreFailures.translate("save", id, e);
    }
  }

  /**
   * Deletes a live session and publishes a {@link SessionDeletedEvent}. A session that has already
   * expired is left to the expiry sweep, which reports it once as expired.
   */
  @Override
  public void deleteById(String id) {
    if (!isPlausibleId(id)) {
      return;
    }
    nearCache.invalidate(id);
    List<byte[]> meta;
    try {
      long now = clock.millis();
      // Claim first, as the sweep does: of a delete and a sweep racing on one id, only the one whose
      // ZREM removed it reports the session, so it is never reported twice.
      boolean claimed = store.unscheduleExpiry(id);
      meta = store.delete(id, now);
      if (meta == null) {
        if (claimed) {
          store.scheduleExpiry(id, now); // expired or gone: the sweep reports it, as expired
        }
        return;
      }
      String principal = text(meta.get(3));
      if (principal != null) {
        store.removeFromPrincipal(principal, id);
      }
      Long maxInactive = number(meta.get(2));
      if (!claimed && maxInactive != null && maxInactive >= 0) {
        // A sweep claimed the id first; it finds the hash gone and reports the session once.
        metrics.sessionsDeleted.increment();
        return;
      }
    } catch (RedisException e) {
      throw StoreFailures.translate("deleteById", id, e);
    }
    metrics.sessionsDeleted.increment();
    publish(new SessionDeletedEvent(this, destroyedSession(id, meta)));
  }

  /**
   * Sessions by principal name (index {@link #PRINCIPAL_NAME_INDEX_NAME}); other index names find
   * nothing. Index entries of sessions that are gone are removed on the way.
   */
  @Override
  public Map<String, LazySession> findByIndexNameAndIndexValue(String indexName, String indexValue) {
    if (!PRINCIPAL_NAME_INDEX_NAME.equals(indexName)) {
      return Collections.emptyMap();
    }
    Map<String, LazySession> sessions = new LinkedHashMap<>();
    try {
      for (String id : store.principalSessions(indexValue)) {
        LazySession session = findById(id);
        if (session == null) {
          store.removeFromPrincipal(indexValue, id);
        } else {
          sessions.put(id, session);
        }
      }
    } catch (RedisException e) {
      throw StoreFailures.translate("findByIndexNameAndIndexValue", null, e);
    }
    return sessions;
  }

  // ---- expiry -----------------------------------------------------------------------------------

  /**
   * Finds the sessions that are due to expire, removes them and publishes one
   * {@link SessionExpiredEvent} for each; when several nodes sweep at once, each session is reported
   * by exactly one of them. Runs on a background thread every cleanup interval; public so that it can
   * also be driven explicitly (tests, schedulers of your own).
   *
   * @return how many sessions this call reported as expired
   * @throws SessionStoreUnavailableException when Redis cannot be reached in time
   */
  public int cleanUpExpiredSessions() {
    try {
      return sweepDue();
    } catch (RedisException e) {
      throw StoreFailures.translate("cleanUpExpiredSessions", null, e);
    }
  }

  private int sweepDue() {
    int expired = 0;
    for (int batch = 0; batch < SWEEP_MAX_BATCHES; batch++) {
      long now = clock.millis();
      List<String> due = store.dueForExpiry(now, SWEEP_BATCH);
      for (String id : due) {
        if (sweep(id, now)) {
          expired++;
        }
      }
      if (due.size() < SWEEP_BATCH) {
        break;
      }
    }
    return expired;
  }

  /** Checks one scheduled id; true when this node claimed and reported it as expired. */
  private boolean sweep(String id, long now) {
    List<byte @Nullable []> meta = store.metadata(id);
    Long lastAccess = number(meta.get(1));
    Long maxInactive = number(meta.get(2));
    boolean gone = lastAccess == null || maxInactive == null;
    if (!gone && maxInactive < 0) {
      store.unscheduleExpiry(id); // never expires any more
      return false;
    }
    if (!gone && dueMillis(lastAccess, maxInactive) > now) {
      store.rescheduleExpiry(id, dueMillis(lastAccess, maxInactive)); // touched since scheduled
      return false;
    }
    return expireClaimed(id, now);
  }

  /**
   * Claims an id that looked expired and reports it, unless a save made it live again meanwhile.
   * Whoever removes the id from the schedule goes on, once; the hash is then deleted by a script that
   * checks again, atomically, that it has expired. A session found live again (another node saved it
   * between the first look and the claim) is put back on the schedule at its new due time, and
   * nothing is published.
   *
   * @return true when this call deleted and reported the session
   */
  boolean expireClaimed(String id, long now) {
    nearCache.invalidate(id);
    if (!store.unscheduleExpiry(id)) {
      return false;
    }
    return expireAfterClaim(id, now);
  }

  /** The part of {@link #expireClaimed} after this node won the claim on {@code id}. */
  boolean expireAfterClaim(String id, long now) {
    List<byte @Nullable []> answer = store.expire(id, now);
    String outcome = answer.isEmpty() ? "gone" : text(answer.get(0));
    if ("never".equals(outcome)) {
      return false;
    }
    if ("live".equals(outcome)) {
      Long lastAccess = number(answer.get(1));
      Long maxInactive = number(answer.get(2));
      if (lastAccess != null && maxInactive != null) {
        store.scheduleExpiry(id, dueMillis(lastAccess, maxInactive));
      }
      return false;
    }
    List<byte @Nullable []> meta = new ArrayList<>(4);
    for (int i = 1; i <= 4; i++) {
      meta.add(i < answer.size() ? answer.get(i) : null);
    }
    String principal = text(meta.get(3));
    if (principal != null) {
      store.removeFromPrincipal(principal, id);
    }
    metrics.sessionsExpired.increment();
    publish(new SessionExpiredEvent(this, destroyedSession(id, meta)));
    return true;
  }

  /**
   * The background sweep. Nothing may escape it: a scheduled task that throws is never run again, so
   * one failure (even an {@link Error} from a listener or a codec) would end expiry events for good.
   */
  private void sweepQuietly() {
    try {
      cleanUpExpiredSessions();
    } catch (VirtualMachineError e) {
      throw e;
    } catch (RuntimeException e) {
      log.warn("lazysession expiry sweep failed; it will run again: {}", e.toString());
    } catch (Throwable e) {
      log.error("lazysession expiry sweep failed; it will run again", e);
    }
  }

  // ---- writing ----------------------------------------------------------------------------------

  private void writeChanges(LazySession session, String principalOp) {
    Map<String, byte[]> writes = new LinkedHashMap<>();
    session.entries().forEach((name, entry) -> {
      byte[] bytes = LazySession.changedBytes(entry);
      if (bytes != null) {
        writes.put(name, bytes);
      }
    });
    List<String> removes = new ArrayList<>(session.removedNames());
    boolean timeoutChanged =
        !session.getMaxInactiveInterval().equals(session.storedMaxInactiveInterval());
    Duration sessionTouchInterval =
        touchIntervalFor(configuredTouchInterval, session.getMaxInactiveInterval());
    boolean touchDue = !session.getLastAccessedTime()
        .isBefore(session.storedLastAccessedTime().plus(sessionTouchInterval))
        && session.getLastAccessedTime().isAfter(session.storedLastAccessedTime());
    if (writes.isEmpty() && removes.isEmpty() && principalOp.isEmpty() && !timeoutChanged
        && !touchDue) {
      metrics.savesSkipped.increment();
      return;
    }
    long epoch = nearCache.epoch();
    RedisSessionStore.SaveResult result = write(session.getId(),
        saveArguments("u", session, principalOp, timeoutChanged, writes, removes));
    long version = result.version();
    if (version <= 0) {
      // Deleted or expired since it was loaded: writing would resurrect a partial session.
      log.debug("session {} was deleted or expired meanwhile; not saved", session.getId());
      nearCache.invalidate(session.getId());
      metrics.savesSkipped.increment();
      return;
    }
    metrics.saves.increment();
    String oldPrincipal = session.storedPrincipal();
    String newPrincipal = resolvedPrincipal(principalOp, oldPrincipal);
    long loadedVersion = session.version();
    boolean sameEpoch = session.nearCacheEpoch == epoch;
    session.committed(version, writes, removes, false, newPrincipal);
    session.nearCacheEpoch = epoch;
    if (version == loadedVersion + 1 && sameEpoch && replicated(result)) {
      cache(session, epoch); // nobody wrote in between: this copy is exactly what Redis holds
    } else {
      nearCache.invalidate(session.getId());
    }
    if (timeoutChanged) {
      scheduleExpiry(session);
    }
    if (!principalOp.isEmpty()) {
      movePrincipal(session.getId(), oldPrincipal, session.getId(), newPrincipal);
    }
    requireReplicated(session.getId(), result);
  }

  /** The save script, followed by WAIT when durability is on. */
  private RedisSessionStore.SaveResult write(String id, List<byte[]> arguments) {
    if (durabilityReplicas == 0) {
      return new RedisSessionStore.SaveResult(store.save(id, arguments), -1);
    }
    return store.saveAndWait(id, arguments, durabilityReplicas, durabilityTimeout);
  }

  private boolean replicated(RedisSessionStore.SaveResult result) {
    return result.acknowledged() < 0 || result.acknowledged() >= durabilityReplicas;
  }

  /** Throws, after the store's own bookkeeping is done, when too few replicas acknowledged. */
  private void requireReplicated(String id, RedisSessionStore.SaveResult result) {
    if (!replicated(result)) {
      throw new SessionNotReplicatedException("save", id, durabilityReplicas,
          result.acknowledged());
    }
  }

  /**
   * Writes every field of the session under its current id: a new session, or one whose id changed.
   */
  private void writeFull(LazySession session, boolean idChanged, String resolvedPrincipalOp) {
    Map<String, byte[]> writes = new LinkedHashMap<>();
    session.entries().forEach((name, entry) -> writes.put(name, LazySession.fullBytes(entry)));
    writes.putAll(session.hiddenAttributes()); // moved to a new id as they are, never re-encoded
    String principalOp = resolvedPrincipalOp;
    String oldPrincipal = session.storedPrincipal();
    String newPrincipal = resolvedPrincipal(principalOp, oldPrincipal);
    if (principalOp.isEmpty() && newPrincipal != null) {
      principalOp = "=" + newPrincipal; // a full write states the principal explicitly
    }
    // Index entries first: a hash that exists is always on the schedule and in its principal set,
    // even if the connection drops right after the script ran (an entry without its hash is
    // harmless: the sweep and findByPrincipalName clean it up).
    String id = session.getId();
    scheduleExpiry(id, session.getLastAccessedTime(), session.getMaxInactiveInterval());
    boolean principalAdded = newPrincipal != null && store.addToPrincipal(newPrincipal, id);
    long epoch = nearCache.epoch();
    RedisSessionStore.SaveResult result = write(id,
        saveArguments("n", session, principalOp, true, writes, List.of()));
    long version = result.version();
    if (version < 0) {
      if (principalAdded) {
        store.removeFromPrincipal(newPrincipal, id); // not ours: the id belongs to another session
      }
      throw new IllegalStateException("a session with the new id already exists in Redis; "
          + "the session id generator produced a duplicate");
    }
    // 0: an earlier attempt of this very write was applied and other writes followed it.
    boolean writtenSince = version == 0;
    metrics.saves.increment();
    String oldId = session.storedId();
    session.committed(version, writes, List.of(), true, newPrincipal);
    session.nearCacheEpoch = epoch;
    if (!writtenSince && replicated(result)) {
      cache(session, epoch);
    } else {
      nearCache.invalidate(id);
    }
    if (idChanged && oldPrincipal != null) {
      store.removeFromPrincipal(oldPrincipal, oldId);
    }
    if (!idChanged) {
      publish(new SessionCreatedEvent(this, session));
    }
    if (!writtenSince) {
      requireReplicated(id, result);
    }
  }

  /**
   * Moves a stored session to its new id. Cluster-safe (the two keys may be in different slots):
   * first the old hash is deleted if it is still live (so the old id stops working even if the second
   * step fails, and a session that expired meanwhile is not brought back), then the whole session is
   * written under the new id. If the second step fails, the session is lost (the user signs in
   * again) rather than left reachable under the old id.
   */
  private void changeId(LazySession session, String principalOp) {
    String oldId = session.storedId();
    nearCache.invalidate(oldId);
    long now = clock.millis();
    // Claim the old id first (as deleteById does), so that no sweep reports it as expired once its
    // hash is gone: the session lives on under the new id.
    boolean claimed = store.unscheduleExpiry(oldId);
    List<byte[]> deleted = store.delete(oldId, now);
    if (deleted == null) {
      if (claimed) {
        store.scheduleExpiry(oldId, now); // expired or gone: left for the sweep
      }
      log.debug("session {} was deleted or expired before its id changed; not saved", oldId);
      metrics.savesSkipped.increment();
      return;
    }
    writeFull(session, true, principalOp);
  }

  /**
   * The save script's arguments. The max inactive interval is sent only when {@code withTimeout}
   * (created, or changed by this request): otherwise the script keeps the stored one, which another
   * node may have changed since this request loaded the session.
   */
  private List<byte[]> saveArguments(String mode, LazySession session, String principalOp,
      boolean withTimeout, Map<String, byte[]> writes, List<String> removes) {
    List<byte[]> arguments = new ArrayList<>(8 + writes.size() * 2 + removes.size());
    arguments.add(utf8(mode));
    arguments.add(utf8(Long.toString(clock.millis())));
    arguments.add(utf8(Long.toString(session.getCreationTime().toEpochMilli())));
    arguments.add(utf8(Long.toString(session.getLastAccessedTime().toEpochMilli())));
    arguments.add(withTimeout
        ? utf8(Long.toString(maxInactiveSeconds(session.getMaxInactiveInterval()))) : new byte[0]);
    arguments.add(utf8(Long.toString(expiryGrace.toMillis())));
    arguments.add(utf8(principalOp));
    arguments.add(utf8(Integer.toString(writes.size())));
    writes.forEach((name, bytes) -> {
      arguments.add(utf8(SessionKeys.attributeField(name)));
      arguments.add(bytes);
    });
    for (String name : removes) {
      arguments.add(utf8(SessionKeys.attributeField(name)));
    }
    return arguments;
  }

  /** '' when the principal is unchanged, '-' when it is gone, '=name' when it is (now) name. */
  private String principalOperation(LazySession session) {
    if (!session.principalMayHaveChanged()) {
      return "";
    }
    String principal;
    try {
      principal = principalResolver.resolveIndexValueFor(session);
    } catch (RuntimeException e) {
      log.warn("cannot resolve the principal name of session {}: {}", session.getId(), e.toString());
      return "";
    }
    if (Objects.equals(principal, session.storedPrincipal())) {
      return "";
    }
    return principal == null ? "-" : "=" + principal;
  }

  private static @Nullable String resolvedPrincipal(String principalOp,
      @Nullable String oldPrincipal) {
    if (principalOp.isEmpty()) {
      return oldPrincipal;
    }
    return principalOp.equals("-") ? null : principalOp.substring(1);
  }

  private void movePrincipal(String oldId, @Nullable String oldPrincipal, String newId,
      @Nullable String newPrincipal) {
    if (Objects.equals(oldId, newId) && Objects.equals(oldPrincipal, newPrincipal)) {
      return;
    }
    if (oldPrincipal != null) {
      store.removeFromPrincipal(oldPrincipal, oldId);
    }
    if (newPrincipal != null) {
      store.addToPrincipal(newPrincipal, newId);
    }
  }

  private void cache(LazySession session, long epoch) {
    if (!nearCache.enabled()) {
      return;
    }
    Map<String, byte[]> attributes = new LinkedHashMap<>();
    session.entries().forEach((name, entry) -> {
      if (entry.stored != null) {
        attributes.put(name, entry.stored);
      }
    });
    attributes.putAll(session.hiddenAttributes());
    nearCache.put(session.getId(), new NearCache.Snapshot(session.version(),
        session.getCreationTime().toEpochMilli(), Collections.unmodifiableMap(attributes), epoch));
  }

  private void scheduleExpiry(LazySession session) {
    scheduleExpiry(session.getId(), session.storedLastAccessedTime(),
        session.getMaxInactiveInterval());
  }

  private void scheduleExpiry(String id, Instant lastAccess, Duration maxInactive) {
    if (maxInactive.isNegative()) {
      store.unscheduleExpiry(id);
    } else {
      store.scheduleExpiry(id, lastAccess.toEpochMilli() + maxInactive.toMillis());
    }
  }

  private void countInflation(LazySession session) {
    session.entries().values().forEach(entry -> {
      if (entry.stored != null && !entry.set) {
        if (entry.value.isInflated()) {
          metrics.attributesInflated.increment();
        } else {
          metrics.attributesLeftCompressed.increment();
        }
      }
    });
  }

  // ---- decode failures --------------------------------------------------------------------------

  /** Applies the decode failure policy to an attribute whose bytes cannot be decoded. */
  void decodeFailed(LazySession session, String attributeName, SerializationException failure) {
    metrics.decodeFailures.increment();
    String what = failure instanceof ClassNotAllowedException notAllowed
        ? "class " + notAllowed.className() + " is not allowed"
        : failure.getClass().getSimpleName() + ": " + failure.getMessage();
    switch (decodeFailurePolicy) {
      case DROP_ATTRIBUTE -> {
        if (DecodeFailurePolicy.readableElsewhere(failure)) {
          log.warn("Hid attribute '{}' of session {} from this request: {}; its bytes stay in "
              + "Redis untouched (a node that can read them, such as a newer version during a "
              + "rolling deploy, still does)", attributeName, session.getId(), what);
          session.hideAttribute(attributeName);
        } else {
          log.warn("Dropped attribute '{}' of session {} (its stored bytes are corrupt and are "
              + "deleted at the next save): {}", attributeName, session.getId(), what);
          session.dropAttribute(attributeName);
        }
      }
      case INVALIDATE_SESSION -> {
        log.warn("Invalidated session {}: its attribute '{}' cannot be decoded ({})",
            session.getId(), attributeName, what);
        session.invalidate();
      }
      case FAIL -> throw new IllegalStateException("Attribute '" + attributeName + "' of session "
          + session.getId() + " cannot be decoded: " + what, failure);
    }
  }

  // ---- other ------------------------------------------------------------------------------------

  /** What this repository has done so far: loads, saves, round trips, bytes, decode failures... */
  public RepositoryMetrics metrics() {
    return metrics.snapshot();
  }

  /** The namespace (key prefix) this repository stores sessions under. */
  public String namespace() {
    return store.keys().namespace();
  }

  /**
   * How stale the stored last-access time of a session with the default timeout may get before a
   * read-only request writes it (a session with a shorter timeout of its own is touched sooner).
   */
  public Duration touchInterval() {
    return touchInterval;
  }

  /** The max inactive interval of new sessions. */
  public Duration defaultMaxInactiveInterval() {
    return defaultMaxInactiveInterval;
  }

  /** Stops the expiry sweep and closes the Redis connection (not the client). */
  @Override
  public void close() {
    if (sweeper != null) {
      sweeper.shutdownNow();
    }
    connection.close();
  }

  AttributeSerializer serializer() {
    return serializer;
  }

  String newSessionId() {
    return idGenerator.generate();
  }

  Instant now() {
    return clock.instant();
  }

  private void publish(ApplicationEvent event) {
    if (eventPublisher == null) {
      return;
    }
    try {
      eventPublisher.publishEvent(event);
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable e) {
      log.warn("a listener of {} failed; the session store is not affected", event.getClass()
          .getSimpleName(), e);
    }
  }

  private static MapSession destroyedSession(String id, List<byte @Nullable []> meta) {
    MapSession session = new MapSession(id);
    Long creation = number(meta.get(0));
    Long lastAccess = number(meta.get(1));
    Long maxInactive = number(meta.get(2));
    if (creation != null) {
      session.setCreationTime(Instant.ofEpochMilli(creation));
    }
    if (lastAccess != null) {
      session.setLastAccessedTime(Instant.ofEpochMilli(lastAccess));
    }
    if (maxInactive != null) {
      session.setMaxInactiveInterval(Duration.ofSeconds(maxInactive));
    }
    return session;
  }

  /** Ids from cookies are untrusted: an empty or oversized one is never sent to Redis. */
  private static boolean isPlausibleId(@Nullable String id) {
    return id != null && !id.isEmpty() && id.length() <= MAX_ID_LENGTH;
  }

  /** When a session last accessed at {@code lastAccess} (ms) expires, for a timeout in seconds. */
  private static long dueMillis(long lastAccess, long maxInactiveSeconds) {
    return lastAccess + maxInactiveSeconds * 1000;
  }

  private static long maxInactiveSeconds(Duration interval) {
    return interval.isNegative() ? -1 : interval.getSeconds();
  }

  static @Nullable Long number(byte @Nullable [] bytes) {
    if (bytes == null) {
      return null;
    }
    try {
      return Long.parseLong(new String(bytes, UTF_8));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static @Nullable String text(byte @Nullable [] bytes) {
    return bytes == null ? null : new String(bytes, UTF_8);
  }



  /**
   * Builds a {@link LazyRedisSessionRepository}. Not thread-safe. {@link #build()} connects to Redis
   * and fails fast when it cannot.
   */
  public static final class Builder {
    /** Opens the connections for one topology. */
    private interface Connector {
      SessionConnection connect(boolean durable, Runnable onReset);
    }

    private final Connector connector;
    private @Nullable AttributeSerializer serializer;
    private String namespace = DEFAULT_NAMESPACE;
    private Duration defaultMaxInactiveInterval = DEFAULT_MAX_INACTIVE_INTERVAL;
    private @Nullable Duration touchInterval;
    private Duration expiryGrace = DEFAULT_EXPIRY_GRACE;
    private Duration cleanupInterval = DEFAULT_CLEANUP_INTERVAL;
    private DecodeFailurePolicy decodeFailurePolicy = DecodeFailurePolicy.DROP_ATTRIBUTE;
    private @Nullable ApplicationEventPublisher eventPublisher;
    private Clock clock = Clock.systemUTC();
    private SessionIdGenerator idGenerator = UuidSessionIdGenerator.getInstance();
    private long nearCacheMaxBytes = DEFAULT_NEAR_CACHE_MAX_BYTES;
    private int durabilityReplicas;
    private Duration durabilityTimeout = DEFAULT_DURABILITY_TIMEOUT;

    private Builder(Connector connector) {
      this.connector = connector;
    }

    /** How attribute values are encoded; defaults to {@code AttributeSerializer.builder().build()}. */
    public Builder serializer(AttributeSerializer serializer) {
      this.serializer = Objects.requireNonNull(serializer, "serializer must not be null");
      return this;
    }

    /** The key prefix; default {@value #DEFAULT_NAMESPACE}. Letters, digits, {@code -_.:} only. */
    public Builder namespace(String namespace) {
      Objects.requireNonNull(namespace, "namespace must not be null");
      if (!namespace.matches("[A-Za-z0-9_.:\\-]+")) {
        throw new IllegalArgumentException("namespace must be made of letters, digits and -_.: "
            + "(no spaces or braces), was '" + namespace + "'");
      }
      this.namespace = namespace;
      return this;
    }

    /**
     * The max inactive interval of new sessions; default 30 minutes. Negative: sessions never expire.
     * Must be whole seconds.
     */
    public Builder defaultMaxInactiveInterval(Duration interval) {
      Objects.requireNonNull(interval, "defaultMaxInactiveInterval must not be null");
      if (!interval.isNegative() && interval.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException("defaultMaxInactiveInterval must be at least one second "
            + "(or negative: never expire), was " + interval);
      }
      this.defaultMaxInactiveInterval = interval;
      return this;
    }

    /**
     * How stale the stored last-access time may get before a request that changes nothing writes it
     * (one small write). Default: 1% of each session's max inactive interval, at most 60 seconds.
     * A configured value must be shorter than the {@linkplain #defaultMaxInactiveInterval default
     * max inactive interval}, and is capped at a tenth of the timeout of a session whose own timeout
     * is shorter. Zero: every request writes its access time.
     */
    public Builder touchInterval(Duration touchInterval) {
      Objects.requireNonNull(touchInterval, "touchInterval must not be null");
      if (touchInterval.isNegative()) {
        throw new IllegalArgumentException("touchInterval must be >= 0, was " + touchInterval);
      }
      this.touchInterval = touchInterval;
      return this;
    }

    /** How long Redis keeps a hash after its session expired; default 5 minutes. */
    public Builder expiryGrace(Duration expiryGrace) {
      Objects.requireNonNull(expiryGrace, "expiryGrace must not be null");
      if (expiryGrace.isNegative()) {
        throw new IllegalArgumentException("expiryGrace must be >= 0, was " + expiryGrace);
      }
      this.expiryGrace = expiryGrace;
      return this;
    }

    /**
     * How often this node sweeps for expired sessions (publishing the expiry events); default 10
     * seconds. Zero turns the background sweep off ({@link #cleanUpExpiredSessions()} still works).
     */
    public Builder cleanupInterval(Duration cleanupInterval) {
      Objects.requireNonNull(cleanupInterval, "cleanupInterval must not be null");
      if (cleanupInterval.isNegative()) {
        throw new IllegalArgumentException("cleanupInterval must be >= 0, was " + cleanupInterval);
      }
      this.cleanupInterval = cleanupInterval;
      return this;
    }

    /** What happens when an attribute cannot be decoded; default {@code DROP_ATTRIBUTE}. */
    public Builder onDecodeFailure(DecodeFailurePolicy policy) {
      this.decodeFailurePolicy = Objects.requireNonNull(policy, "onDecodeFailure must not be null");
      return this;
    }

    /** Where session created, deleted and expired events go; none by default. */
    public Builder eventPublisher(@Nullable ApplicationEventPublisher eventPublisher) {
      this.eventPublisher = eventPublisher;
      return this;
    }

    /** The clock for creation, access and expiry times; default the system UTC clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock must not be null");
      return this;
    }

    /**
     * Heap for this node's near cache of sessions it loaded or wrote (an estimate of the bytes held);
     * default 64 MB; 0 turns it off. A cached session is used only after Redis confirmed, in the same
     * single call that would otherwise load it, that its version is still current.
     */
    public Builder nearCacheMaxBytes(long maxBytes) {
      if (maxBytes < 0) {
        throw new IllegalArgumentException("nearCacheMaxBytes must be >= 0, was " + maxBytes);
      }
      this.nearCacheMaxBytes = maxBytes;
      return this;
    }

    /**
     * After each save, wait (Redis WAIT, on the connection that wrote) until {@code replicas}
     * replicas have the change, at most {@code timeout}; when fewer acknowledge in time, {@code save}
     * throws {@link SessionNotReplicatedException} (the change stays applied on the primary). Costs
     * one more round trip per save, plus the replication delay. Off (0 replicas) by default: then a
     * save is acknowledged once the primary applied it, and a failover right after can lose it.
     *
     * <p>{@code timeout} must be shorter than the client's command timeout, or the WAIT itself
     * times out first (and the save fails as unavailable).
     */
    public Builder durability(int replicas, Duration timeout) {
      if (replicas < 0) {
        throw new IllegalArgumentException("durability replicas must be >= 0, was " + replicas);
      }
      Objects.requireNonNull(timeout, "durability timeout must not be null");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("durability timeout must be > 0 (WAIT 0 waits "
            + "forever), was " + timeout);
      }
      this.durabilityReplicas = replicas;
      this.durabilityTimeout = timeout;
      return this;
    }

    /** How new session ids are made; default random UUIDs. */
    public Builder sessionIdGenerator(SessionIdGenerator generator) {
      this.idGenerator = Objects.requireNonNull(generator, "sessionIdGenerator must not be null");
      return this;
    }

    /**
     * Connects to Redis, loads the scripts and starts the expiry sweep.
     *
     * @throws IllegalStateException when Redis cannot be reached, saying what to check
     */
    public LazyRedisSessionRepository build() {
      if (touchInterval != null && !defaultMaxInactiveInterval.isNegative()
          && touchInterval.compareTo(defaultMaxInactiveInterval) >= 0) {
        throw new IllegalArgumentException("touchInterval (" + touchInterval + ") must be shorter "
            + "than defaultMaxInactiveInterval (" + defaultMaxInactiveInterval + "), or sessions "
            + "expire while in use");
      }
      if (serializer == null) {
        serializer = AttributeSerializer.builder().build();
      }
      NearCache nearCache = new NearCache(nearCacheMaxBytes);
      SessionConnection connection = connector.connect(durabilityReplicas > 0, nearCache::reset);
      try {
        return new LazyRedisSessionRepository(this, connection, nearCache);
      } catch (RuntimeException e) {
        connection.close();
        throw e;
      }
    }
  }
}
