package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RestoreArgs;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * Moves a session found under the name this node does not write to the one it writes: from its
 * clear id to its keyed name once keys are on, and back while protection is turned off
 * (docs/security.md, "Keyed names"). Run by {@link Reencryption}, so that when it reports nothing
 * remaining, every session is where nodes that no longer look under the other name find it.
 * Thread-safe (stateless but for its collaborators).
 *
 * <p>Design: the two names lie in different Cluster slots, so no script can move a session
 * atomically. The hash is copied (DUMP, RESTORE with its TTL; {@code #i} added or removed), then
 * the old hash is deleted only if its metadata field is still the one read before the copy (a
 * compare-and-delete in the old slot): a save in between keeps the session where it was, the copy
 * is removed the same way, and the session counts as remaining for the next run. A node that still
 * holds the session under the old name and saves after the rename finds it under the new one
 * ({@link #followed}). Schedule and
 * principal-set entries are added under the new name before those under the old one are removed.
 * Values need no resealing: they are bound to the session id, not to the key name.
 */
final class SessionRenaming {
  /** Deletes KEYS[1] only if its metadata field is ARGV[1]. */
  private static final String DELETE_IF_UNCHANGED = "if redis.call('hget', KEYS[1], '"
      + SessionKeys.METADATA + "') == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
  /**
   * The hash's DUMP, its metadata field, its TTL and its principal, read at one moment: the old hash
   * is deleted only while its metadata is what was copied, so the copy and that comparison must
   * see the same version (a save between a separate read and the DUMP would leave both hashes).
   */
  private static final String SNAPSHOT = "local f = redis.call('hget', KEYS[1], '"
      + RedisFormat.FIELD + "') if not " + RedisFormat.readableInLua("f") + " then return {false} end "
      + "return {redis.call('dump', KEYS[1]), redis.call('hget', "
      + "KEYS[1], '" + SessionKeys.METADATA + "'), redis.call('pttl', KEYS[1]), redis.call('hget', "
      + "KEYS[1], '" + SessionKeys.PRINCIPAL + "')}";
  private static final byte[] ID_FIELD = SessionKeys.ID.getBytes(UTF_8);

  private final SessionConnection connection;
  private final RedisSessionStore store;
  private final MetricsRecorder metrics;
  /** Test hook: runs between the copy and the compare-and-delete of the old hash. */
  private Runnable afterCopy = () -> { };
  /** Test hook: runs before the old hash is read to be copied. */
  private Runnable beforeCopy = () -> { };

  SessionRenaming(SessionConnection connection, RedisSessionStore store, MetricsRecorder metrics) {
    this.connection = connection;
    this.store = store;
    this.metrics = metrics;
  }

  /**
   * Sends {@code save} (of session {@code id}) again under the session's other name when it was an
   * update that found no session where the session is located, during a rollout: {@code
   * reencrypt()} on any node may have renamed it since this request loaded it. Found there, the
   * session stays located there; else the first answer stands (it was deleted or expired).
   */
  static SaveResult followed(SessionKeys keys, String id, SaveRequest request,
      Supplier<SaveResult> save) {
    SaveResult result = save.get();
    if (!missed(keys, request, result)) {
      return result;
    }
    boolean keyed = keys.keyed(id);
    keys.locate(id, !keyed);
    return foundThere(keys, id, keyed, result, save.get());
  }

  /** As {@link #followed}, for the reactive store. */
  static Mono<SaveResult> followedReactive(SessionKeys keys, String id, SaveRequest request,
      Supplier<Mono<SaveResult>> save) {
    return save.get().flatMap(result -> {
      if (!missed(keys, request, result)) {
        return Mono.just(result);
      }
      boolean keyed = keys.keyed(id);
      keys.locate(id, !keyed);
      return save.get().map(there -> foundThere(keys, id, keyed, result, there));
    });
  }

  /**
   * {@code attempt} (a delete or an id change's take of session {@code id}) where the session is
   * located and, when it found nothing there during a rollout, once more under the other name, as
   * {@link #followed} does for saves: {@code reencrypt()} on any node may have renamed it. Found
   * there, the session stays located there; else where it was, and the answer is null.
   */
  static <T> @Nullable T elsewhereToo(SessionKeys keys, String id, Supplier<@Nullable T> attempt) {
    T done = attempt.get();
    if (done != null || !keys.fallsBack()) {
      return done;
    }
    boolean keyed = keys.keyed(id);
    keys.locate(id, !keyed);
    done = attempt.get();
    if (done == null) {
      keys.locate(id, keyed);
    }
    return done;
  }

  /** As {@link #elsewhereToo}, for the reactive writer: {@code found} tells an answer that found it. */
  static <T> Mono<T> elsewhereTooReactive(SessionKeys keys, String id,
      Supplier<Mono<T>> attempt, java.util.function.Predicate<T> found) {
    return attempt.get().flatMap(done -> {
      if (found.test(done) || !keys.fallsBack()) {
        return Mono.just(done);
      }
      boolean keyed = keys.keyed(id);
      keys.locate(id, !keyed);
      return attempt.get().map(there -> {
        if (!found.test(there)) {
          keys.locate(id, keyed);
        }
        return there;
      });
    });
  }

  /** Whether {@code result} is an update's that found no session, during a rollout. */
  private static boolean missed(SessionKeys keys, SaveRequest request, SaveResult result) {
    return result.version() == 0 && request.mode() == SaveRequest.SaveMode.UPDATE
        && keys.fallsBack();
  }

  /** The answer under the other name; when it missed too, the first, the session put back. */
  private static SaveResult foundThere(SessionKeys keys, String id, boolean keyed,
      SaveResult first, SaveResult there) {
    if (there.version() == 0) {
      keys.locate(id, keyed);
      return first;
    }
    return there;
  }

  /** Test hook: {@code hook} runs after each copy, before the old hash is compared and deleted. */
  void afterCopy(Runnable hook) {
    this.afterCopy = hook;
  }

  /** Test hook: {@code hook} runs before each rename reads the hash it copies. */
  void beforeCopy(Runnable hook) {
    this.beforeCopy = hook;
  }

  /** Whether session {@code id}, located where it was found, is not where this node writes. */
  boolean misplaced(String id) {
    SessionKeys keys = store.keys();
    return keys.fallsBack() && keys.keyed(id) != keys.keyedByDefault();
  }

  /**
   * Moves session {@code id} (located where it was found) under the name this node writes; false
   * when it changed or went meanwhile (then it is where it was).
   */
  boolean rename(String id) {
    SessionKeys keys = store.keys();
    RedisClusterCommands<byte[], byte[]> commands = connection.commands();
    boolean from = keys.keyed(id);
    byte[] fromKey = keys.session(id);
    beforeCopy.run();
    metrics.roundTrips.increment();
    List<Object> snapshot = commands.eval(SNAPSHOT, ScriptOutputType.MULTI, fromKey);
    if (snapshot.size() < 4) {
      return false; // a later Redis format (RedisFormat): never moved by this version
    }
    byte[] dump = snapshot.get(0) instanceof byte[] bytes ? bytes : null;
    byte[] metadata = snapshot.get(1) instanceof byte[] bytes ? bytes : null;
    Long ttl = snapshot.get(2) instanceof Long millis ? millis : null;
    byte[] storedPrincipal = snapshot.get(3) instanceof byte[] bytes ? bytes : null;
    if (metadata == null || dump == null || ttl == null || ttl == -2) {
      return false;
    }
    String principal = store.protection().openPrincipal(id, storedPrincipal);
    // Format 2 keeps no due time per member: a member of a bucket further ahead than a write in
    // flight stays under its old name, which the sweep reads as well (SessionKeys.idOf).
    long now = System.currentTimeMillis();
    Long due = store.indexes().scheduledExpiry(id, now);
    byte[] fromSet = principal == null ? null : keys.principal(principal, from);
    // Every name below is given its location explicitly: the session's location is node-wide
    // (SessionKeys), and request threads saving it meanwhile must keep writing where it is until
    // the old hash is gone.
    byte[] toKey = keys.session(id, !from);
    try {
      metrics.roundTrips.add(2);
      commands.restore(toKey, dump, RestoreArgs.Builder.ttl(Math.max(ttl, 0)));
      byte[] idField = keys.idField(id, !from);
      if (idField != null) {
        commands.hset(toKey, ID_FIELD, idField);
      } else {
        commands.hdel(toKey, ID_FIELD);
      }
    } catch (RedisCommandExecutionException e) { // BUSYKEY: a hash under both names, left alone
      return false;
    }
    afterCopy.run();
    if (!deleteIfUnchanged(commands, fromKey, metadata)) {
      deleteIfUnchanged(commands, toKey, metadata);
      return false;
    }
    keys.locate(id, !from);
    if (due != null) {
      store.indexes().scheduleExpiry(id, due, !from);
    }
    if (principal != null) {
      metrics.roundTrips.increment();
      Long setTtl = commands.pttl(fromSet);
      store.indexes().addToPrincipal(principal, id, setTtl != null && setTtl > 0 ? setTtl : null,
          !from);
    }
    if (due != null) {
      store.indexes().unscheduleExpiry(id, from, now);
    }
    if (principal != null) {
      store.indexes().removeFromPrincipal(principal, id, from);
    }
    return true;
  }

  private boolean deleteIfUnchanged(RedisClusterCommands<byte[], byte[]> commands, byte[] key,
      byte[] metadata) {
    metrics.roundTrips.increment();
    Long deleted = commands.eval(DELETE_IF_UNCHANGED, ScriptOutputType.INTEGER,
        new byte[][] {key}, metadata);
    return deleted != null && deleted > 0;
  }
}
