package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.session.FlushMode;
import org.springframework.session.SessionIdGenerator;

/**
 * The collaborators of one {@link LazyRedisSessionRepository}, built once from its builder's
 * settings (docs/architecture.md says which does what). Immutable.
 *
 * @param migration null unless the repository takes over Spring Session Data Redis's sessions
 */
record RepositoryWiring(SharedCollaborators shared, SessionReader reader, SessionWriter writer,
    @Nullable SpringSessionDataRedisMigration migration, SessionSizeWatch sizes) {
  private static final Logger LOG = LoggerFactory.getLogger(RepositoryWiring.class);

  /**
   * Connects as {@code builder} says and builds the repository.
   *
   * @throws IllegalArgumentException naming the setting when tracked reads cannot work here
   * @throws IllegalStateException when Redis cannot be reached
   */
  static LazyRedisSessionRepository open(LazyRedisSessionRepositoryBuilder builder) {
    warnWhileAcceptingUnprotected(builder.encryption, builder.namespace);
    AttributeSerializer serializer = builder.serializer == null
        ? AttributeSerializer.builder().build() : builder.serializer;
    NearCacheTracking tracks = builder.nearCacheTracking == null ? null : NearCacheTracking.checked(
        builder.nearCacheTracking, builder.client == null, builder.nearCacheMaxBytes);
    NearCache nearCache = new NearCache(builder.nearCacheMaxBytes, tracks);
    boolean durable = builder.durabilityReplicas > 0;
    // A command connection that dropped reconnects to wherever the client finds the primary now;
    // the tracking connection must follow it (its invalidations only cover its own server).
    Runnable onReset = tracks == null ? nearCache::reset : () -> {
      nearCache.reset();
      tracks.reopenRequested();
    };
    SessionConnection connection;
    DeferredConnection deferred = null;
    try {
      connection = builder.connector.connect(durable, onReset);
    } catch (IllegalStateException e) {
      if (builder.requireRedisAtStartup || DeferredConnection.isRefusal(e)) {
        throw e;
      }
      deferred = new DeferredConnection(() -> builder.connector.connect(durable, onReset),
          builder.client == null, String.valueOf(e.getMessage()), builder.namespace);
      connection = deferred;
    }
    TrackingConnection tracking = null;
    try {
      tracking = tracks == null || builder.client == null || deferred != null ? null
          : TrackingConnection.open(builder.client, builder.namespace, tracks);
      LazyRedisSessionRepository repository =
          new LazyRedisSessionRepository(builder, serializer, connection, nearCache, tracking);
      if (tracks != null) {
        repository.shared().store().keys().markSaves(tracks::nextSaveMark);
        if (builder.encryption != null) {
          tracks.nameTokens(repository.shared().store().keys()::nameToken);
        }
      }
      if (deferred != null) {
        startDeferred(deferred, repository.shared(), builder, tracks);
      }
      return repository;
    } catch (RuntimeException e) {
      if (tracking != null) {
        tracking.close();
      }
      connection.close();
      throw e;
    }
  }

  /**
   * Redis could not be reached at startup: says so once, and once the connection opens, does what
   * startup skipped (loading the scripts, opening the tracking connection) and says that Redis is
   * back.
   */
  private static void startDeferred(DeferredConnection deferred, SharedCollaborators shared,
      LazyRedisSessionRepositoryBuilder builder, @Nullable NearCacheTracking tracks) {
    shared.metrics().outage.unavailableAtStartup(deferred.why());
    deferred.start(opened -> {
      try {
        shared.store().keys().loadNames();
      } catch (RuntimeException e) {
        // Requests needing keyed names fail as unavailable, and try again, until it works.
        NamesKey.log.error("lazysession connected to Redis but cannot serve sessions under keyed "
            + "names: {}", e.getMessage());
      }
      try {
        shared.store().loadScripts(!builder.expiryEvents);
        SessionLimiter.loadScript(opened, builder.sessionLimit);
      } catch (RuntimeException e) {
        // Not needed to serve: a script Redis lacks is sent whole on first use (NOSCRIPT).
      }
      EvictionPolicyCheck.report(opened.commands());
      shared.store().format().announceSoon();
      shared.metrics().outage.available();
      return tracks == null || builder.client == null ? null
          : TrackingConnection.open(builder.client, builder.namespace, tracks);
    });
  }

  /**
   * Key names: in clear without keys; with keys, keyed names ({@link NamesKey} reads their secret
   * from Redis) for the sessions this node creates unless it still writes unprotected values, and
   * the other names looked up on a miss while unprotected values are accepted (a rollout:
   * docs/security.md).
   */
  static SessionKeys keys(LazyRedisSessionRepositoryBuilder builder,
      SessionConnection connection) {
    SessionEncryption encryption = builder.encryption;
    if (encryption == null) {
      return new SessionKeys(builder.namespace);
    }
    return new SessionKeys(builder.namespace,
        () -> NamesKey.load(connection.commands(), builder.namespace, encryption.keys()),
        !encryption.writeUnprotected(), encryption.acceptUnprotected());
  }

  /** Loads the scripts (once connected) and builds the collaborators of {@code repository}. */
  static RepositoryWiring wire(LazyRedisSessionRepository repository,
      LazyRedisSessionRepositoryBuilder builder, AttributeSerializer serializer,
      SessionConnection connection, NearCache nearCache, @Nullable TrackingConnection tracking) {
    MetricsRecorder metrics = new MetricsRecorder();
    ValueProtection protection = builder.encryption == null ? ValueProtection.NONE
        : new ValueProtection(builder.namespace, builder.encryption, metrics);
    SessionPolicies policies = builder.sessionPolicies();
    RedisSessionStore store = new RedisSessionStore(connection, keys(builder, connection),
        metrics, protection, policies.absoluteMillis());
    if (!(connection instanceof DeferredConnection deferred) || deferred.isOpen()) {
      store.keys().loadNames();
      store.loadScripts(!builder.expiryEvents);
      SessionLimiter.loadScript(connection, builder.sessionLimit);
      EvictionPolicyCheck.report(connection.commands());
    }
    SessionIdGenerator ids =
        builder.idGenerator != null ? builder.idGenerator : new CompactSessionIdGenerator();
    SharedDictionary dictionary = new SharedDictionary(connection, builder.namespace, protection,
        store.format(), serializer, builder.dictionarySettings);
    store.dictionary(dictionary);
    dictionary.onNewDictionary(nearCache::reset);
    SessionContext context = SessionContext.of(dictionary::serializer, protection, ids, builder.clock,
        new DecodeFailureHandler(builder.decodeFailurePolicy, metrics),
        builder.flushMode == FlushMode.IMMEDIATE ? repository::save : null, policies);
    TouchPolicy touch = new TouchPolicy(builder.touchInterval, builder.defaultMaxInactiveInterval);
    SessionEvents events = new SessionEvents(repository, builder.eventPublisher,
        DestroyedSession.context(dictionary.reading(), protection, builder.clock, metrics));
    PrincipalIndex principals =
        new PrincipalIndex(store, builder.clock, !builder.expiryEvents, builder.expiryGrace);
    SpringSessionDataRedisMigration migration = builder.migrateFrom == null ? null
        : new SpringSessionDataRedisMigration(builder.migrateFrom, connection, store, metrics,
            dictionary.reading());
    SessionReader reader = new SessionReader(store, nearCache, metrics, context, migration);
    Durability durability = new Durability(builder.durabilityReplicas, builder.durabilityTimeout);
    ExpirySweeper expiry = new ExpirySweeper(store, nearCache, principals, events, metrics,
        builder.clock, builder.cleanupInterval, builder.expiryEvents, policies, durability);
    ExpirySweep.checkGrace(builder.expiryEvents, builder.expiryGrace, builder.cleanupInterval);
    SessionSizeWatch sizes = new SessionSizeWatch(builder.sessionBudget, store.keys());
    SessionWriter writer = new SessionWriter(store, nearCache, metrics, principals, expiry, events,
        touch, builder.clock, builder.expiryGrace, durability, migration, sizes);
    SessionLimiter limiter = new SessionLimiter(builder.sessionLimit, connection, store, expiry,
        principals, metrics, builder.clock, policies);
    IdRenewal renewal = new IdRenewal(context, store, writer, reader, expiry, principals, limiter,
        durability);
    SharedCollaborators shared = new SharedCollaborators(connection, store, nearCache, metrics,
        context, principals, expiry, events, touch, builder.defaultMaxInactiveInterval,
        builder.expiryGrace, builder.durabilityReplicas, migration != null, ids,
        tracking, sizes, renewal, limiter);
    dictionary.start(); // reads the namespace's dictionaries now; polls on a thread of its own
    store.format().start(); // last: nothing after it can fail and leave its thread running
    return new RepositoryWiring(shared, reader, writer, migration, sizes);
  }

  /**
   * Keys with {@code accept-unprotected}: a rollout setting under which a writer of Redis is as
   * powerful as without keys; said at every start until it is turned off.
   */
  static void warnWhileAcceptingUnprotected(@Nullable SessionEncryption encryption,
      String namespace) {
    if (encryption != null && encryption.acceptUnprotected()) {
      LOG.warn("lazysession (namespace {}): encryption keys are set but values stored without "
          + "protection are still read (lazysession.encryption.accept-unprotected=true): until it "
          + "is off, anyone who can write to Redis can plant a session. Meant only while turning "
          + "protection on or off: set it to false once reencrypt() reports nothing remaining "
          + "(docs/security.md, \"Rollout\")", namespace);
    }
  }
}
