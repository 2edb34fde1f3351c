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
   * With {@link #MOVED}, the id the session now has, as {@code keys} read it from the alias (sealed
   * under keyed names); else null.
   */
  @Nullable String movedTo(SessionKeys keys) {
    return version == MOVED && currentPack != null ? keys.idOf(currentPack) : null;
  }
}
