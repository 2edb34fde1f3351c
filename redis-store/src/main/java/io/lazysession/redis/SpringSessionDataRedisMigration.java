package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lazysession.serializer.AttributeSerializer;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.LinkedHashMap;
import java.util.Collections;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.MapSession;
import org.springframework.session.PrincipalNameIndexResolver;

/**
 * Reads and removes the sessions Spring Session Data Redis stored (layout: {@link SsdrLayout}), for a
 * repository that takes them over one by one: {@link SessionReader} falls back to {@link #find} when
 * an id is not in lazysession's namespace, and {@link SessionWriter} writes the session in
 * lazysession's layout on its first save, then removes the original (claim-ssdr.lua, through
 * {@link #claim}: SSDR's hash moves to a claim key only as it was last read, and stays
 * there until lazysession's hash is written) and {@link #removeIndexEntries}. Plain commands, one key each, so Cluster routes each to its own
 * slot (SSDR's keys have no hash tag: they are never in the slot of lazysession's key for the same
 * id). Thread-safe.
 */
final class SpringSessionDataRedisMigration {
  private static final Logger log = LoggerFactory.getLogger(SpringSessionDataRedisMigration.class);
  private static final int SCAN_BATCH = 1000;

  /** How long a delete's mark on a claim key stays: far longer than any take-over in flight. */
  static final long DELETE_MARK_MILLIS = 600_000;

  private final SessionConnection connection;
  private final RedisSessionStore store;
  private final SsdrLayout layout;
  /** {@code <namespace>:taken:}: the prefix of claim keys, in lazysession's namespace. */
  private final String claimPrefix;
  private final MetricsRecorder metrics;
  private final AttributeSerializer serializer;
  private final PrincipalNameIndexResolver<MapSession> principalResolver =
      new PrincipalNameIndexResolver<>();
  private final AtomicBoolean warnedUnreadable = new AtomicBoolean();
  private final boolean inFindScript;

  SpringSessionDataRedisMigration(SpringSessionDataRedis source, SessionConnection connection,
      RedisSessionStore store, MetricsRecorder metrics, AttributeSerializer serializer) {
    this.connection = connection;
    this.store = store;
    this.layout = new SsdrLayout(source);
    this.claimPrefix = store.keys().namespace() + ":taken:";
    this.metrics = metrics;
    this.serializer = serializer;
    this.inFindScript = !(connection.commands() instanceof RedisAdvancedClusterCommands);
  }

  /**
   * Whether the find script looks SSDR's hash up in the same call (standalone, Sentinel), rather
   * than {@link #find} after a miss (Cluster: SSDR's key has no hash tag, so it is never in the slot
   * of this store's key for the same id).
   */
  boolean inFindScript() {
    return inFindScript;
  }

  /**
   * Whether {@code id} may name a session of SSDR: not when it holds a brace (SSDR's ids are UUIDs;
   * such an id, from a cookie, would give its claim key another Cluster slot than SSDR's key).
   */
  boolean handles(String id) {
    return id.indexOf('{') < 0 && id.indexOf('}') < 0;
  }

  /** SSDR's key for the session {@code id}. */
  byte[] sessionKey(String id) {
    return layout.session(id);
  }

  /**
   * The claim key of the session {@code id}: {@code <namespace>:taken:{<tag>}:<SSDR's key>}, where
   * the tag is the one of SSDR's key (its {@code {...}} part if it has one, else the whole key), so
   * that both are in one Cluster slot. A take-over moves SSDR's hash there until the session is
   * written in lazysession's layout; a delete marks it.
   */
  byte[] claimKey(String id) {
    String ssdrKey = new String(layout.session(id), UTF_8);
    int open = ssdrKey.indexOf('{');
    int close = open < 0 ? -1 : ssdrKey.indexOf('}', open + 1);
    String tag = close > open + 1 ? ssdrKey.substring(open + 1, close) : ssdrKey;
    return (claimPrefix + "{" + tag + "}:" + ssdrKey).getBytes(UTF_8);
  }

  /**
   * The session SSDR holds under {@code id}, or what a take-over that did not finish left in its
   * claim key (one call, find-ssdr-only.lua); null when there is none or it cannot be read.
   * Attributes are not decoded.
   */
  @Nullable SsdrSession find(String id) {
    Map<byte[], byte[]> hash = ssdrHash(layout.session(id), claimKey(id)); // counts bytes
    return hash.isEmpty() ? null : read(id, hash);
  }

  /** Parses SSDR's hash of {@code id}; null (warned about once) when it cannot be read. */
  @Nullable SsdrSession read(String id, Map<byte[], byte[]> hash) {
    SsdrSession session = SsdrLayout.read(hash);
    if (session == null && warnedUnreadable.compareAndSet(false, true)) {
      log.warn("session {} of Spring Session Data Redis has no creationTime, lastAccessedTime and "
          + "maxInactiveInterval in the JDK serialization of its default serializer, so it cannot "
          + "be taken over (was a custom springSessionDefaultRedisSerializer configured?); such "
          + "sessions are treated as missing. Logged once.", id);
    }
    return session;
  }

