package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import org.jspecify.annotations.Nullable;
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

  /**
   * Connects as {@code builder} says and builds the repository.
   *
   * @throws IllegalArgumentException naming the setting when tracked reads cannot work here
   * @throws IllegalStateException when Redis cannot be reached
   */
  static LazyRedisSessionRepository open(LazyRedisSessionRepository.Builder builder) {
    AttributeSerializer serializer = builder.serializer == null
        ? AttributeSerializer.builder().build() : builder.serializer;
    NearCacheTracking tracks = builder.nearCacheTracking == null ? null : NearCacheTracking.checked(
        builder.nearCacheTracking, builder.client == null, builder.nearCacheMaxBytes);
    NearCache nearCache = new NearCache(builder.nearCacheMaxBytes, tracks);
    SessionConnection connection =
        builder.connector.connect(builder.durabilityReplicas > 0, nearCache::reset);
    TrackingConnection tracking = null;
    try {
      tracking = tracks == null || builder.client == null ? null
          : TrackingConnection.open(builder.client, builder.namespace, tracks);
      return new LazyRedisSessionRepository(builder, serializer, connection, nearCache, tracking);
    } catch (RuntimeException e) {
      if (tracking != null) {
        tracking.close();
      }
      connection.close();
      throw e;
    }
  }

  /** Loads the scripts and builds the collaborators of {@code repository}. */
  static RepositoryWiring wire(LazyRedisSessionRepository repository,
      LazyRedisSessionRepository.Builder builder, AttributeSerializer serializer,
      SessionConnection connection, NearCache nearCache, @Nullable TrackingConnection tracking) {
    MetricsRecorder metrics = new MetricsRecorder();
    RedisSessionStore store =
        new RedisSessionStore(connection, new SessionKeys(builder.namespace), metrics);
    store.loadScripts(!builder.expiryEvents);
    SessionIdGenerator ids =
        builder.idGenerator != null ? builder.idGenerator : new CompactSessionIdGenerator();
    SessionContext context = SessionContext.of(serializer, ids, builder.clock,
        new DecodeFailureHandler(builder.decodeFailurePolicy, metrics),
        builder.flushMode == FlushMode.IMMEDIATE ? repository::save : null);
    TouchPolicy touch = new TouchPolicy(builder.touchInterval, builder.defaultMaxInactiveInterval);
    SessionEvents events = new SessionEvents(repository, builder.eventPublisher,
        DestroyedSession.context(serializer, builder.clock, metrics));
    PrincipalIndex principals =
        new PrincipalIndex(store, builder.clock, !builder.expiryEvents, builder.expiryGrace);
    SpringSessionDataRedisMigration migration = builder.migrateFrom == null ? null
        : new SpringSessionDataRedisMigration(builder.migrateFrom, connection, metrics, serializer);
    SessionReader reader = new SessionReader(store, nearCache, metrics, context, migration);
    ExpirySweeper expiry = new ExpirySweeper(store, nearCache, principals, events, metrics,
        builder.clock, builder.cleanupInterval, builder.expiryEvents);
    SessionSizeWatch sizes = new SessionSizeWatch(builder.sessionBudget, store.keys());
    SessionWriter writer = new SessionWriter(store, nearCache, metrics, principals, expiry, events,
        touch, builder.clock, builder.expiryGrace,
        new SessionWriter.Durability(builder.durabilityReplicas, builder.durabilityTimeout),
        migration, sizes);
    SharedCollaborators shared = new SharedCollaborators(connection, store, nearCache, metrics,
        context, principals, expiry, events, touch, builder.defaultMaxInactiveInterval,
        builder.expiryGrace, builder.durabilityReplicas, migration != null, ids,
        tracking, sizes);
    return new RepositoryWiring(shared, reader, writer, migration, sizes);
  }
}
