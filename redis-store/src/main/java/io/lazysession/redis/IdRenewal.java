package io.lazysession.redis;

import io.lettuce.core.KeyValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Id renewal (docs/session-policies.md): a signed-in session gets a new id at its first load by
 * {@code findById} once {@code lazysession.id-renewal-interval} has passed since its id was issued
 * (its creation, or its last renewal or change of id: field {@code #r}); the previous id reaches
 * the session for {@code lazysession.id-renewal-grace}. The new id is the session's when
 * {@code findById} returns it, so that both session filters (the servlet one compares the id after
 * the save, WebFlux's before it) send the new cookie. Thread-safe.
 *
 * <p>Design note: the old and the new key are in different Cluster slots, so a renewal is two
 * calls, ordered so that the session is reachable at every moment and never forks:
 * <ol>
 *   <li>the session as loaded is written whole under the new id ({@link SessionWriter#writeFull},
 *       save.lua in mode 'r'), with its schedule and principal entries: nobody knows that id yet;
 *   <li>renew.lua, on the old key, replaces the hash by an alias to the new id (TTL: the grace),
 *       only if the hash is still the version that was copied. If it was written since (a
 *       concurrent request), or another node renewed it first (its alias is there), or it expired,
 *       the copy is deleted and the session is loaded again (through the winner's alias: both
 *       nodes then hand out the same new id).
 * </ol>
 * A request still carrying the old id within the grace finds the session through the alias
 * ({@link SessionReader}); one that loaded it before the renewal saves its changes there
 * (save.lua answers {@link SaveResult#MOVED}). A node that stops between the two steps leaves a
 * copy no cookie names, which expires on its timeout; the session lives on under the old id.
 */
final class IdRenewal {
  private static final Logger log = LoggerFactory.getLogger(IdRenewal.class);
  /** The alias's fields: the new id, and the end of the grace (epoch milliseconds). */
  static final byte[][] ALIAS_FIELDS = {RedisSessionStore.utf8(SessionKeys.ALIAS),
      RedisSessionStore.utf8(SessionKeys.ALIAS_UNTIL)};
  /** renew.lua's answer when it moved the session. */
  static final String MOVED = "1";

  private final @Nullable Duration interval;
  private final Duration grace;
  private final SessionContext context;
  private final RedisSessionStore store;
  private final SessionWriter writer;
  private final SessionReader reader;
  private final ExpirySweeper expiry;
  private final PrincipalIndex principals;
  private final SessionLimiter limiter;
  private final Durability durability;

  IdRenewal(SessionContext context, RedisSessionStore store, SessionWriter writer,
      SessionReader reader, ExpirySweeper expiry, PrincipalIndex principals,
      SessionLimiter limiter, Durability durability) {
    this.interval = context.policies().idRenewalInterval();
    this.grace = context.policies().idRenewalGrace();
    this.context = context;
    this.store = store;
    this.writer = writer;
    this.reader = reader;
    this.expiry = expiry;
    this.principals = principals;
    this.limiter = limiter;
    this.durability = durability;
  }

  /** How far ahead of this node's clock another node's may be when it issues an id. */
  static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(1);

  /** Whether ids are renewed at all. */
  boolean on() {
    return interval != null;
  }

  /**
   * Whether {@code session}, just loaded, is due for a new id at {@code now}: it has a stored
   * principal, and its id was issued an interval ago or more, or claims to be issued more than
   * {@link #MAX_CLOCK_SKEW} in the future. The issue time ({@code #r}, else the creation time) is
   * clear metadata: a writer of Redis setting it far ahead must not switch renewal off.
   */
  boolean due(@Nullable LazySession session, Instant now) {
    if (interval == null || session == null || session.isNew()
        || session.storedPrincipal() == null || session.migratingFrom() != null
        || !session.getId().equals(session.storedId())) {
      return false;
    }
    long issued = session.renewed() > 0 ? session.renewed()
        : session.getCreationTime().toEpochMilli();
    long age = now.toEpochMilli() - issued;
    return age >= interval.toMillis() || -age > MAX_CLOCK_SKEW.toMillis();
  }

  /**
   * {@code loaded} under a new id when it is due (see the class comment); else {@code loaded}
   * itself. The session returned may be another instance (loaded again after a lost race), or null
   * when it expired meanwhile or the limit of sessions evicted it.
   *
   * @throws io.lettuce.core.RedisException as the store does
   */
  @Nullable LazySession renewIfDue(@Nullable LazySession loaded) {
    if (loaded == null || !due(loaded, context.now())) {
      return loaded;
    }
    String oldId = loaded.getId();
    long version = loaded.version();
    String principal = loaded.storedPrincipal();
    Duration maxInactive = loaded.getMaxInactiveInterval();
    loaded.renewTo(context.newSessionId(), false);
    String newId = loaded.getId();
    // Keeps its place in the limit's order; a session evicted meanwhile is gone, not renewed.
    if (principal != null && !limiter.move(principal, newId, oldId, maxInactive)) {
      log.debug("session {} was evicted by the limit of sessions while it was renewed", oldId);
      return null;
    }
    try {
      writer.writeMoved(loaded);
    } catch (SessionNotReplicatedException e) {
      // The primary holds the copy; the swap below is what makes it the session's.
      log.debug("the copy of session {} under its new id is not on enough replicas yet", oldId);
    }
    String[] answer = {"0"};
    String moved = expiry.claimThen(oldId, now -> {
      answer[0] = swap(oldId, now, version, newId);
      return MOVED.equals(answer[0]) ? answer[0] : null;
    });
    if (moved != null) {
      return loaded;
    }
    // Not moved: the copy goes (no event: no cookie ever named it).
    expiry.claimAndDelete(newId);
    principals.remove(principal, newId);
    if (answer[0].startsWith(">")) {
      log.debug("session {} was renewed by another node meanwhile; its new id is taken", oldId);
      return reader.find(answer[0].substring(1));
    }
    if ("v".equals(answer[0])) {
      // Written since the copy was made: stays as it is this time (the next load tries again).
      if (principal != null) {
        principals.add(principal, oldId, maxInactive); // writeMoved took it out of the set
      }
      return reader.find(oldId);
    }
    return null;
  }

  /**
   * renew.lua; with durability, followed by WAIT once the id moved, so that the response that hands
   * out the new id is sent only once the replicas hold the swap. Fewer replicas than asked are
   * logged, not thrown: the renewal is this store's own step in a read, applied on the primary.
   */
  private String swap(String oldId, long now, long version, String newId) {
    if (!durability.on()) {
      return store.renew(oldId, now, version, newId, grace.toMillis());
    }
    ReplicaWait.Waited<String> waited = store.renewAndWait(oldId, now, version, newId,
        grace.toMillis(), durability.replicas(), durability.timeout());
    if (MOVED.equals(waited.result())
        && (waited.failure() != null || waited.acknowledged() < durability.replicas())) {
      log.warn("session {} moved to its renewed id on the primary, but {} of the {} required "
          + "replica(s) acknowledged it within {}: a failover now could leave the old id a full "
          + "copy of the session until it expires", oldId, waited.acknowledged(),
          durability.replicas(), durability.timeout(), waited.failure());
    }
    return waited.result();
  }

  /**
   * The new id in the alias's {@link #ALIAS_FIELDS} (HMGET) under {@code oldId} while its grace
   * lasts, as {@code keys} read it ({@link SessionKeys#aliasTarget}: under keyed names only an alias
   * bound to {@code oldId}); else null.
   */
  static @Nullable String aliasTarget(String oldId, List<KeyValue<byte[], byte[]>> fields,
      long nowMillis, SessionKeys keys) {
    if (fields.size() != 2 || !fields.get(0).hasValue() || !fields.get(1).hasValue()) {
      return null;
    }
    Long until = ScriptReplies.number(fields.get(1).getValue());
    return until == null || until <= nowMillis ? null
        : keys.aliasTarget(oldId, fields.get(0).getValue(), nowMillis);
  }

  /**
   * renew.lua's answer as text: '1', 'v', '0', or '>' and the new id of another node's renewal,
   * which the alias holds as {@code keys} write it (sealed under keyed names).
   */
  static String renewAnswer(byte @Nullable [] answer, SessionKeys keys, String oldId,
      long nowMillis) {
    if (answer == null || answer.length == 0) {
      return "0";
    }
    if (answer[0] != '>') {
      return new String(answer, StandardCharsets.UTF_8);
    }
    String newId = keys.aliasTarget(oldId, Arrays.copyOfRange(answer, 1, answer.length), nowMillis);
    return newId == null ? "0" : ">" + newId;
  }

  /**
   * renew.lua's arguments (the absolute timeout last, as delete.lua takes it; '' for none); the new
   * id as the alias holds it ({@link SessionKeys#alias}: sealed and bound to the old id under keyed
   * names).
   */
  static byte[][] renewArguments(long nowMillis, long version, byte[] newId, long graceMillis,
      long absoluteMillis) {
    return new byte[][] {RedisSessionStore.utf8(Long.toString(nowMillis)),
        RedisSessionStore.utf8(Long.toString(version)), newId,
        RedisSessionStore.utf8(Long.toString(graceMillis)),
        RedisSessionStore.utf8(absoluteMillis > 0 ? Long.toString(absoluteMillis) : "")};
  }
}
