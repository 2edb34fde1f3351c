package io.lazysession.redis;

import static io.lazysession.redis.LazyRedisSessionRepository.DEFAULT_CLEANUP_INTERVAL;
import static io.lazysession.redis.LazyRedisSessionRepository.DEFAULT_DURABILITY_TIMEOUT;
import static io.lazysession.redis.LazyRedisSessionRepository.DEFAULT_EXPIRY_GRACE;
import static io.lazysession.redis.LazyRedisSessionRepository.DEFAULT_MAX_INACTIVE_INTERVAL;
import static io.lazysession.redis.LazyRedisSessionRepository.DEFAULT_NAMESPACE;
import static io.lazysession.redis.LazyRedisSessionRepository.DEFAULT_NEAR_CACHE_MAX_BYTES;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lettuce.core.RedisClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.session.FlushMode;
import org.springframework.session.SessionIdGenerator;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * Builds a {@link LazyRedisSessionRepository}. Not thread-safe. {@link #build()} connects to Redis
 * and fails fast when it cannot.
 */
public final class LazyRedisSessionRepositoryBuilder {
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
  DictionarySettings dictionarySettings = DictionarySettings.DEFAULT;
  @Nullable Duration absoluteTimeout;
  @Nullable Duration anonymousTimeout;
  @Nullable Duration idRenewalInterval;
  Duration idRenewalGrace = SessionPolicies.DEFAULT_ID_RENEWAL_GRACE;
  SessionBudget sessionBudget = SessionBudget.NONE;
  @Nullable SessionLimit sessionLimit;

  LazyRedisSessionRepositoryBuilder(Connector connector, @Nullable RedisClient client) {
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
  public LazyRedisSessionRepositoryBuilder serializer(AttributeSerializer serializer) {
    this.serializer = Objects.requireNonNull(serializer, "serializer must not be null");
    return this;
  }

  /** The key prefix; default {@value LazyRedisSessionRepository#DEFAULT_NAMESPACE}. Letters, digits, {@code -_.:} only. */
  public LazyRedisSessionRepositoryBuilder namespace(String namespace) {
    this.namespace = SessionKeys.checkNamespace(namespace);
    return this;
  }

  /**
   * The max inactive interval of new sessions; default 30 minutes. Negative: sessions never expire.
   * Must be whole seconds.
   */
  public LazyRedisSessionRepositoryBuilder defaultMaxInactiveInterval(Duration interval) {
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
  public LazyRedisSessionRepositoryBuilder touchInterval(Duration touchInterval) {
    this.touchInterval = nonNegative(touchInterval, "touchInterval");
    return this;
  }

  /** How long Redis keeps a hash after its session expired; default 5 minutes. */
  public LazyRedisSessionRepositoryBuilder expiryGrace(Duration expiryGrace) {
    this.expiryGrace = nonNegative(expiryGrace, "expiryGrace");
    return this;
  }

  /**
   * How often this node sweeps for expired sessions (publishing the expiry events); default 10
   * seconds. Zero turns the background sweep off
   * ({@link LazyRedisSessionRepository#cleanUpExpiredSessions()} still works). Keep it on for at
   * least one node of a namespace, or turn {@link #expiryEvents} off: else the schedule keeps the
   * ids of expired sessions forever.
   */
  public LazyRedisSessionRepositoryBuilder cleanupInterval(Duration cleanupInterval) {
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
  public LazyRedisSessionRepositoryBuilder expiryEvents(boolean expiryEvents) {
    this.expiryEvents = expiryEvents;
    return this;
  }

  /** What happens when an attribute cannot be decoded; default {@code DROP_ATTRIBUTE}. */
  public LazyRedisSessionRepositoryBuilder onDecodeFailure(DecodeFailurePolicy policy) {
    this.decodeFailurePolicy = Objects.requireNonNull(policy, "onDecodeFailure must not be null");
    return this;
  }

  /** Where session created, deleted and expired events go; none by default. */
  public LazyRedisSessionRepositoryBuilder eventPublisher(@Nullable ApplicationEventPublisher eventPublisher) {
    this.eventPublisher = eventPublisher;
    return this;
  }

  /** The clock for creation, access and expiry times; default the system UTC clock. */
  public LazyRedisSessionRepositoryBuilder clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock must not be null");
    return this;
  }

  /**
   * Heap for this node's near cache of sessions it loaded or wrote (an estimate of the bytes held);
   * default 64 MB; 0 turns it off. A cached session is used only after Redis confirmed, in the same
   * single call that would otherwise load it, that its version is still current.
   */
  public LazyRedisSessionRepositoryBuilder nearCacheMaxBytes(long maxBytes) {
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
  public LazyRedisSessionRepositoryBuilder nearCacheTracking(@Nullable Duration maxStaleness) {
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
  public LazyRedisSessionRepositoryBuilder durability(int replicas, Duration timeout) {
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
  public LazyRedisSessionRepositoryBuilder migrateFrom(@Nullable SpringSessionDataRedis source) {
    this.migrateFrom = source;
    return this;
  }

  /**
   * {@code ON_SAVE} (default): a request's changes are written when it ends, in one round trip.
   * {@code IMMEDIATE}: each change (and a new session) is saved as it is made, a round trip each.
   */
  public LazyRedisSessionRepositoryBuilder flushMode(FlushMode flushMode) {
    this.flushMode = Objects.requireNonNull(flushMode, "flushMode must not be null");
    return this;
  }

  /**
   * How new session ids are made. Default: 128 random bits in 22 base64url characters, 14 fewer
   * than a UUID in each of the two places Redis keeps an id and in every find; Spring Session's
   * {@code UuidSessionIdGenerator.getInstance()} gives UUIDs. Stored ids of any shape keep working.
   */
  public LazyRedisSessionRepositoryBuilder sessionIdGenerator(SessionIdGenerator generator) {
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
  public LazyRedisSessionRepositoryBuilder requireRedisAtStartup(boolean require) {
    this.requireRedisAtStartup = require;
    return this;
  }

  /** Limits on each session's stored size: saves over them logged or refused; none by default. */
  public LazyRedisSessionRepositoryBuilder sessionBudget(SessionBudget budget) {
    this.sessionBudget = Objects.requireNonNull(budget, "sessionBudget must not be null");
    return this;
  }

  /**
   * Whether values are compressed with a zstd dictionary the nodes of the namespace train from what
   * they store and share through Redis (on by default; {@code lazysession.compression.dictionary.enabled}).
   * Written with only once the namespace is finalized at Redis format 2; a serializer whose
   * compression is off or names a dictionary of its own turns it off. docs/redis-layout.md,
   * "Dictionaries".
   */
  public LazyRedisSessionRepositoryBuilder sharedDictionary(boolean enabled) {
    this.dictionarySettings = enabled ? DictionarySettings.DEFAULT : DictionarySettings.OFF;
    return this;
  }

  /**
   * Compresses with this dictionary, trained beforehand and given to every node ({@code
   * lazysession.compression.dictionary.file}), instead of one the nodes train: nothing is trained
   * nor kept in Redis. Written with only once the namespace is finalized at Redis format 2.
   */
  public LazyRedisSessionRepositoryBuilder dictionary(ZstdDictionary pinned) {
    this.dictionarySettings = DictionarySettings.pinned(
        Objects.requireNonNull(pinned, "dictionary must not be null"));
    return this;
  }

  /** Thresholds and periods of the shared dictionary: tests train on a few saves. */
  LazyRedisSessionRepositoryBuilder dictionarySettings(DictionarySettings settings) {
    this.dictionarySettings = settings;
    return this;
  }

  /**
   * Seals every stored attribute value, the pack and the principal name with AES-256-GCM, bound to
   * the session and the field, and checks them before decoding; off (null) by default.
   * docs/security.md.
   */
  public LazyRedisSessionRepositoryBuilder encryption(@Nullable SessionEncryption encryption) {
    this.encryption = encryption;
    return this;
  }

  /**
   * How long after its creation a session is over, however active (OWASP's absolute timeout);
   * none (null) by default. Decided by every node alike, with the expired event sent once.
   * Whole seconds. docs/session-policies.md.
   */
  public LazyRedisSessionRepositoryBuilder absoluteTimeout(@Nullable Duration timeout) {
    this.absoluteTimeout = timeout;
    sessionPolicies(); // checks them, naming the setting
    return this;
  }

  /**
   * The idle timeout of a new session until a principal is set (bots that never sign in); the save
   * that sets the principal gives it the default timeout. None (null) by default; only a timeout
   * shorter than the default one applies. Whole seconds. docs/session-policies.md.
   */
  public LazyRedisSessionRepositoryBuilder anonymousTimeout(@Nullable Duration timeout) {
    this.anonymousTimeout = timeout;
    return policies();
  }

  /**
   * A signed-in session's first request {@code interval} after its id was issued gets a new id;
   * the old one reaches it for {@code grace} more. Off (null) by default. session-policies.md.
   */
  public LazyRedisSessionRepositoryBuilder idRenewal(@Nullable Duration interval, Duration grace) {
    this.idRenewalInterval = interval;
    this.idRenewalGrace = grace;
    return policies();
  }

  /** Checks the policies as they now stand; the settings named in the message. */
  private LazyRedisSessionRepositoryBuilder policies() {
    sessionPolicies();
    return this;
  }

  SessionPolicies sessionPolicies() {
    return new SessionPolicies(absoluteTimeout, anonymousTimeout, defaultMaxInactiveInterval,
        idRenewalInterval, idRenewalGrace);
  }

  /** At most this many live sessions per principal, atomically; none (null) by default. */
  public LazyRedisSessionRepositoryBuilder sessionLimit(@Nullable SessionLimit limit) {
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
          + "lazysession.encryption.accept-unprotected=false (the default with keys) refuses: set "
          + "accept-unprotected=true until the migration is over, then remove migrate-from and "
          + "accept-unprotected");
    }
    return RepositoryWiring.open(this);
  }
}
