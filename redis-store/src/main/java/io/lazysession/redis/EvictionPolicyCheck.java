package io.lazysession.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads Redis's eviction policy once a repository is connected, and says what it means for sessions
 * (docs/operations.md, "Memory"). Stateless.
 *
 * <p>Design note: lazysession keeps keys of two kinds. Session hashes carry a TTL; the expiry
 * schedule ({@code <ns>:expirations}) does not, and principal sets do only without expiry events.
 * {@code allkeys-*} policies may evict the schedule or a principal set while the sessions they index
 * live on: expiry events and {@code findByPrincipalName} then silently miss sessions. With
 * {@code volatile-*}, only keys with a TTL go (a session evicted is a user signed out, no index
 * left inconsistent beyond what the sweep repairs); with {@code noeviction}, saves fail when memory
 * is full, and the store reports Redis as unavailable (503) until memory frees.
 */
final class EvictionPolicyCheck {
  private static final Logger log = LoggerFactory.getLogger(EvictionPolicyCheck.class);

  private EvictionPolicyCheck() {}

  /** What the policy means; null when there is nothing to say. */
  static @Nullable String warning(String policy, long maxMemory) {
    if (maxMemory <= 0) {
      return null; // no limit: Redis never evicts
    }
    String normalized = policy.toLowerCase(Locale.ROOT);
    if (normalized.startsWith("allkeys-")) {
      return "Redis evicts any key when it reaches maxmemory (maxmemory-policy " + policy + "): it "
          + "may evict lazysession's expiry schedule or a principal's index set while their sessions "
          + "live on, and expiry events and findByPrincipalName then miss those sessions. Set "
          + "maxmemory-policy to noeviction (saves fail, answered 503, while memory is full) or "
          + "volatile-lru (only keys with a TTL are evicted: sessions, whose users sign in again, and "
          + "the few index keys that have one); see docs/operations.md#memory";
    }
    return null;
  }

  /** Reads the policy (INFO memory, on one node of a Cluster) and logs a warning when it is risky. */
  static void report(RedisClusterCommands<byte[], byte[]> commands) {
    String info;
    try {
      info = commands.info("memory");
    } catch (RedisException e) {
      log.debug("cannot read Redis's eviction policy: {}", e.toString());
      return;
    }
    String policy = field(info, "maxmemory_policy");
    String maxMemory = field(info, "maxmemory");
    if (policy == null || maxMemory == null) {
      return;
    }
    long limit;
    try {
      limit = Long.parseLong(maxMemory);
    } catch (NumberFormatException e) {
      return;
    }
    String warning = warning(policy, limit);
    if (warning != null) {
      log.warn(warning);
    }
  }

  private static @Nullable String field(@Nullable String info, String name) {
    if (info == null) {
      return null;
    }
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    return null;
  }
}
