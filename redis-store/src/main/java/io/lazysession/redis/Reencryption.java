package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.ScanIterator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Seals every stored value anew as this node writes them (under the first key, or unprotected with
 * {@code writeUnprotected}): what {@link LazyRedisSessionRepository#reencrypt()} runs after a key
 * rotation or to finish turning protection on or off. Thread-safe (stateless but for its
 * collaborators); one run at a time is enough, though concurrent runs and saves are harmless.
 *
 * <p>Design: one SCAN of the namespace's session hashes (every node of a Cluster), then per hash an
 * HGETALL and, when something is not current, one reseal.lua call that replaces each value only if
 * it is still the one read (a compare-and-set per field, and on the pack's SHA-1 as save.lua does):
 * a save in between keeps its value, already under the first key. Values this node cannot open
 * (a key it lacks, a refused value) are left as they are and counted as remaining.
 */
final class Reencryption {
  private static final int SCAN_BATCH = 500;

  private final SessionConnection connection;
  private final RedisSessionStore store;
  private final ValueProtection protection;
  private final MetricsRecorder metrics;
  private final SessionRenaming renaming;

  Reencryption(SessionConnection connection, RedisSessionStore store, MetricsRecorder metrics) {
    this.connection = connection;
    this.store = store;
    this.protection = store.protection();
    this.metrics = metrics;
    this.renaming = new SessionRenaming(connection, store, metrics);
  }

  /** The renaming step, for tests that interleave a save with it. */
  SessionRenaming renaming() {
    return renaming;
  }

  ReencryptionReport run() {
    return run(ReencryptionMode.SEAL_UNPROTECTED, id -> { });
  }

  /**
   * One pass over the namespace; with {@link ReencryptionMode#SIGN_OUT_UNPROTECTED}, {@code signOut}
   * deletes each session holding something unprotected (the repository's delete: events, indexes).
   */
  ReencryptionReport run(ReencryptionMode mode, java.util.function.Consumer<String> signOut) {
    String prefix = store.keys().namespace() + ":s:{";
    KeyScanArgs args = KeyScanArgs.Builder.matches(prefix + "*}").type("hash").limit(SCAN_BATCH);
    ScanIterator<byte[]> keys = ScanIterator.scan(connection.commands(), args);
    long sessions = 0;
    long rewritten = 0;
    long renamed = 0;
    long remaining = 0;
    long signedOut = 0;
    boolean signsOut = mode == ReencryptionMode.SIGN_OUT_UNPROTECTED && protection.enabled();
    while (keys.hasNext()) {
      String key = new String(keys.next(), UTF_8);
      metrics.roundTrips.increment();
      sessions++;
      long[] outcome = reseal(key.substring(prefix.length(), key.length() - 1), key,
          signsOut ? signOut : null);
      rewritten += outcome[0];
      remaining += outcome[1];
      renamed += outcome[2];
      signedOut += outcome[3];
    }
    return new ReencryptionReport(sessions, rewritten, renamed, remaining, signedOut);
  }

  /**
   * Seals the values of the session in hash {@code key} anew and moves it under the name this node
   * writes ({@link SessionRenaming}); {rewritten, remaining, renamed, signed out}. Under a keyed
   * name ({@code inKey} is then a keyed hash), the id comes from the sealed {@code #i}. With {@code
   * signOut}, a session holding anything unprotected is handed to it instead.
   */
  private long[] reseal(String inKey, String key,
      java.util.function.@Nullable Consumer<String> signOut) {
    metrics.roundTrips.increment();
    Map<byte[], byte[]> hash = connection.commands().hgetall(key.getBytes(UTF_8));
    Map<String, byte[]> metadata = new HashMap<>();
    for (Map.Entry<byte[], byte[]> entry : hash.entrySet()) {
      String field = new String(entry.getKey(), UTF_8);
      if (field.equals(SessionKeys.ID) || field.equals(SessionKeys.METADATA)
          || field.equals(SessionKeys.PRINCIPAL) || field.equals(SessionKeys.ALIAS)
          || field.equals(RedisFormat.FIELD)) {
        metadata.put(field, entry.getValue());
      }
    }
    byte[] format = metadata.get(RedisFormat.FIELD);
    if (!RedisFormat.readable(format)) {
      // A later Redis format: never resealed nor moved by this version; a node that reads it will.
      store.format().unreadable(inKey, new String(format, UTF_8));
      return new long[] {0, 1, 0, 0};
    }
    if (!metadata.containsKey(SessionKeys.METADATA) && metadata.containsKey(SessionKeys.ALIAS)) {
      return new long[] {0, 0, 0, 0}; // a renewal's alias: no session, nothing to seal
    }
    byte[] sealedId = metadata.get(SessionKeys.ID);
    // A keyed hash's id is its #i only when #i names that very hash: copied from another, it would
    // make this run treat one session's hash as another's.
    String id = sealedId != null ? store.keys().idStoredUnder(sealedId, inKey)
        : store.keys().idOf(inKey.getBytes(UTF_8));
    if (id == null) {
      return new long[] {0, hash.isEmpty() ? 0 : 1, 0, 0}; // a name this node does not read
    }
    if (signOut != null && (renaming.misplaced(id) || holdsUnprotected(hash))) {
      signOut.accept(id);
      return new long[] {0, 0, 0, 1};
    }
    long[] resealed = resealValues(id, hash);
    if (!renaming.misplaced(id)) {
      return new long[] {resealed[0], resealed[1], 0, 0};
    }
    boolean moved = renaming.rename(id);
    return new long[] {resealed[0], resealed[1] + (moved ? 0 : 1), moved ? 1 : 0, 0};
  }

  /** Whether {@code hash} holds a value, its pack or its principal stored without protection. */
  private static boolean holdsUnprotected(Map<byte[], byte[]> hash) {
    PackFields packFields = new PackFields();
    for (Map.Entry<byte[], byte[]> entry : hash.entrySet()) {
      String field = new String(entry.getKey(), UTF_8);
      if (packFields.offer(entry.getKey(), entry.getValue())) {
        continue;
      }
      boolean value = field.equals(SessionKeys.PRINCIPAL) || (SessionKeys.attributeName(field) != null
          && !PackFields.reserved(entry.getKey()));
      if (value && !ValueProtection.isSealed(entry.getValue())) {
        return true;
      }
    }
    byte[] pack = packFields.pack();
    return pack != null && !ValueProtection.isSealed(pack);
  }

  /** Seals the values of session {@code id}, stored as {@code hash}, anew; {rewritten, remaining}. */
  private long[] resealValues(String id, Map<byte[], byte[]> hash) {
    List<byte[]> triples = new ArrayList<>();
    PackFields packFields = new PackFields();
    long remaining = 0;
    for (Map.Entry<byte[], byte[]> entry : hash.entrySet()) {
      String field = new String(entry.getKey(), UTF_8);
      byte[] value = entry.getValue();
      if (packFields.offer(entry.getKey(), value) || PackFields.reserved(entry.getKey())
          || (!field.equals(SessionKeys.PRINCIPAL) && SessionKeys.attributeName(field) == null)
          || protection.current(value)) {
        continue; // the pack (below), metadata, or already current
      }
      byte[] resealed = resealed(id, field, value);
      if (resealed == null) {
        remaining++;
        continue;
      }
      triples.add(entry.getKey());
      triples.add(value);
      triples.add(resealed);
    }
    byte[] pack = packFields.pack();
    byte[] packResealed = pack == null || protection.current(pack) ? null
        : resealed(id, StoredPack.FIELD, pack);
    if (pack != null && !protection.current(pack) && packResealed == null) {
      remaining++;
    }
    int wanted = triples.size() / 3 + (packResealed == null ? 0 : 1);
    if (wanted == 0) {
      return new long[] {0, remaining};
    }
    byte[][] arguments = new byte[2 + triples.size()][];
    arguments[0] = packResealed == null ? new byte[0]
        : RedisScript.prefixedSha1Hex((byte) '=', pack);
    arguments[1] = packResealed == null ? new byte[0] : packResealed;
    for (int i = 0; i < triples.size(); i++) {
      arguments[2 + i] = triples.get(i);
    }
    long replaced = store.reseal(id, arguments);
    return new long[] {replaced, remaining + wanted - replaced};
  }

  /** {@code value} of {@code field} sealed as this node writes; null when it cannot be opened here. */
  private byte @Nullable [] resealed(String id, String field, byte[] value) {
    if (ValueProtection.isSealed(value) && !protection.canOpen(value)) {
      return null;
    }
    byte[] plain = protection.open(id, field, value);
    return plain == null ? null : protection.seal(id, field, plain);
  }
}
