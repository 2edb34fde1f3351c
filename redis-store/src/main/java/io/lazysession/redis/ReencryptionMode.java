package io.lazysession.redis;

/**
 * What {@link LazyRedisSessionRepository#reencrypt(ReencryptionMode)} does with a session that holds
 * something stored without protection (a value, its pack or its principal, or the session itself
 * under its clear id): docs/security.md, "Rollout".
 */
public enum ReencryptionMode {
  /**
   * Seal it as this node writes: nobody is signed out. Whatever Redis holds becomes authentic,
   * including anything a writer of Redis planted before or during the rollout: use it when Redis
   * is trusted up to this point.
   */
  SEAL_UNPROTECTED,
  /**
   * Sign the session out (delete it, with its index entries and a deleted event) instead of
   * sealing it: for a deployment whose Redis may already hold planted sessions or values. Its users
   * sign in again; sessions already wholly protected are kept and resealed as with
   * {@link #SEAL_UNPROTECTED}.
   */
  SIGN_OUT_UNPROTECTED
}
