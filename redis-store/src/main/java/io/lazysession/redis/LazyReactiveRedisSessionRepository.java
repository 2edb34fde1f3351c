package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.SerializationException;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.ReactiveFindByIndexNameSessionRepository;
import org.springframework.session.ReactiveSessionRepository;
import org.springframework.session.SessionIdGenerator;
import org.springframework.session.UuidSessionIdGenerator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The reactive face of a {@link LazyRedisSessionRepository}, for Spring WebFlux's
 * {@code WebSession} (through Spring Session's {@code @EnableSpringWebSession}) and anything else
 * that speaks {@link ReactiveSessionRepository}: the same Redis layout, scripts, codecs, lazy
 * attributes, near cache, expiry schedule, principal index and events, over the same connection,
 * with Lettuce's reactive API. A servlet node and a reactive node share sessions.
 *
 * <pre>{@code
 * LazyRedisSessionRepository sessions = LazyRedisSessionRepository.builder(client)...build();
 * LazyReactiveRedisSessionRepository reactive = LazyReactiveRedisSessionRepository.of(sessions);
 * }</pre>
 *
 * <p>No method blocks: each returns a lazy publisher, nothing is sent before it is subscribed to,
 * and answers are handled on Lettuce's event-loop threads; the memory-only steps that follow an
 * answer (building a session, near-cache bookkeeping, publishing events to the application's
 * publisher) run there too, so event listeners must not block. Attributes are decoded on the thread
 * that reads them, when it reads them, as with the servlet repository; a save re-encodes the
 * attributes that were read (to detect in-place changes) on the thread that subscribes to it.
 * The expiry sweep stays on the servlet repository's own background thread;
 * {@link #cleanUpExpiredSessions} runs it on {@link Schedulers#boundedElastic()}.
 *
 * <p>Session ids: the servlet repository's generator, which by default never blocks, since WebFlux
 * changes a session's id on an event loop ({@link LazySession#changeSessionId()} through Spring
 * Session's {@code WebSession}). Spring Session's {@code UuidSessionIdGenerator}, which may block,
 * is replaced by one that makes the same UUIDs without blocking. An application's own
 * {@code SessionIdGenerator} must not block either.
 *
 * <p>Failures: as the servlet repository, errors are {@link SessionStoreUnavailableException} or
 * {@link SessionStoreException}, signalled through the publisher.
 *
 * <p>Not yet supported (refused by {@link #of}): durability (WAIT after a save) and the take-over
 * of Spring Session Data Redis's sessions.
 *
 * <p>Thread-safe. Closing is done through the servlet repository it was made from.
 */
public final class LazyReactiveRedisSessionRepository
    implements ReactiveFindByIndexNameSessionRepository<LazySession>,
    ReactiveSessionRepository<LazySession> {
  private final LazyRedisSessionRepository repository;
  private final ReactiveRedisSessionStore store;
  private final ReactiveSessionWriter writer;
  private final NearCache nearCache;
  private final MetricsRecorder metrics;
  private final SessionContext context;
  private final @Nullable SharedDictionary dictionary;
  private final PrincipalIndex principals;
  private final IdRenewal renewal;
  private final SessionLimiter limiter;
  /** Whether ids come from a generator of lazysession's own, known not to block. */
  private final boolean nonBlockingIds;

  private LazyReactiveRedisSessionRepository(LazyRedisSessionRepository repository,
      SharedCollaborators shared) {
    this.repository = repository;
    this.metrics = shared.metrics();
    this.dictionary = shared.store().dictionary();
    this.store = new ReactiveRedisSessionStore(shared.connection().reactive(), shared.store(),
        metrics);
    this.writer = new ReactiveSessionWriter(store, shared);
    this.nearCache = shared.nearCache();
    // The default generator never blocks; Spring's UUIDs are made by one that never blocks either
    // (see NonBlockingUuidGenerator); an application's own generator is used as it is, and
    // trusted not to block.
    SessionIdGenerator configured = shared.idGenerator();
    boolean uuids = configured instanceof UuidSessionIdGenerator;
    this.nonBlockingIds = uuids || configured instanceof CompactSessionIdGenerator;
    this.context = uuids ? withIds(shared.context(), new NonBlockingUuidGenerator())
        : shared.context();
    this.principals = shared.principals();
    this.renewal = shared.renewal();
    this.limiter = shared.limiter();
  }

  /**
   * The reactive face of {@code repository}, sharing its connection, near cache, expiry sweep and
   * counters.
   *
   * @throws IllegalArgumentException when {@code repository} is configured with something the
   *     reactive face cannot do yet (durability, migration), naming the setting
   */
  public static LazyReactiveRedisSessionRepository of(LazyRedisSessionRepository repository) {
    Objects.requireNonNull(repository, "repository must not be null");
    SharedCollaborators shared = repository.shared();
    if (shared.durabilityReplicas() > 0) {
      throw new IllegalArgumentException("the reactive session repository does not support "
          + "durability yet (waiting for " + shared.durabilityReplicas() + " replica(s)); set "
          + "lazysession.durability.replicas to 0 (Builder.durability(0, ...)) for a WebFlux app");
    }
    if (shared.context().flushesImmediately()) {
      throw new IllegalArgumentException("the reactive session repository saves a WebSession when "
          + "the exchange completes, never from setAttribute on an event loop; remove "
          + "spring.session.data.redis.flush-mode=immediate (Builder.flushMode(ON_SAVE)) for a "
          + "WebFlux app");
    }
    if (shared.tracking() != null) {
      throw new IllegalArgumentException("the reactive session repository does not serve tracked "
          + "reads yet; set lazysession.near-cache.mode=validate (Builder.nearCacheTracking(null)) "
          + "for a WebFlux app");
    }
    if (shared.migrating()) {
      throw new IllegalArgumentException("the reactive session repository does not take over "
          + "Spring Session Data Redis's sessions yet; remove lazysession.migrate-from "
          + "(Builder.migrateFrom(null)) for a WebFlux app");
    }
    return new LazyReactiveRedisSessionRepository(repository, shared);
  }

  /**
   * A new session, not yet stored (no Redis call). With a
   * {@linkplain LazyRedisSessionRepositoryBuilder#sessionIdGenerator session id generator} of the
   * application's own, made on {@link Schedulers#boundedElastic()}, in case it blocks.
   */
  @Override
  public Mono<LazySession> createSession() {
    Mono<LazySession> created = Mono.fromSupplier(() -> new LazySession(context,
        context.newSessionId(), context.now(), context.policies().timeoutOfNew()));
    return nonBlockingIds ? created : created.subscribeOn(Schedulers.boundedElastic());
  }

  /**
   * Loads a session in one round trip; empty when it does not exist, has expired, or is incomplete
   * in Redis. Attributes are not decoded here.
   */
  @Override
  public Mono<LazySession> findById(String id) {
    if (!SessionKeys.isPlausibleId(id)) {
      return Mono.empty();
    }
    return translated("findById", id, find(id, 0).flatMap(this::renewIfDue));
  }

  /** Writes what changed, as {@link LazyRedisSessionRepository#save} does. */
  @Override
  public Mono<Void> save(LazySession session) {
    Objects.requireNonNull(session, "session must not be null");
    return Mono.defer(() -> {
      // First, as in the servlet repository: resolving the principal may decode attributes and
      // apply the decode failure policy, which what is written must reflect.
      PrincipalChange principal = session.invalidated() ? PrincipalChange.UNCHANGED
          : principals.changeOf(session);
      metrics.count(session.inflation());
      if (session.invalidated()) {
        return session.isNew() ? Mono.<Void>empty() : deleteById(session.storedId());
      }
      context.policies().beforeSave(session, principal);
      return limiter.save(session, principal, writer::save).onErrorMap(RedisException.class, e -> {
        nearCache.invalidate(session.getId());
        nearCache.invalidate(session.storedId());
        return metrics.outage.translate("save", session.getId(), e);
      }).doOnSuccess(saved -> metrics.outage.available());
    });
  }

  /** Deletes a live session, as {@link LazyRedisSessionRepository#deleteById} does. */
  @Override
  public Mono<Void> deleteById(String id) {
    if (!SessionKeys.isPlausibleId(id)) {
      return Mono.empty();
    }
    return translated("deleteById", id, Mono.defer(() -> {
      nearCache.invalidate(id);
      return writer.delete(id);
    })).then();
  }

  /**
   * Sessions by principal name (index {@link #PRINCIPAL_NAME_INDEX_NAME}, or
   * {@link FindByIndexNameSessionRepository#PRINCIPAL_NAME_INDEX_NAME}, the servlet interface's name
   * of the same index); other index names find nothing. Index entries of sessions that are gone are removed on the way, as
   * {@link LazyRedisSessionRepository#findByIndexNameAndIndexValue} does.
   */
  @Override
  public Mono<Map<String, LazySession>> findByIndexNameAndIndexValue(String indexName,
      String indexValue) {
    if (!PRINCIPAL_NAME_INDEX_NAME.equals(indexName)
        && !FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME.equals(indexName)) {
      return Mono.just(Collections.emptyMap());
    }
    Mono<Map<String, LazySession>> found = store.principalSessions(indexValue)
        .concatMap(id -> SessionKeys.isPlausibleId(id)
            ? find(id, 0).map(session -> new Entry(id, session)).defaultIfEmpty(new Entry(id, null))
            : Mono.just(new Entry(id, null)))
        .concatMap(entry -> {
          if (entry.session() != null && indexValue.equals(entry.session().storedPrincipal())) {
            return Mono.just(entry);
          }
          Mono<Boolean> keep = entry.session() != null
              ? store.recentlyAdmitted(indexValue, entry.id()) // a stored session signing in
              : beingWritten(indexValue, entry.id()).flatMap(written -> written ? Mono.just(true)
                  : repository.shared().store().format().laterReactive(
                      store.keys().session(entry.id())));
          return keep.flatMap(kept -> kept ? Mono.<Entry>empty()
              : removeStale(indexValue, entry.id()).then(Mono.<Entry>empty()));
        })
        .collect(LinkedHashMap<String, LazySession>::new,
            (map, entry) -> map.put(entry.id(), Objects.requireNonNull(entry.session())))
        .map(map -> map.isEmpty() ? Collections.<String, LazySession>emptyMap() : map);
    return translated("findByIndexNameAndIndexValue", null, found);
  }

  /**
   * Runs the expiry sweep now, as {@link LazyRedisSessionRepository#cleanUpExpiredSessions}, on
   * {@link Schedulers#boundedElastic()} (the sweep is the servlet repository's, and blocks).
   */
  public Mono<Integer> cleanUpExpiredSessions() {
    return Mono.fromCallable(repository::cleanUpExpiredSessions)
        .subscribeOn(Schedulers.boundedElastic());
  }

  /** The servlet repository this is the reactive face of. */
  public LazyRedisSessionRepository servletRepository() {
    return repository;
  }

  /** What the repository has done so far, counted with the servlet repository's own calls. */
  public RepositoryMetrics metrics() {
    return repository.metrics();
  }

  /** {@code context}, with ids from {@code ids}. */
  private static SessionContext withIds(SessionContext context, SessionIdGenerator ids) {
    return new SessionContext() {
      @Override
      public AttributeSerializer serializer() {
        return context.serializer();
      }

      @Override
      public ValueProtection protection() {
        return context.protection();
      }

      @Override
      public String newSessionId() {
        return ids.generate();
      }

      @Override
      public Instant now() {
        return context.now();
      }

      @Override
      public void decodeFailed(LazySession session, String attributeName,
          SerializationException failure) {
        context.decodeFailed(session, attributeName, failure);
      }

      @Override
      public void changed(LazySession session) {
        // saved by save(), never from an event loop (flush mode IMMEDIATE is refused by of())
      }

      @Override
      public boolean flushesImmediately() {
        return false;
      }

      @Override
      public SessionPolicies policies() {
        return context.policies();
      }
    };
  }

  /** A principal index entry and the session it names, if it could be loaded. */
  private record Entry(String id, @Nullable LazySession session) {}

  /**
   * As the servlet {@code findById}: a session due for a new id gets it ({@link IdRenewal}). The
   * renewal blocks (the servlet writer's steps): it runs on {@link Schedulers#boundedElastic()},
   * once per renewal interval and session.
   */
  private Mono<LazySession> renewIfDue(LazySession session) {
    if (!renewal.due(session, context.now())) {
      return Mono.just(session);
    }
    return Mono.fromCallable(() -> renewal.renewIfDue(session))
        .subscribeOn(Schedulers.boundedElastic());
  }

  /**
   * As {@link SessionReader#find}, without the migration hooks (refused by {@link #of}); through
   * at most 3 aliases of renewed ids ({@code hops} followed so far).
   */
  private Mono<LazySession> find(String id, int hops) {
    return Mono.defer(() -> {
      long epoch = nearCache.epoch();
      NearCache.Snapshot cached = nearCache.get(id);
      return store.find(id, cached)
          .flatMap(stored -> {
            if (stored.unchanged() && nearCache.epoch() != epoch) {
              // A connection dropped while the call was out (see SessionReader): load the hash.
              long reloadEpoch = nearCache.epoch();
              return store.find(id, null).map(reloaded -> new Loaded(reloaded, reloadEpoch));
            }
            return Mono.just(new Loaded(stored, epoch));
          })
          .flatMap(loaded -> {
            metrics.loads.increment();
            Mono<Optional<LazySession>> built = Mono.fromSupplier(
                () -> Optional.ofNullable(session(id, loaded.stored(), loaded.epoch())));
            // A pack to read (decompressed, opened with encryption keys: up to the value limit)
            // is read on Reactor's parallel threads, never on Lettuce's event loop, which serves
            // every connection; a confirmed near-cache copy has its pack read already.
            if (loaded.stored().pack().read()) {
              return built;
            }
            // A pack naming a dictionary this node lacks: loaded in the background (never on
            // these threads), then the session is read again, before anyone sees it hidden.
            Mono<Optional<LazySession>> expanded = built.subscribeOn(Schedulers.parallel());
            if (dictionary == null) {
              return expanded;
            }
            long held = dictionary.generation();
            return expanded.flatMap(found -> {
              if (found.isEmpty() || found.get().storedPack().unreadable() == null) {
                return Mono.just(found);
              }
              java.util.concurrent.CompletableFuture<Void> loads = dictionary.loads();
              return loads != null ? Mono.fromFuture(loads).then(expanded)
                  : dictionary.generation() != held ? expanded : Mono.just(found);
            });
          })
          .switchIfEmpty(Mono.defer(() -> {
            metrics.loads.increment();
            nearCache.invalidate(id); // missing, or a hash without complete metadata
            return context.policies().idRenewalInterval() == null || hops >= SessionReader.ALIAS_HOPS ? Mono.empty()
                : store.aliasOf(id, context.now().toEpochMilli())
                    .flatMap(renewedTo -> find(renewedTo, hops + 1)).map(Optional::of);
          }))
          .flatMap(Mono::justOrEmpty);
    });
  }

  private record Loaded(StoredSession stored, long epoch) {}

  private @Nullable LazySession session(String id, StoredSession loaded, long epoch) {
    StoredSession stored = AttributePacking.expand(context.serializer(), context.protection(), id,
        loaded);
    if (stored.unchanged()) {
      metrics.nearCacheHits.increment();
    } else if (nearCache.enabled()) {
      nearCache.put(id, new NearCache.Snapshot(stored.version(), stored.creation(),
          Collections.unmodifiableMap(stored.attributes()), epoch, null, stored.pack(),
          NearCacheTracking.UNTRUSTED, stored.renewed()));
    }
    LazySession session = new LazySession(context, id, Instant.ofEpochMilli(stored.creation()),
        Instant.ofEpochMilli(stored.lastAccess()), Duration.ofSeconds(stored.maxInactiveSeconds()),
        stored.version(), stored.principal(), epoch);
    if (session.isExpired(context.now())) {
      return null;
    }
    session.loaded(stored.attributes());
    session.renewed(stored.renewed());
    session.storedPack(stored.pack());
    return session;
  }

  /** As {@code PrincipalIndex.beingWritten}: a create or id change in flight keeps its entry. */
  private Mono<Boolean> beingWritten(String principal, String id) {
    long now = context.now().toEpochMilli();
    return store.scheduledExpiry(id, now).map(due -> due > now)
        .defaultIfEmpty(false)
        .flatMap(scheduled -> scheduled ? Mono.just(true)
            : store.recentlyAdmitted(principal, id));
  }

  /** As {@code PrincipalIndex.removeStale}: a save that set this principal meanwhile keeps it. */
  private Mono<Void> removeStale(String principal, String id) {
    return store.removeFromPrincipal(principal, id)
        .then(store.metadata(id))
        .flatMap(metadata -> principal.equals(metadata.principal())
            && metadata.maxInactiveSeconds() != null
            ? store.addToPrincipal(principal, id, principals.setTtl(metadata.maxInactiveSeconds()))
                .then()
            : Mono.empty());
  }

  /**
   * Turns Lettuce's exceptions into the store's own, and logs an outage once, as the servlet
   * repository does.
   */
  private <T> Mono<T> translated(String operation, @Nullable String id, Mono<T> call) {
    return call.onErrorMap(RedisException.class, e -> metrics.outage.translate(operation, id, e))
        .doOnSuccess(done -> metrics.outage.available());
  }
}
