package io.lazysession.redis;

import static io.lazysession.redis.RedisSessionStore.utf8;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.reactive.RedisClusterReactiveCommands;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The reactive counterpart of {@link RedisSessionStore}: the same commands, scripts, arguments and
 * reply parsing (delegated to {@link RedisSessionStore} and {@link ScriptReplies}, which stay the
 * one owner of the protocol), sent through Lettuce's reactive API so that no thread waits for Redis.
 * Each method is lazy: nothing is sent until the result is subscribed to. Answers arrive on Lettuce's
 * event-loop threads. Thread-safe.
 *
 * <p>A NOSCRIPT answer is handled as the blocking store does: the call is repeated once with EVAL.
 * Finds use the Redis 7 function the blocking store registered, as it does.
 */
final class ReactiveRedisSessionStore {
  private final RedisClusterReactiveCommands<byte[], byte[]> commands;
  private final RedisSessionStore store;
  private final SessionKeys keys;
  private final MetricsRecorder metrics;

  ReactiveRedisSessionStore(RedisClusterReactiveCommands<byte[], byte[]> commands,
      RedisSessionStore store, MetricsRecorder metrics) {
    this.commands = commands;
    this.store = store;
    this.keys = store.keys();
    this.metrics = metrics;
  }

  SessionKeys keys() {
    return keys;
  }

  /**
   * As {@link RedisSessionStore#find}: empty when the hash is missing or incomplete. Calls find.lua
   * as the function {@value FindFunction#NAME} where the blocking store registered it, else by SHA;
   * a function that disappeared sends this call, and every later find of this repository, by SHA
   * (registering it again would block).
   */
  Mono<StoredSession> find(String id, NearCache.@Nullable Snapshot cached) {
    if (!keys.fallsBack()) {
      return Mono.defer(() -> findAt(id, cached)); // naming it may fail: keyed names unavailable
    }
    // A rollout of keyed names: a miss under one name is looked up under the other.
    return Mono.defer(() -> findAt(id, cached)).switchIfEmpty(Mono.defer(() -> {
      boolean keyed = keys.keyed(id);
      keys.locate(id, !keyed);
      return findAt(id, null).switchIfEmpty(Mono.fromRunnable(() -> keys.locate(id, keyed)));
    }));
  }

  private Mono<StoredSession> findAt(String id, NearCache.@Nullable Snapshot cached) {
    byte[][] scriptKeys = {keys.session(id)};
    byte[][] arguments = RedisSessionStore.findArguments(cached);
    Mono<List<Object>> answer = !store.findsByFunction()
        ? eval(RedisScript.FIND, ScriptOutputType.MULTI, scriptKeys[0], arguments)
        : Mono.defer(() -> {
          metrics.roundTrips.increment();
          return commands.<List<Object>>fcall(FindFunction.NAME, ScriptOutputType.MULTI,
              scriptKeys, arguments).next();
        }).onErrorResume(RedisSessionStore::isFunctionMissing, e -> {
          metrics.scriptReloads.increment();
          store.findFunctionMissing();
          return eval(RedisScript.FIND, ScriptOutputType.MULTI, scriptKeys[0], arguments);
        });
    return answer.flatMap(found -> Mono.justOrEmpty(store.findAnswer(id, found, cached)));
  }

  /**
   * As {@link RedisSessionStore#save}: the new version, 0, -1 or a pack conflict; where the session
   * now is ({@link SessionRenaming#followedReactive}).
   */
  Mono<SaveResult> save(String id, SaveRequest request) {
    return SessionRenaming.followedReactive(keys, id, request, () -> Mono.defer(() -> this
        .<List<Object>>eval(RedisScript.SAVE, ScriptOutputType.MULTI, keys.session(id),
            store.saveArguments(id, request)))
        .map(ScriptReplies::save)
        .defaultIfEmpty(new SaveResult(0, -1, null)));
  }

  /** As {@link RedisSessionStore#delete}: empty when there was nothing live to delete. */
  Mono<ScriptReplies.DeletedHash> delete(String id, long nowMillis, boolean all) {
    return Mono.defer(() -> this.<List<Object>>eval(RedisScript.DELETE, ScriptOutputType.MULTI,
        keys.session(id), store.deleteArguments(nowMillis, all)))
        .filter(answer -> !RedisSessionStore.isNil(answer))
        .map(answer -> ScriptReplies.deletedHash(
            store.countedRead(ScriptReplies.elements(answer)), store.protection().of(id)));
  }

  /** As {@link RedisSessionStore#aliasOf}: empty when {@code id} is no alias within its grace. */
  Mono<String> aliasOf(String id, long nowMillis) {
    return Mono.defer(() -> {
      metrics.roundTrips.increment();
      return commands.hmget(keys.session(id), IdRenewal.ALIAS_FIELDS).collectList()
          .mapNotNull(fields -> IdRenewal.aliasTarget(id, fields, nowMillis, keys));
    });
  }

  /** As {@link RedisSessionStore#metadata}. */
  Mono<SessionMetadata> metadata(String id) {
    return Mono.defer(() -> {
      metrics.roundTrips.increment();
      return commands.hmget(keys.session(id), RedisSessionStore.METADATA_FIELDS)
          .map(value -> value.hasValue() ? value.getValue() : new byte[0])
          .collectList()
          .map(values -> {
            List<byte @Nullable []> result = new ArrayList<>(values.size());
            for (byte[] value : values) {
              result.add(value.length == 0 ? null : value);
            }
            return ScriptReplies.storedMetadata(result, store.protection().of(id));
          });
    });
  }

