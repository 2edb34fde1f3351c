package io.lazysession.redis.internal;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * What BlockHound should not report of lazysession: the draw of random bytes for sealing values
 * with encryption keys, a read of the kernel's generator that never waits ({@code /dev/urandom}),
 * which a reactive save does on an event loop. Loaded by BlockHound through {@code
 * META-INF/services}, only where an application or test installs BlockHound.
 *
 * <p>Internal: public for BlockHound's service loader; not part of the supported API (docs/api.md).
 */
public final class BlockHoundAllowances implements BlockHoundIntegration {
  @Override
  public void applyTo(BlockHound.Builder builder) {
    builder.allowBlockingCallsInside("io.lazysession.redis.ValueProtection", "randomBytes");
  }
}
