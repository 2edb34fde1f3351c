package io.lazysession.redis;

/**
 * What {@link LazyRedisSessionRepository#reencrypt(ReencryptionMode)} did. Immutable.
 *
 * @param sessions session hashes it looked at
 * @param rewritten values it sealed anew under the first key (or, with {@code writeUnprotected},
 *     wrote unprotected)
 * @param renamed sessions it moved from their clear id to their keyed name, or back while
 *     protection is turned off (keyed names: docs/security.md)
 * @param remaining values still not as this node writes them: sealed under a key this node does not
 *     hold, refused (forged, or unprotected while {@code acceptUnprotected} is off), or rewritten by
 *     a save between the read and the rewrite (then under the first key; a second run tells); and
 *     sessions still under the name this node does not write (changed while being moved). 0 means
 *     the old keys can be removed (and {@code acceptUnprotected} turned off) without losing anything
 * @param signedOut sessions deleted because they held something unprotected ({@link
 *     ReencryptionMode#SIGN_OUT_UNPROTECTED}; 0 otherwise)
 */
public record ReencryptionReport(long sessions, long rewritten, long renamed, long remaining,
    long signedOut) {
  /** A report of a run that signed nobody out. */
  public ReencryptionReport(long sessions, long rewritten, long renamed, long remaining) {
    this(sessions, rewritten, renamed, remaining, 0);
  }
}