  /** As {@link SessionIndexes#sessionExists}. */
  Mono<Boolean> sessionExists(String id) {
    return Mono.defer(() -> {
      metrics.roundTrips.increment();
      return commands.exists(keys.session(id)).map(exists -> exists > 0);
    });
  }

  /** As {@link SessionIndexes#bucketed}. */
  boolean bucketed() {
    return store.indexes().bucketed();
  }

  /** As {@link SessionIndexes#scheduleExpiry(String, long)}: in the format this node writes. */
  Mono<Void> scheduleExpiry(String id, long dueMillis) {
    return Mono.defer(() -> {
      if (!store.indexes().bucketed()) {
        metrics.roundTrips.increment();
        return commands.zadd(keys.expirations(), (double) dueMillis, keys.member(id)).then();
      }
      ExpiryBuckets buckets = store.indexes().buckets();
      long minute = ExpiryBuckets.minute(dueMillis);
      return this.<Long>eval(RedisScript.SCHEDULE, ScriptOutputType.INTEGER,
          new byte[][] {buckets.zset(), buckets.bucket(minute)}, keys.member(id),
          ExpiryBuckets.dropAt(minute), RedisSessionStore.utf8("add")).then();
    });
  }

  /** As {@link SessionIndexes#scheduledExpiry}: empty when not on the schedule. */
  Mono<Long> scheduledExpiry(String id, long now) {
    return Mono.defer(() -> this.<Long>eval(RedisScript.SCHEDULED, ScriptOutputType.INTEGER,
        store.indexes().buckets().zsetAndInFlight(now), keys.member(id),
        RedisSessionStore.utf8(Long.toString(ExpiryBuckets.minute(now)))));
  }

  /** As {@link SessionIndexes#recentlyAdmitted}. */
  Mono<Boolean> recentlyAdmitted(String principalName, String id) {
    return Mono.defer(() -> {
      metrics.roundTrips.increment();
      return commands.hget(SessionLimiter.admissionsKey(keys.principal(principalName, id)),
          keys.member(id)).map(admission -> !SessionIndexes.isTombstone(admission))
          .defaultIfEmpty(false);
    });
  }

  /** As {@link SessionIndexes#unscheduleExpiry(String, long)}: true when it was on the schedule. */
  Mono<Boolean> unscheduleExpiry(String id, long now) {
    if (!store.indexes().bucketed()) {
      return Mono.defer(() -> {
        metrics.roundTrips.increment();
        return commands.zrem(keys.expirations(), keys.member(id)).map(removed -> removed > 0)
            .defaultIfEmpty(false);
      });
    }
    return Mono.defer(() -> this.<List<Object>>eval(RedisScript.UNSCHEDULE,
        ScriptOutputType.MULTI, store.indexes().buckets().zsetAndInFlight(now), keys.member(id))
        .map(removed -> removed.stream().anyMatch(count -> count instanceof Long n && n > 0))
        .defaultIfEmpty(false));
  }

  /** As {@link RedisSessionStore#addToPrincipal}: true when the id was not there yet. */
  Mono<Boolean> addToPrincipal(String principalName, String id, @Nullable Long ttlMillis) {
    if (ttlMillis != null) {
      return Mono.defer(() -> this.<Long>eval(RedisScript.PRINCIPAL_ADD, ScriptOutputType.INTEGER,
          keys.principal(principalName, id), keys.member(id), utf8(Long.toString(ttlMillis))))
          .map(added -> added > 0).defaultIfEmpty(false);
    }
    return Mono.defer(() -> {
      metrics.roundTrips.increment();
      return commands.sadd(keys.principal(principalName, id), keys.member(id)).map(added -> added > 0)
          .defaultIfEmpty(false);
    });
  }

  Mono<Void> removeFromPrincipal(String principalName, String id) {
    return Mono.defer(() -> {
      metrics.roundTrips.increment();
      return commands.srem(keys.principal(principalName, id), keys.member(id)).then();
    });
  }

  Flux<String> principalSessions(String principalName) {
    return Flux.defer(() -> {
      return Flux.fromIterable(keys.principals(principalName)).concatMap(key -> {
        metrics.roundTrips.increment();
        return commands.smembers(key);
      })
          .<String>handle((member, sink) -> {
            String id = keys.idOf(member); // null: a member that fails its check
            if (id != null) {
              sink.next(id);
            }
          }).distinct();
    });
  }

  /**
   * EVALSHA, and EVAL once when Redis lost the script. The answer of a script that returns nil
   * completes empty.
   */
  private <T> Mono<T> eval(RedisScript script, ScriptOutputType type, byte[] key,
      byte[]... arguments) {
    return eval(script, type, new byte[][] {key}, arguments);
  }

  /** As {@link #eval(RedisScript, ScriptOutputType, byte[], byte[]...)}, with several keys. */
  private <T> Mono<T> eval(RedisScript script, ScriptOutputType type, byte[][] scriptKeys,
      byte[]... arguments) {
    return Mono.defer(() -> {
      metrics.roundTrips.increment();
      return commands.<T>evalsha(script.sha(), type, scriptKeys, arguments).next();
    }).onErrorResume(RedisNoScriptException.class, e -> Mono.defer(() -> {
      metrics.scriptReloads.increment();
      metrics.roundTrips.increment();
      return commands.<T>eval(script.source(), type, scriptKeys, arguments).next();
    }));
  }
}
