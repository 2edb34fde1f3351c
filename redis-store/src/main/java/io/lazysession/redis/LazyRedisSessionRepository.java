package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.FlushMode;
import org.springframework.session.SessionIdGenerator;
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

  /** The collaborators, built once; what a reactive repository over this one shares with it. */
  private final SharedCollaborators shared;
  private final SessionReader reader;
  private final SessionWriter writer;
  private final @Nullable SpringSessionDataRedisMigration migration;

  LazyRedisSessionRepository(Builder builder, AttributeSerializer serializer,
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
  public static Builder builder(RedisClient client) {
    Objects.requireNonNull(client, "client must not be null");
    return new Builder((durable, onReset) -> SessionConnection.connect(client, durable, onReset),
        client);
  }

  /**
   * A builder for a repository on a Redis Cluster. Give the client {@code ClusterClientOptions} with
   * adaptive and periodic topology refresh, so that a failover is seen within seconds.
   */
  public static Builder builder(RedisClusterClient client) {
    Objects.requireNonNull(client, "client must not be null");
    return new Builder((durable, onReset) -> SessionConnection.connect(client, durable, onReset),
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
   * Writes what changed. With {@linkplain Builder#durability durability} on, waits for the replicas.
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
      shared.nearCache().invalidate(session.getId());
      shared.nearCache().invalidate(session.storedId());
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
   * (see {@link Builder#migrateFrom}); 0 when migration is off. Expensive: a SCAN of the whole key
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
   */
  public ReencryptionReport reencrypt() {
    return StoreFailures.translated("reencrypt", null, () -> new Reencryption(shared.connection(),
        shared.store(), shared.metrics()).run());
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
    if (shared.tracking() != null) {
      shared.tracking().close();
    }
    shared.connection().close();
  }

  /** The collaborators a {@link LazyReactiveRedisSessionRepository} over this one shares. */
  SharedCollaborators shared() {
    return shared;
  }

  /**
   * Builds a {@link LazyRedisSessionRepository}. Not thread-safe. {@link #build()} connects to Redis
   * and fails fast when it cannot.
   */
  public static final class Builder {
    /** Opens the connections for one topology. */
    interface Connector {
      SessionConnection connect(boolean durable, Runnable onReset);
    }

    // Package-private: read by RepositoryWiring.
    final Connector connector;
    /** The client of a standalone or Sentinel repository (tracking needs it); null on a Cluster. */
    final @Nullable RedisClient client;
    @Nullable Duration nearCacheTracking;
    @Nullable AttributeSerializer serializer;
    String namespace = DEFAULT_NAMESPACE;
    Duration defaultMaxInactiveInterval = DEFAULT_MAX_INACTIVE_INTERVAL;
    @Nullable Duration touchInterval;
    Duration expiryGrace = DEFAULT_EXPIRY_GRACE;
    Duration cleanupInterval = DEFAULT_CLEANUP_INTERVAL;
    boolean expiryEvents = true;
    DecodeFailurePolicy decodeFailurePolicy = DecodeFailurePolicy.DROP_ATTRIBUTE;
    @Nullable ApplicationEventPublisher eventPublisher;
    Clock clock = Clock.systemUTC();
    @Nullable SessionIdGenerator idGenerator; // null: a CompactSessionIdGenerator, made by build()
    long nearCacheMaxBytes = DEFAULT_NEAR_CACHE_MAX_BYTES;
    int durabilityReplicas;
    Duration durabilityTimeout = DEFAULT_DURABILITY_TIMEOUT;
    @Nullable SpringSessionDataRedis migrateFrom;
    FlushMode flushMode = FlushMode.ON_SAVE;
    boolean requireRedisAtStartup = true;
    @Nullable SessionEncryption encryption;
    @Nullable Duration absoluteTimeout;
    @Nullable Duration anonymousTimeout;
    @Nullable Duration idRenewalInterval;
    Duration idRenewalGrace = SessionPolicies.DEFAULT_ID_RENEWAL_GRACE;
    SessionBudget sessionBudget = SessionBudget.NONE;
    @Nullable SessionLimit sessionLimit;

    private Builder(Connector connector, @Nullable RedisClient client) {
      this.connector = connector;
      this.client = client;
    }

    private static Duration nonNegative(Duration value, String name) {
      if (Objects.requireNonNull(value, () -> name + " must not be null").isNegative()) {
        throw new IllegalArgumentException(name + " must be >= 0, was " + value);
      }
      return value;
    }

    /** How attribute values are encoded; defaults to {@code AttributeSerializer.builder().build()}. */
    public Builder serializer(AttributeSerializer serializer) {
      this.serializer = Objects.requireNonNull(serializer, "serializer must not be null");
      return this;
    }

    /** The key prefix; default {@value #DEFAULT_NAMESPACE}. Letters, digits, {@code -_.:} only. */
    public Builder namespace(String namespace) {
      this.namespace = SessionKeys.checkNamespace(namespace);
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
     * (one small write). Default: 1% of each session's timeout, at most 60 s. Shorter than the default
     * timeout; capped at a tenth of a shorter own timeout. Zero: every request writes it.
     */
    public Builder touchInterval(Duration touchInterval) {
      this.touchInterval = nonNegative(touchInterval, "touchInterval");
      return this;
    }

    /** How long Redis keeps a hash after its session expired; default 5 minutes. */
    public Builder expiryGrace(Duration expiryGrace) {
      this.expiryGrace = nonNegative(expiryGrace, "expiryGrace");
      return this;
    }

    /**
     * How often this node sweeps for expired sessions (publishing the expiry events); default 10
     * seconds. Zero turns the background sweep off ({@link #cleanUpExpiredSessions()} still works).
     * Keep it on for at least one node of a namespace, or turn {@link #expiryEvents} off: else the
     * schedule keeps the ids of expired sessions forever.
     */
    public Builder cleanupInterval(Duration cleanupInterval) {
      this.cleanupInterval = nonNegative(cleanupInterval, "cleanupInterval");
      return this;
    }

    /**
     * Whether sessions that expire are reported ({@link SessionExpiredEvent}); default true. False
     * keeps no expiry schedule (no write touches it, no sweep runs on this node, whatever the
     * cleanup interval), saving its memory, the command that schedules a new session, and the
     * sweep's commands; principal sets get a TTL instead. Deletes are still reported. Switching a
     * running cluster: docs/redis-layout.md.
     */
    public Builder expiryEvents(boolean expiryEvents) {
      this.expiryEvents = expiryEvents;
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
     * Tracked reads (off, null, by default): a near-cache hit sends no command, its copy kept fresh
     * by the invalidations Redis pushes (CLIENT TRACKING on one more RESP3 connection). A write
     * acknowledged more than {@code maxStaleness} before a read is always seen; reads are confirmed
     * by Redis again while tracking is down. Standalone and Sentinel; Redis 6.2+. docs/tracked-reads.md.
     */
    public Builder nearCacheTracking(@Nullable Duration maxStaleness) {
      if (maxStaleness != null && (maxStaleness.isNegative() || maxStaleness.isZero())) {
        throw new IllegalArgumentException("nearCacheTracking maxStaleness must be > 0, was "
            + maxStaleness);
      }
      this.nearCacheTracking = maxStaleness;
      return this;
    }

    /**
     * After each save, wait (Redis WAIT, on a connection of that save's own) until {@code replicas}
     * replicas have the change, at most {@code timeout} (shorter than the client's command timeout);
     * when fewer acknowledge, {@code save} throws {@link SessionNotReplicatedException} (the change
     * stays applied on the primary). One more round trip per save; saves never wait for each other.
     * Off (0) by default: a failover right after a save can then lose it.
     */
    public Builder durability(int replicas, Duration timeout) {
      Durability checked = new Durability(replicas, timeout);
      this.durabilityReplicas = checked.replicas();
      this.durabilityTimeout = checked.timeout();
      return this;
    }

    /**
     * Takes over the sessions that Spring Session Data Redis 4.x stored under {@code source} (both
     * of its repositories, default JDK serialization), each on its first request, so that switching
     * signs nobody out; off (null) by default. The allow-list must cover those sessions' attributes.
     * How, what it costs and how to roll back: docs/migration.md.
     */
    public Builder migrateFrom(@Nullable SpringSessionDataRedis source) {
      this.migrateFrom = source;
      return this;
    }

    /**
     * {@code ON_SAVE} (default): a request's changes are written when it ends, in one round trip.
     * {@code IMMEDIATE}: each change (and a new session) is saved as it is made, a round trip each.
     */
    public Builder flushMode(FlushMode flushMode) {
      this.flushMode = Objects.requireNonNull(flushMode, "flushMode must not be null");
      return this;
    }

    /**
     * How new session ids are made. Default: 128 random bits in 22 base64url characters, 14 fewer
     * than a UUID in each of the two places Redis keeps an id and in every find; Spring Session's
     * {@code UuidSessionIdGenerator.getInstance()} gives UUIDs. Stored ids of any shape keep working.
     */
    public Builder sessionIdGenerator(SessionIdGenerator generator) {
      this.idGenerator = Objects.requireNonNull(generator, "sessionIdGenerator must not be null");
      return this;
    }

    /**
     * Whether {@link #build()} fails when Redis cannot be reached (true, the default here), or
     * returns a repository that connects by itself once Redis is reachable (false), logging one
     * WARN line; meanwhile every operation fails with {@link SessionStoreUnavailableException}.
     * Redis refusing the client (a wrong password, an ACL) fails the build either way. The Spring
     * configurations set it from {@code lazysession.require-redis-at-startup}, default false.
     */
    public Builder requireRedisAtStartup(boolean require) {
      this.requireRedisAtStartup = require;
      return this;
    }

    /** Limits on each session's stored size: saves over them logged or refused; none by default. */
    public Builder sessionBudget(SessionBudget budget) {
      this.sessionBudget = Objects.requireNonNull(budget, "sessionBudget must not be null");
      return this;
    }

    /**
     * Seals every stored attribute value, the pack and the principal name with AES-256-GCM, bound to
     * the session and the field, and checks them before decoding; off (null) by default.
     * docs/security.md.
     */
    public Builder encryption(@Nullable SessionEncryption encryption) {
      this.encryption = encryption;
      return this;
    }

    /**
     * How long after its creation a session is over, however active (OWASP's absolute timeout);
     * none (null) by default. Decided by every node alike, with the expired event sent once.
     * Whole seconds. docs/session-policies.md.
     */
    public Builder absoluteTimeout(@Nullable Duration timeout) {
      this.absoluteTimeout = timeout;
      sessionPolicies(); // checks them, naming the setting
      return this;
    }

    /**
     * The idle timeout of a new session until a principal is set (bots that never sign in); the save
     * that sets the principal gives it the default timeout. None (null) by default; only a timeout
     * shorter than the default one applies. Whole seconds. docs/session-policies.md.
     */
    public Builder anonymousTimeout(@Nullable Duration timeout) {
      this.anonymousTimeout = timeout;
      return policies();
    }

    /**
     * A signed-in session's first request {@code interval} after its id was issued gets a new id;
     * the old one reaches it for {@code grace} more. Off (null) by default. session-policies.md.
     */
    public Builder idRenewal(@Nullable Duration interval, Duration grace) {
      this.idRenewalInterval = interval;
      this.idRenewalGrace = grace;
      return policies();
    }

    /** Checks the policies as they now stand; the settings named in the message. */
    private Builder policies() {
      sessionPolicies();
      return this;
    }

    SessionPolicies sessionPolicies() {
      return new SessionPolicies(absoluteTimeout, anonymousTimeout, defaultMaxInactiveInterval,
          idRenewalInterval, idRenewalGrace);
    }

    /** At most this many live sessions per principal, atomically; none (null) by default. */
    public Builder sessionLimit(@Nullable SessionLimit limit) {
      this.sessionLimit = limit;
      return this;
    }

    /**
     * Connects, loads the scripts, starts the sweep; {@code IllegalStateException} if Redis is down
     * (unless {@link #requireRedisAtStartup} is false) or refuses the client.
     */
    public LazyRedisSessionRepository build() {
      TouchPolicy.check(touchInterval, defaultMaxInactiveInterval);
      if (migrateFrom != null && encryption != null && !encryption.acceptUnprotected()) {
        // SSDR's sessions are unprotected by nature: reading them would let anyone who can write
        // to Redis plant one, which the take-over would then seal.
        throw new IllegalStateException("taking sessions over from Spring Session Data Redis "
            + "(lazysession.migrate-from) reads unprotected values, which "
            + "lazysession.encryption.accept-unprotected=false refuses: finish the migration and "
            + "remove migrate-from, or keep accept-unprotected=true until then");
      }
      return RepositoryWiring.open(this);
    }
  }
}