  /**
   * Removes what SSDR's indexed repository keeps next to the hash of a session taken over: its
   * expiry key, its entry in the expirations set (minute sets, or the sorted set), and its entry in
   * the principal index (for the principal the original session had). For a session of
   * {@code RedisSessionRepository} these do not exist and the commands change nothing.
   */
  void removeIndexEntries(String id, SsdrSession origin) {
    RedisClusterCommands<byte[], byte[]> commands = connection.commands();
    metrics.roundTrips.add(3);
    commands.del(layout.expires(id));
    if (origin.maxInactiveSeconds() >= 0) {
      commands.srem(layout.minuteExpirations(origin.expiresAtMillis()),
          SsdrLayout.minuteExpirationsMember(id));
    }
    commands.zrem(layout.sortedExpirations(), SsdrLayout.jdkString(id));
    String principal = originalPrincipal(id, origin);
    if (principal != null) {
      metrics.roundTrips.increment();
      commands.srem(layout.principalIndex(principal), SsdrLayout.jdkString(id));
    }
  }

  /**
   * Deletes SSDR's hash and expiry key of {@code id} (a logout of a session not yet taken over), and
   * marks its claim key, so that a take-over in flight deletes what it wrote rather than bringing the
   * session back ({@link #claimDone}). Runs before the delete of lazysession's hash. Index entries
   * left behind are ignored by both stores, as they point at no hash.
   */
  @Nullable Void delete(String id) {
    deleteSsdr(layout.session(id), claimKey(id), DELETE_MARK_MILLIS);
    metrics.roundTrips.increment();
    connection.commands().del(layout.expires(id));
    return null;
  }

  /**
   * Claims SSDR's session {@code id} for its take-over (claim-ssdr.lua): moves its hash to the claim
   * key if it is still {@code expected} (or, with {@code force}, whatever it holds), and tells what
   * it held.
   */
  ScriptReplies.SsdrClaim claim(String id, SsdrSession expected, boolean force) {
    return claimSsdr(layout.session(id), claimKey(id), expected, force);
  }

  /**
   * Ends the take-over of {@code id}, its session now written in lazysession's layout: true when a
   * delete marked the claim meanwhile (the session must be deleted there too).
   */
  boolean claimDone(String id) {
    return claimDone(claimKey(id));
  }

  /**
   * {@code found}, the sessions of {@code principal} in lazysession's index, plus those still waiting
   * in Spring Session Data Redis's index (only the indexed repository keeps one), each loaded by
   * {@code loader}.
   */
  Map<String, LazySession> withWaiting(Map<String, LazySession> found, String principal,
      Function<String, @Nullable LazySession> loader) {
    Map<String, LazySession> all = new LinkedHashMap<>(found);
    for (String id : principalSessionIds(principal)) {
      if (!all.containsKey(id)) {
        LazySession session = loader.apply(id);
        if (session != null && session.migratingFrom() != null) {
          all.put(id, session);
        }
      }
    }
    return all.isEmpty() ? Collections.emptyMap() : all;
  }

  /** The ids SSDR's principal index holds for {@code principal} (one SMEMBERS). */
  Set<String> principalSessionIds(String principal) {
    metrics.roundTrips.increment();
    Set<String> ids = new LinkedHashSet<>();
    for (byte[] member : connection.commands().smembers(layout.principalIndex(principal))) {
      String id = SsdrLayout.string(member);
      if (id != null) {
        ids.add(id);
      }
    }
    return ids;
  }

  /**
   * How many session hashes SSDR still holds: a SCAN of the whole key space (every node of a
   * Cluster), so expensive on a large Redis; for an occasional look, not for a metrics scrape.
   */
  long countWaiting() {
    KeyScanArgs args = KeyScanArgs.Builder.matches(layout.sessionPattern()).type("hash")
        .limit(SCAN_BATCH);
    long count = 0;
    ScanIterator<byte[]> keys = ScanIterator.scan(connection.commands(), args);
    while (keys.hasNext()) {
      keys.next();
      count++;
    }
    return count;
  }

  /**
   * The principal name SSDR indexed the original session under, resolved as SSDR resolves it (the
   * principal name attribute, else the Spring Security context), from the original bytes: the
   * request may have changed those attributes since. Null when there is none or it cannot be
   * decoded (its index entry is then left behind, harmless).
   */
  private @Nullable String originalPrincipal(String id, SsdrSession origin) {
    MapSession view = new MapSession(id);
    for (String name : new String[] {FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME,
        LazySession.SPRING_SECURITY_CONTEXT}) {
      byte[] envelope = origin.attributes().get(name);
      if (envelope == null) {
        continue;
      }
      try {
        view.setAttribute(name, serializer.deserialize(envelope));
      } catch (RuntimeException e) {
        log.debug("cannot decode {} of session {} to clean up SSDR's principal index: {}", name,
            id, e.toString());
      }
    }
    try {
      return principalResolver.resolveIndexValueFor(view);
    } catch (RuntimeException e) {
      return null;
    }
  }

