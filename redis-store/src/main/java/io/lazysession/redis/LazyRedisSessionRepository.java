package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.session.FindByIndexNameSessionRepository;
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
 * <p>Expiry (one {@link SessionExpiredEvent} per session across all nodes) and failures
 * ({@link SessionStoreUnavailableException}, {@link SessionStoreException},
 * {@link SessionNotReplicatedException}) are described in the package documentation.
 *
 * <p>Thread-safe: build one per application and share it; {@link #close()} when done (the client is
 * not closed). Design: this class only routes, to collaborators built once (docs/architecture.md).
 */
public final class LazyRedisSessionRepository
    implements FindByIndexNameSessionRepository<LazySession>, AutoCloseable {
  /** Default {@link LazyRedisSessionRepositoryBuilder#namespace}. */
  public static final String DEFAULT_NAMESPACE = "lazysession";
  /** Default {@link LazyRedisSessionRepositoryBuilder#defaultMaxInactiveInterval}, as in Spring Session. */
  public static final Duration DEFAULT_MAX_INACTIVE_INTERVAL = Duration.ofMinutes(30);
  /** Default {@link LazyRedisSessionRepositoryBuilder#expiryGrace}. */
  public static final Duration DEFAULT_EXPIRY_GRACE = Duration.ofMinutes(5);
  /** Default {@link LazyRedisSessionRepositoryBuilder#cleanupInterval}. */
  public static final Duration DEFAULT_CLEANUP_INTERVAL = Duration.ofSeconds(10);
  /** Default {@link LazyRedisSessionRepositoryBuilder#nearCacheMaxBytes}: 64 MB. */
  public static final long DEFAULT_NEAR_CACHE_MAX_BYTES = 64L * 1024 * 1024;
  /** Default timeout of {@link LazyRedisSessionRepositoryBuilder#durability}. */
  public static final Duration DEFAULT_DURABILITY_TIMEOUT = Duration.ofSeconds(1);
  /** The longest default {@link LazyRedisSessionRepositoryBuilder#touchInterval}. */
  public static final Duration MAX_DEFAULT_TOUCH_INTERVAL = Duration.ofSeconds(60);

  /** The collaborators, built once; what a reactive repository over this one shares with it. */
  private final SharedCollaborators shared;
  private final SessionReader reader;
  private final SessionWriter writer;
  private final @Nullable SpringSessionDataRedisMigration migration;

  LazyRedisSessionRepository(LazyRedisSessionRepositoryBuilder builder, AttributeSerializer serializer,
      SessionConnection connection, NearCache nearCache, @Nullable TrackingConnection tracking) {
    RepositoryWiring wired =
        RepositoryWiring.wire(this, builder, serializer, connection, nearCache, tracking);
    this.shared = wired.shared();
    this.reader = wired.reader();
    this.writer = wired.writer();
    this.migration = wired.migration();
  }

  /**
   * A builder for a repository on the Redis that {@code client} connects to by default: standalone,
   * or Sentinel-managed when the client's URI names sentinels (Lettuce then re-resolves the primary
   * after a failover).
   */
  public static LazyRedisSessionRepositoryBuilder builder(RedisClient client) {
    Objects.requireNonNull(client, "client must not be null");
    return new LazyRedisSessionRepositoryBuilder((durable, onReset) -> SessionConnection.connect(client, durable, onReset),
        client);
  }

  /**
   * A builder for a repository on a Redis Cluster. Give the client {@code ClusterClientOptions} with
   * adaptive and periodic topology refresh, so that a failover is seen within seconds.
   */
  public static LazyRedisSessionRepositoryBuilder builder(RedisClusterClient client) {
    Objects.requireNonNull(client, "client must not be null");
    return new LazyRedisSessionRepositoryBuilder((durable, onReset) -> SessionConnection.connect(client, durable, onReset),
        null);
  }

  @Override
  public LazySession createSession() {
    SessionContext context = shared.context();
    LazySession session = new LazySession(context, context.newSessionId(), context.now(),
        context.policies().timeoutOfNew());
    context.changed(session); // created in Redis at once in flush mode IMMEDIATE
    CurrentRequest.expose(session);
    return session;
  }

  /**
   * Loads a session in one round trip. Returns null when it does not exist, has expired, or is
   * incomplete in Redis. Attributes are not decoded here.
   */
  @Override
  public @Nullable LazySession findById(String id) {
    if (!SessionKeys.isPlausibleId(id)) {
      return null;
    }
    LazySession session = shared.metrics().outage.translated("findById", id,
        () -> shared.renewal().renewIfDue(reader.find(id))); // docs/session-policies.md
    if (session != null) {
      CurrentRequest.exposeIfAbsent(session);
    }
    return session;
  }

  /**
   * Writes what changed. With {@linkplain LazyRedisSessionRepositoryBuilder#durability durability} on, waits for the replicas.
   *
   * @throws SessionStoreUnavailableException when Redis cannot be reached in time (whether the change
   *     was applied is unknown, unless the message says the primary applied it)
   * @throws SessionNotReplicatedException when the primary applied the change but too few replicas
   *     acknowledged it in time
   * @throws io.lazysession.serializer.SerializationException naming the attribute that cannot be
   *     encoded (nothing is written)
   */
  @Override
  public void save(LazySession session) {
    Objects.requireNonNull(session, "session must not be null");
    // First, because resolving the principal may decode attributes, and a decode failure may drop
    // one or invalidate the session: what is written below must already reflect that.
    PrincipalChange principal = session.invalidated() ? PrincipalChange.UNCHANGED
        : shared.principals().changeOf(session);
    shared.metrics().count(session.inflation());
    if (session.invalidated()) {
      if (!session.isNew()) {
        deleteById(session.storedId());
      }
      return;
    }
    try {
      shared.context().policies().beforeSave(session, principal);
      shared.limiter().save(session, principal, writer::save);
    } catch (RedisException e) {
      // Redis may still run the save: its invalidation must be counted then (tracked reads).
      shared.nearCache().saveFailed(session.getId(), session.storedId());
      throw shared.metrics().outage.translate("save", session.getId(), e);
    }
    shared.metrics().outage.available();
  }

  /**
   * Deletes a live session and publishes a {@link SessionDeletedEvent}. A session that has already
   * expired is left to the expiry sweep, which reports it once as expired.
   */
  @Override
  public void deleteById(String id) {
    if (!SessionKeys.isPlausibleId(id)) {
      return;
    }
    shared.nearCache().invalidate(id);
    try {
      if (migration != null && migration.handles(id)) {
        // A session not yet taken over must not be found there afterwards. First: a take-over in
        // flight then sees the delete's mark when it is done, and deletes what it wrote here.
        shared.metrics().outage.translated("deleteById", id, () -> migration.delete(id));
      }
    } finally {
      shared.metrics().outage.translated("deleteById", id, () -> shared.expiry().delete(id));
    }
  }

  /**
   * Sessions whose stored principal is {@code indexValue} (index {@link #PRINCIPAL_NAME_INDEX_NAME}
   * or the reactive interface's name of it); other names find nothing. Stale entries are removed.
   */
  @Override
  public Map<String, LazySession> findByIndexNameAndIndexValue(String indexName, String indexValue) {
    if (!PRINCIPAL_NAME_INDEX_NAME.equals(indexName)
        && !LazySession.REACTIVE_PRINCIPAL_NAME.equals(indexName)) {
      return Collections.emptyMap();
    }
    return shared.metrics().outage.translated("findByIndexNameAndIndexValue", null, () -> {
      Function<String, @Nullable LazySession> loader =
          id -> SessionKeys.isPlausibleId(id) ? reader.find(id) : null;
      Map<String, LazySession> found = shared.principals().find(indexValue, loader);
      return migration == null ? found : migration.withWaiting(found, indexValue, loader);
    });
  }

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
    return shared.metrics().outage.translated("cleanUpExpiredSessions", null,
        shared.expiry()::sweepDue);
  }

  /**
   * What {@code session} takes in Redis, read from its hash as stored now (one HGETALL, and one
   * MEMORY USAGE with {@code memoryUsage}): each attribute with where it lives and its bytes, with
   * whether {@code session} (typically the request's) decoded it, and the session's total. Decodes
   * every attribute of a copy (never of {@code session}) to give its type and JDK size; for
   * diagnostics, not for every request. Null when Redis holds no such session (not saved yet).
   *
   * @throws SessionStoreUnavailableException when Redis cannot be reached in time
   */
  public @Nullable SessionSize measure(LazySession session, boolean memoryUsage) {
    String id = session.getId();
    return StoreFailures.translated("measure", id, () -> SessionSizes.measure(id,
        shared.store().keys().session(id), shared.store().hash(id),
        memoryUsage ? shared.store().memoryUsage(id) : null, shared.context().serializer(),
        session.attributeInfo(), shared.store().protection()));
  }

  /** Tells {@code listener} the stored sizes of each session this repository saves from now on. */
  public void addSizeListener(SessionSizeListener listener) {
    shared.sizes().add(Objects.requireNonNull(listener, "listener must not be null"));
  }

  /** What this repository has done so far: loads, saves, round trips, bytes, decode failures... */
  public RepositoryMetrics metrics() {
    return shared.metrics().snapshot();
  }

  /**
   * How many sessions Spring Session Data Redis still holds that this repository would take over
   * (see {@link LazyRedisSessionRepositoryBuilder#migrateFrom}); 0 when migration is off. Expensive: a SCAN of the whole key
   * space (of every Cluster node), for an occasional look at a migration's progress, never for a
   * metrics scrape. The count includes sessions that are expired but not yet removed by Redis.
   *
   * @throws SessionStoreUnavailableException when Redis cannot be reached in time
   */
  public long countSessionsWaitingForMigration() {
    return migration == null ? 0
        : shared.metrics().outage.translated("countSessionsWaitingForMigration", null,
            migration::countWaiting);
  }

  /**
   * The serializer attribute values are stored with: its {@linkplain
   * AttributeSerializer#codecFallbacks() codec fallbacks} and, in audit mode, the classes its
   * {@linkplain AttributeSerializer#allowList() allow-list} let through (for an actuator endpoint).
   */
  public AttributeSerializer serializer() {
    return shared.context().serializer();
  }

  /**
   * Seals anew every stored value not as this repository writes them (old key, or unprotected), each
   * only if no save rewrote it meanwhile; reports how many remain. Run from one node after adding a
   * first key, and until {@code remaining} is 0 before removing the old one (docs/security.md). A
   * SCAN of the namespace and a command or two per session: an operation, not a request-path call.
   * What Redis holds unprotected is sealed too ({@link ReencryptionMode#SEAL_UNPROTECTED}).
   */
  public ReencryptionReport reencrypt() {
    return reencrypt(ReencryptionMode.SEAL_UNPROTECTED);
  }

  /**
   * As {@link #reencrypt()}; with {@link ReencryptionMode#SIGN_OUT_UNPROTECTED}, a session holding
   * anything unprotected is deleted instead of sealed, for a Redis that may hold planted values.
   */
  public ReencryptionReport reencrypt(ReencryptionMode mode) {
    java.util.Objects.requireNonNull(mode, "mode must not be null");
    if (mode == ReencryptionMode.SIGN_OUT_UNPROTECTED && encrypts()
        && shared.store().keys().fallsBack() && !shared.store().keys().keyedByDefault()) {
      throw new IllegalStateException("reencrypt(SIGN_OUT_UNPROTECTED) on a node that writes "
          + "unprotected values (lazysession.encryption.write-unprotected=true) would sign out "
          + "every session: it is for turning protection on, run it on a node that writes with "
          + "its keys");
    }
    return StoreFailures.translated("reencrypt", null, () -> new Reencryption(shared.connection(),
        shared.store(), shared.metrics()).run(mode, this::deleteById));
  }

  /**
   * Whether this repository has encryption keys and still reads values stored without protection
   * ({@code accept-unprotected}, meant only for turning protection on or off in a running cluster):
   * until it is off, a writer of Redis is as powerful as without keys. False without keys.
   */
  public boolean acceptsUnprotectedValues() {
    return shared.store().protection().acceptsUnprotected();
  }

  /** Whether this repository has encryption keys ({@link LazyRedisSessionRepositoryBuilder#encryption}). */
  public boolean encrypts() {
    return shared.store().protection().enabled();
  }

  /**
   * The Redis format of this repository's namespace: the format this node reads and writes, the one
   * the namespace is finalized at, and every node serving it, as they announce themselves
   * (docs/versioning.md, "Rolling upgrades"). One call to Redis.
   *
   * @throws SessionStoreUnavailableException when Redis cannot be reached
   */
  public RedisFormatStatus formatStatus() {
    return StoreFailures.translated("formatStatus", null, shared.store().format()::status);
  }

  /**
   * Moves the namespace to the newest Redis format that every live node reads, once a rolling
   * upgrade has reached every node: the one step after which nodes write that format, and after
   * which rolling back to a version that does not read it signs out the sessions written in it
   * (docs/versioning.md, "Finalizing"). Logged; does nothing when there is nothing newer to move to.
   *
   * @return the format as it stands after the call
   * @throws IllegalStateException when a live node reads only an older format than this node, naming
   *     it
   * @throws SessionStoreUnavailableException when Redis cannot be reached
   */
  public RedisFormatStatus finalizeFormat() {
    return StoreFailures.translated("finalizeFormat", null, shared.store().format()::finalizeFormat);
  }

  /** The namespace (key prefix) this repository stores sessions under. */
  public String namespace() {
    return shared.store().keys().namespace();
  }

  /** How stale a default-timeout session's stored last access may get before a read writes it. */
  public Duration touchInterval() {
    return shared.touch().defaultInterval();
  }

  /** The max inactive interval of new sessions. */
  public Duration defaultMaxInactiveInterval() {
    return shared.defaultMaxInactiveInterval();
  }

  /** Stops the expiry sweep and closes the Redis connections (not the client). */
  @Override
  public void close() {
    shared.expiry().close();
    shared.store().format().close();
    SharedDictionary dictionary = shared.store().dictionary();
    if (dictionary != null) {
      dictionary.close();
    }
    if (shared.tracking() != null) {
      shared.tracking().close();
    }
    shared.connection().close();
  }

  /** The collaborators a {@link LazyReactiveRedisSessionRepository} over this one shares. */
  SharedCollaborators shared() {
    return shared;
  }
}
