package io.lazysession.redis;

import io.lettuce.core.RedisException;
import org.jspecify.annotations.Nullable;

/**
 * What save.lua answered to one save ({@link RedisSessionStore#save}): the new version, and how many
 * replicas acknowledged it (-1: not asked). Immutable.
 *
 * @param waitFailure why WAIT failed after the script applied the write (a timeout, a dropped
 *     connection); null when it answered or was not sent
 * @param currentPack with {@link #PACK_CONFLICT}, the pack the hash holds (null: none); with
 *     {@link #MOVED}, the id the session moved to
 */
record SaveResult(long version, long acknowledged, @Nullable RedisException waitFailure,
    byte @Nullable [] currentPack) {
  /** The version of an update that found another pack than it was made from: nothing written. */
  static final long PACK_CONFLICT = -2;
  /**
   * The version of an update that found the session's id renewed ({@link IdRenewal}): nothing
   * written; {@link #movedTo} is the new id, to which the update is sent again.
   */
  static final long MOVED = -3;

  SaveResult(long version, long acknowledged, @Nullable RedisException waitFailure) {
    this(version, acknowledged, waitFailure, null);
  }

  /**
   * With {@link #MOVED}, the id session {@code id} now has, as {@code keys} read it from the alias
   * ({@link SessionKeys#aliasTarget}: under keyed names only an alias bound to {@code id} within its
   * grace); else null.
   */
  @Nullable String movedTo(SessionKeys keys, String id, long nowMillis) {
    return version == MOVED && currentPack != null
        ? keys.aliasTarget(id, currentPack, nowMillis) : null;
  }

  /**
   * This answer, or "missing" (version 0: nothing was written) when it is {@link #MOVED} to nowhere
   * this node follows: the alias is not bound to the session's id (a writer of Redis made it), or
   * its grace is over.
   */
  SaveResult unlessMovedNowhere(@Nullable String movedTo) {
    return version == MOVED && movedTo == null ? new SaveResult(0, acknowledged, waitFailure) : this;
  }
}