  @Override
  public String toString() {
    return "SpringSessionDataRedisMigration[" + new String(layout.session(""), UTF_8) + "*]";
  }

  /**
   * Runs the migrate script: creates the hash of a session taken over from Spring Session Data Redis
   * with its attributes (field name to envelope; {@code replaced} ones with the bytes given there;
   * under a keyed name, {@code #i} too), unless the key exists. With {@code replicas} above 0, on a
   * connection to the key's primary, then waits (WAIT) for that many replicas to have it, so that
   * SSDR's copy is only removed once this one is as durable as a save.
   *
   * @return whether this call created the hash (version 1)
   * @throws SessionNotReplicatedException when too few replicas acknowledged within {@code timeout}
   */
  boolean migrate(String id, long nowMillis, SsdrSession origin, Map<String, byte[]> replaced,
      long graceMillis, int replicas, Duration timeout) {
    byte[] key = store.keys().session(id);
    byte[][] arguments = store.counted(store.format().marked(store.keys().withIdField(id,
        store.sealed(id, origin.migrateArguments(nowMillis, graceMillis, store.absoluteMillis(),
            replaced), 5))));
    if (replicas <= 0) {
      Long created = store.eval(connection.commands(), RedisScript.MIGRATE,
          ScriptOutputType.INTEGER, key, arguments);
      return created != null && created == 1;
    }
    return connection.onPrimaryOf(key, primary -> {
      Long created =
          store.eval(primary, RedisScript.MIGRATE, ScriptOutputType.INTEGER, key, arguments);
      metrics.roundTrips.increment();
      Long acknowledged = primary.waitForReplication(replicas, Math.max(1, timeout.toMillis()));
      if (acknowledged == null || acknowledged < replicas) {
        throw new SessionNotReplicatedException("save", id, replicas,
            acknowledged == null ? 0 : acknowledged, timeout);
      }
      return created != null && created == 1;
    });
  }

  /** Runs claim-ssdr.lua on SSDR's hash {@code ssdrKey} and its claim key. */
  private ScriptReplies.SsdrClaim claimSsdr(byte[] ssdrKey, byte[] claimKey, SsdrSession expected,
      boolean force) {
    byte[][] scriptKeys = {ssdrKey, claimKey};
    List<Object> answer = store.eval(connection.commands(), RedisScript.CLAIM_SSDR,
        ScriptOutputType.MULTI, scriptKeys, store.counted(claimArguments(expected, force)));
    return ScriptReplies.ssdrClaim(answer);
  }

  /** Runs claim-done.lua: true when a delete marked the claim key. */
  private boolean claimDone(byte[] claimKey) {
    Long marked = store.eval(connection.commands(), RedisScript.CLAIM_DONE, ScriptOutputType.INTEGER,
        claimKey);
    return marked != null && marked == 1;
  }

  /** Runs delete-ssdr.lua. */
  private void deleteSsdr(byte[] ssdrKey, byte[] claimKey, long markMillis) {
    byte[][] scriptKeys = {ssdrKey, claimKey};
    store.eval(connection.commands(), RedisScript.DELETE_SSDR, ScriptOutputType.INTEGER, scriptKeys,
        RedisSessionStore.utf8(Long.toString(markMillis)));
  }

  /** Runs find-ssdr-only.lua: SSDR's hash, or what an unfinished take-over left; empty if none. */
  private Map<byte[], byte[]> ssdrHash(byte[] ssdrKey, byte[] claimKey) {
    byte[][] scriptKeys = {ssdrKey, claimKey};
    List<Object> answer = store.eval(connection.commands(), RedisScript.FIND_SSDR_ONLY,
        ScriptOutputType.MULTI, scriptKeys);
    Map<byte[], byte[]> hash = ScriptReplies.hashFields(answer);
    if (hash == null) {
      return Map.of();
    }
    long bytes = 0;
    for (Map.Entry<byte[], byte[]> field : hash.entrySet()) {
      bytes += field.getKey().length + field.getValue().length;
    }
    metrics.bytesRead.add(bytes);
    return hash;
  }

  /** claim-ssdr.lua's arguments. */
  static byte[][] claimArguments(SsdrSession expected, boolean force) {
    List<byte[]> fields = expected.fields();
    byte[][] arguments = new byte[2 + fields.size()][];
    arguments[0] = RedisSessionStore.utf8(force ? "1" : "0");
    arguments[1] = expected.digest();
    for (int i = 0; i < fields.size(); i++) {
      arguments[2 + i] = fields.get(i);
    }
    return arguments;
  }
}
