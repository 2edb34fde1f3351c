package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Every Redis command the repository sends, each counted as a round trip in the metrics: the one
 * owner of the scripts' protocol. Callers speak typed requests ({@link SaveRequest}) and get typed
 * answers ({@link StoredSession}, {@link SessionMetadata}); argument order, flag strings and answer
 * layouts live here and in {@link ScriptReplies} only. Thread-safe.
 *
 * <p>find.lua is called as the Redis 7 function {@value FindFunction#NAME} where Redis has functions
 * (standalone and Sentinel), which makes a near-cache hit a few dozen bytes on the wire. Scripts are
 * otherwise called by SHA (EVALSHA). When Redis answers NOSCRIPT (after SCRIPT FLUSH, a restart
 * or a failover) the call is repeated with EVAL, which also puts the script back in Redis' cache, so a
 * lost script costs one extra round trip once and never an error. Lettuce exceptions pass through;
 * the repository translates them.
 */
final class RedisSessionStore {
  /** The metadata field and the principal: what an expiry event needs. */
  static final byte[][] METADATA_FIELDS = {utf8(SessionKeys.METADATA), utf8(SessionKeys.PRINCIPAL)};

  private static final byte[][] NO_COPY = {new byte[0]};
  private static final byte[] WITH_METADATA = utf8("m");

  private final SessionConnection connection;
  private final SessionKeys keys;
  private final MetricsRecorder metrics;
  private final ValueProtection protection;
  /** The absolute timeout in milliseconds the delete and expire scripts apply; 0: none. */
  private final long absoluteMillis;
  private final SessionIndexes indexes;
  private final ReplicaWait replicaWait;
  private final RedisFormat format;
  private volatile @Nullable SharedDictionary dictionary;
  /** Set by {@link #loadScripts}; cleared when Redis loses the function and will not take it back. */
  private volatile boolean findByFunction;

  /**
   * @param protection how values are sealed before they are sent and opened when they arrive
   * @param absoluteMillis the absolute timeout (SessionPolicies) that delete.lua and expire.lua
   *     apply; 0: none
   */
  RedisSessionStore(SessionConnection connection, SessionKeys keys, MetricsRecorder metrics,
      ValueProtection protection, long absoluteMillis) {
    this.format = new RedisFormat(connection, keys.namespace());
    this.connection = connection;
    this.keys = keys;
    this.metrics = metrics;
    this.protection = protection;
    this.absoluteMillis = absoluteMillis;
    this.indexes = new SessionIndexes(this, connection, keys, metrics);
    this.replicaWait = new ReplicaWait(connection, metrics);
  }

  ValueProtection protection() { // seals values before they are sent, opens them as they arrive
    return protection;
  }

  /**
   * The arguments of delete.lua and expire.lua: the time, 'all' or '' and, with an absolute
   * timeout, that timeout in milliseconds (nothing more without one, so that their calls stay as
   * they were).
   */
  byte[][] deleteArguments(long nowMillis, boolean all) {
    byte[] now = utf8(Long.toString(nowMillis));
    byte[] mode = all ? utf8("all") : new byte[0];
    if (absoluteMillis > 0) {
      return new byte[][] {now, mode, utf8(Long.toString(absoluteMillis))};
    }
    return all ? new byte[][] {now, mode} : new byte[][] {now};
  }

  SessionKeys keys() {
    return keys;
  }

  RedisFormat format() { // the namespace's Redis format and this node's announcements
    return format;
  }

  /**
   * Loads the scripts into Redis once, so the first requests do not pay for it. On a Cluster, Lettuce
   * sends SCRIPT LOAD to every node; a primary promoted later learns them through the NOSCRIPT
   * fallback. Then registers find.lua as a Redis 7 function (see {@link FindFunction#load}).
   *
   * @param expiringSets whether principal sets are written with a TTL (principal-add.lua)
   */
  void loadScripts(boolean expiringSets) {
    RedisClusterCommands<byte[], byte[]> commands = connection.commands();
    List<RedisScript> scripts = List.of(RedisScript.FIND, RedisScript.SAVE, RedisScript.DELETE,
        expiringSets ? RedisScript.PRINCIPAL_ADD : RedisScript.EXPIRE, RedisScript.RENEW);
    for (RedisScript script : scripts) {
      String sha = commands.scriptLoad(script.source());
      metrics.roundTrips.increment();
      if (!script.sha().equalsIgnoreCase(sha)) {
        throw new IllegalStateException("Redis returned SHA " + sha + " for " + script);
      }
    }
    findByFunction = FindFunction.load(commands, metrics);
  }

  /**
   * Loads a session, or confirms the near-cache copy {@code cached}; null when the hash is missing or
   * incomplete.
   */
  @Nullable StoredSession find(String id, NearCache.@Nullable Snapshot cached) {
    byte[][] scriptKeys = {keys.session(id)};
    return findAnswer(id, callFind(RedisScript.FIND, scriptKeys, findArguments(cached)), cached);
  }

  /** find.lua's answer: the session, the confirmed copy, or null when missing or incomplete. */
  @Nullable StoredSession findAnswer(String id, @Nullable List<Object> answer,
      NearCache.@Nullable Snapshot cached) {
    if (isNil(answer)) {
      return null;
    }
    if (isUnchanged(answer)) {
      return ScriptReplies.unchanged(cached);
    }
    return findReply(id, answer, cached);
  }

  /** find.lua's arguments: the cached version, and 'm' when the copy lacks the metadata. */
  static byte[][] findArguments(NearCache.@Nullable Snapshot cached) {
    if (cached == null) {
      return NO_COPY;
    }
    byte[] version = SaveRequest.decimal(cached.version());
    return cached.metadata() == null ? new byte[][] {version, WITH_METADATA}
        : new byte[][] {version};
  }

  /**
   * Calls find.lua (or {@code script}, which includes it) as the function {@value FindFunction#NAME}
   * when Redis has it, else by SHA. A function that disappeared (FUNCTION FLUSH or DELETE) is
   * registered again, and this call goes by SHA.
   */
  private List<Object> callFind(RedisScript script, byte[][] scriptKeys, byte[][] arguments) {
    RedisClusterCommands<byte[], byte[]> commands = connection.commands();
    if (findByFunction && script == RedisScript.FIND) {
      metrics.roundTrips.increment();
      try {
        return connection.fcall(FindFunction.NAME, ScriptOutputType.MULTI, scriptKeys, arguments);
      } catch (RedisCommandExecutionException e) {
        if (!isFunctionMissing(e)) {
          throw e;
        }
        metrics.scriptReloads.increment();
        findByFunction = FindFunction.load(commands, metrics);
      }
    }
    return eval(commands, script, ScriptOutputType.MULTI, scriptKeys, arguments);
  }

  /** Whether Redis answered that the function {@value FindFunction#NAME} does not exist. */
  static boolean isFunctionMissing(Throwable e) {
    String message = e.getMessage();
    return e instanceof RedisCommandExecutionException && message != null
        && message.contains("Function not found");
  }

  boolean findsByFunction() { // find.lua called as the function (Redis 7 and later)
    return findByFunction;
  }

  /** The function went away under a caller that cannot register it again: finds go by SHA. */
  void findFunctionMissing() {
    findByFunction = false;
  }

  /** A find answer that is the bare integer 1: the caller's copy is current. */
  private static boolean isUnchanged(List<Object> answer) {
    return answer.size() == 1 && answer.get(0) instanceof Long unchanged && unchanged == 1L;
  }

  /** A find answer that is a list of fields and values (a hash, or a verbose "unchanged"). */
  private @Nullable StoredSession findReply(String id, List<Object> answer,
      NearCache.@Nullable Snapshot cached) {
    List<byte @Nullable []> fields = ScriptReplies.elements(answer);
    long bytes = 0;
    for (byte[] value : fields) {
      bytes += value == null ? 0 : value.length;
    }
    metrics.bytesRead.add(bytes);
    try {
      return ScriptReplies.find(fields, cached, protection.of(id));
    } catch (ScriptReplies.LaterFormat e) {
      format.unreadable(id, e.format());
      return null;
    }
  }

  /**
   * Runs the save script. Returns the new version; for an update, 0 when the session is missing,
   * partial or expired (nothing written), {@link SaveResult#PACK_CONFLICT} with the pack the hash
   * holds when it holds another than the request was made from; for a create, -1 when another
   * session holds the id, and 0 when this create was applied before (a re-send) and other writes
   * followed it.
   */
  SaveResult save(String id, SaveRequest request) {
    byte[][] arguments = saveArguments(id, request);
    return ScriptReplies.save(eval(connection.commands(), RedisScript.SAVE, ScriptOutputType.MULTI,
        keys.saveKeys(id), arguments));
  }

  /**
   * Runs the save script on the primary that owns the session, then WAIT ({@link ReplicaWait}).
   *
   * @return the new version (as {@link #save}; when not positive nothing was waited for) and how many
   *     replicas acknowledged it within {@code timeout}, or why waiting failed after the write
   */
  SaveResult saveAndWait(String id, SaveRequest request, int replicas, Duration timeout) {
    byte[][] arguments = saveArguments(id, request);
    byte[][] saveKeys = keys.saveKeys(id);
    ReplicaWait.Waited<SaveResult> waited = replicaWait.run(saveKeys[0],
        primary -> ScriptReplies.save(
            eval(primary, RedisScript.SAVE, ScriptOutputType.MULTI, saveKeys, arguments)),
        saved -> saved.version() > 0, replicas, timeout);
    SaveResult saved = waited.result();
    return saved.version() <= 0 ? saved
        : new SaveResult(saved.version(), waited.acknowledged(), waited.failure());
  }

  /**
   * As {@link #delete}, on the primary that owns the session, then WAIT when it deleted something
   * (durability: a sign-out must not come back with a failover).
   */
  ReplicaWait.Waited<ScriptReplies.@Nullable DeletedHash> deleteAndWait(String id, long nowMillis,
      boolean all, int replicas, Duration timeout) {
    byte[] key = keys.session(id);
    return replicaWait.run(key, primary -> {
      List<Object> answer = eval(primary, RedisScript.DELETE, ScriptOutputType.MULTI, key,
          deleteArguments(nowMillis, all));
      return isNil(answer) ? null
          : ScriptReplies.deletedHash(countedRead(ScriptReplies.elements(answer)), protection.of(id));
    }, java.util.Objects::nonNull, replicas, timeout);
  }

  /**
   * Runs the delete script: deletes the hash if the session is still live. Returns the deleted
   * session's metadata, with {@code all} its attribute envelopes and pack too (same round trip,
   * more bytes), or null when there was nothing live to delete.
   */
  ScriptReplies.@Nullable DeletedHash delete(String id, long nowMillis, boolean all) {
    List<Object> answer = eval(connection.commands(), RedisScript.DELETE, ScriptOutputType.MULTI,
        keys.session(id), deleteArguments(nowMillis, all));
    return isNil(answer) ? null
        : ScriptReplies.deletedHash(countedRead(ScriptReplies.elements(answer)), protection.of(id));
  }

  /** renew.lua on {@code oldId}'s hash; its answer as text ('1', '>' + id, 'v' or '0'). */
  String renew(String oldId, long nowMillis, long version, String newId, long graceMillis) {
    byte[] answer = eval(connection.commands(), RedisScript.RENEW, ScriptOutputType.VALUE,
        keys.session(oldId), IdRenewal.renewArguments(nowMillis, version,
            keys.alias(oldId, newId, nowMillis + graceMillis), graceMillis, absoluteMillis));
    return IdRenewal.renewAnswer(answer, keys, oldId, nowMillis);
  }

  /**
   * As {@link #renew}, on the primary that owns {@code oldId}'s hash, then WAIT when the id moved
   * (durability: a failover must not undo the swap and leave the old id a full copy).
   */
  ReplicaWait.Waited<String> renewAndWait(String oldId, long nowMillis, long version, String newId,
      long graceMillis, int replicas, Duration timeout) {
    byte[] key = keys.session(oldId);
    byte[][] arguments = IdRenewal.renewArguments(nowMillis, version,
        keys.alias(oldId, newId, nowMillis + graceMillis), graceMillis, absoluteMillis);
    return replicaWait.run(key, primary -> IdRenewal.renewAnswer(
        eval(primary, RedisScript.RENEW, ScriptOutputType.VALUE, key, arguments), keys, oldId,
        nowMillis),
        IdRenewal.MOVED::equals, replicas, timeout);
  }

  /** The new id a renewed {@code id}'s alias names within its grace (renew.lua); else null. */
  @Nullable String aliasOf(String id, long nowMillis) {
    metrics.roundTrips.increment();
    return IdRenewal.aliasTarget(id,
        connection.commands().hmget(keys.session(id), IdRenewal.ALIAS_FIELDS), nowMillis, keys);
  }

  /** {@code values}, counted as bytes read. */
  List<byte @Nullable []> countedRead(List<byte @Nullable []> values) {
    long bytes = 0;
    for (byte[] value : values) {
      bytes += value == null ? 0 : value.length;
    }
    metrics.bytesRead.add(bytes);
    return values;
  }

  Map<byte[], byte[]> hash(String id) { // HGETALL, as stored (chunks not joined), to measure
    metrics.roundTrips.increment();
    return connection.commands().hgetall(keys.session(id));
  }

  @Nullable Long memoryUsage(String id) { // MEMORY USAGE (default sampling), to measure
    metrics.roundTrips.increment();
    return connection.commands().memoryUsage(keys.session(id));
  }

  /** HMGET of creation, last access, max inactive and principal, without touching attributes. */
  SessionMetadata metadata(String id) {
    metrics.roundTrips.increment();
    var values = connection.commands().hmget(keys.session(id), METADATA_FIELDS);
    List<byte @Nullable []> result = new ArrayList<>(2);
    for (var value : values) {
      result.add(value.hasValue() ? value.getValue() : null);
    }
    return ScriptReplies.storedMetadata(result, protection.of(id));
  }

  /**
   * Runs the expire script: deletes the hash only if it has expired by {@code nowMillis}; with
   * {@code all}, an expired hash's fields come back in the same answer.
   */
  ScriptReplies.ExpireReply expire(String id, long nowMillis, boolean all) {
    List<Object> answer = eval(connection.commands(), RedisScript.EXPIRE, ScriptOutputType.MULTI,
        keys.session(id), deleteArguments(nowMillis, all));
    return ScriptReplies.expire(answer == null ? List.of() : countedRead(ScriptReplies.elements(answer)),
        protection.of(id));
  }

  /** The save script's arguments, counted, in the format of the save ({@link SharedDictionary}). */
  byte[][] saveArguments(String id, SaveRequest request) {
    SharedDictionary shared = dictionary;
    int writes = shared == null ? format.writes() : shared.formatOf(request);
    return counted(request.arguments(protection.of(id), idField(id, request), writes));
  }

  void dictionary(SharedDictionary shared) { // set once by the wiring; null: format.writes()
    this.dictionary = shared;
  }

  @Nullable SharedDictionary dictionary() {
    return dictionary;
  }

  byte @Nullable [] idField(String id, SaveRequest request) {
    return request.mode().creates() ? keys.idField(id) : null;
  }

  long absoluteMillis() { // applied by the scripts, milliseconds; 0: none
    return absoluteMillis;
  }

  /** The commands on the expiry schedule and the principal sets of this store's namespace. */
  SessionIndexes indexes() {
    return indexes;
  }

  // ---- migration from Spring Session Data Redis (see SpringSessionDataRedisMigration) ----------

  /**
   * What {@link #find(String, NearCache.Snapshot, byte[])} found: this store's session, or else the
   * hash Spring Session Data Redis keeps for the id (field to value), or neither.
   */
  record Found(@Nullable StoredSession stored, @Nullable Map<byte[], byte[]> ssdrHash) {}

  /**
   * As {@link #find(String, NearCache.Snapshot)}, falling back in the same call to the hash at
   * {@code ssdrKey}, then to its claim key (find-ssdr.lua). Only where these keys may be in one
   * script: not on a Cluster.
   */
  Found find(String id, NearCache.@Nullable Snapshot cached, byte[] ssdrKey, byte[] claimKey) {
    byte[][] scriptKeys = {keys.session(id), ssdrKey, claimKey};
    List<Object> answer = callFind(RedisScript.FIND_SSDR, scriptKeys, findArguments(cached));
    if (isNil(answer)) {
      return new Found(null, null);
    }
    if (isUnchanged(answer)) {
      return new Found(ScriptReplies.unchanged(cached), null);
    }
    Map<byte[], byte[]> ssdrHash = ScriptReplies.ssdrHash(answer);
    if (ssdrHash != null) {
      ssdrHash.forEach((name, value) -> metrics.bytesRead.add(name.length + value.length));
      return new Found(null, ssdrHash);
    }
    return new Found(findReply(id, answer, cached), null);
  }

  /** Runs reseal.lua on session {@code id}; how many values it replaced. */
  long reseal(String id, byte[][] arguments) {
    Long replaced = eval(connection.commands(), RedisScript.RESEAL, ScriptOutputType.INTEGER,
        keys.session(id), counted(arguments));
    return replaced == null ? 0 : replaced;
  }

  /** {@code arguments} with the value of each field / value pair from {@code from} on sealed. */
  byte[][] sealed(String id, byte[][] arguments, int from) {
    if (!protection.enabled()) {
      return arguments;
    }
    ValueProtection.SessionValues values = protection.of(id);
    for (int i = from; i + 1 < arguments.length; i += 2) {
      arguments[i + 1] = values.seal(new String(arguments[i], UTF_8), arguments[i + 1]);
    }
    return arguments;
  }

  <T> @Nullable T eval(RedisClusterCommands<byte[], byte[]> commands, RedisScript script,
      ScriptOutputType type, byte[] key, byte[]... arguments) {
    byte[][] scriptKeys = {key};
    return eval(commands, script, type, scriptKeys, arguments);
  }

  @SuppressWarnings("unchecked")
  <T> @Nullable T eval(RedisClusterCommands<byte[], byte[]> commands, RedisScript script,
      ScriptOutputType type, byte[][] scriptKeys, byte[]... arguments) {
    metrics.roundTrips.increment();
    try {
      // The store's own connection by its faster path; a dedicated one (a durable save) as given.
      return (T) (commands == connection.commands()
          ? connection.evalsha(script.sha(), type, scriptKeys, arguments)
          : commands.evalsha(script.sha(), type, scriptKeys, arguments));
    } catch (RedisNoScriptException e) {
      metrics.scriptReloads.increment();
      metrics.roundTrips.increment();
      return (T) commands.eval(script.source(), type, scriptKeys, arguments);
    }
  }

  /** A script's nil answer arrives as an empty list or a list holding one null. */
  static boolean isNil(@Nullable List<Object> answer) {
    return answer == null || answer.isEmpty() || (answer.size() == 1 && answer.get(0) == null);
  }

  /** Counts a write's arguments as bytes written. */
  byte[][] counted(byte[][] arguments) {
    long bytes = 0;
    for (byte[] argument : arguments) {
      bytes += argument.length;
    }
    metrics.bytesWritten.add(bytes);
    return arguments;
  }

  static byte[] utf8(String text) {
    return text.getBytes(UTF_8);
  }
}
