package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * find.lua as a Redis 7 function, so that a near-cache hit is {@code FCALL f 1 <key> <version>}
 * rather than EVALSHA with a 40-character SHA. {@link RedisSessionStore} falls back to EVALSHA where
 * functions are not available. Stateless.
 */
final class FindFunction {
  private static final Logger log = LoggerFactory.getLogger(FindFunction.class);

  /**
   * The name find.lua is registered under as a Redis 7 function: one character, so that a near-cache
   * hit ({@code FCALL f 1 <key> <version>}, answered {@code :1}) stays under 100 bytes.
   */
  static final String NAME = "f";
  /** find-function.lua under a library name made from its code: one name, one code. */
  static final String LIBRARY;
  private static final String LIBRARY_SOURCE;

  static {
    String code = new String(RedisScript.FIND_FUNCTION.source(), UTF_8);
    LIBRARY = "lazysession_" + RedisScript.FIND_FUNCTION.sha().substring(0, 16);
    LIBRARY_SOURCE = "#!lua name=" + LIBRARY + "\n" + code;
  }

  private FindFunction() {}

  /**
   * Registers find.lua as the function {@value #NAME} of the library {@link
   * #LIBRARY}, unless Redis has it already; true when FCALL can be used. False, and find
   * stays on EVALSHA, when Redis has no functions (before 7.0), refuses them (ACL), or another
   * library already registered a function of that name (another application, or another version of
   * this store during a rolling deploy: {@code FUNCTION DELETE} its library once no node runs it any
   * more, and restart). Not on a Cluster: Lettuce would load the function on one node only.
   */
  static boolean load(RedisClusterCommands<byte[], byte[]> commands, MetricsRecorder metrics) {
    if (commands instanceof RedisAdvancedClusterCommands) {
      return false;
    }
    try {
      metrics.roundTrips.increment();
      commands.functionLoad(LIBRARY_SOURCE);
      return true;
    } catch (RedisCommandExecutionException e) {
      // Already there (its name is derived from its code, so it is this very code), or refused.
      try {
        metrics.roundTrips.increment();
        boolean loaded = !commands.functionList(LIBRARY).isEmpty();
        if (!loaded) {
          log.info("finding sessions by EVALSHA: Redis did not register the function '{}' ({})",
              NAME, e.getMessage());
        }
        return loaded;
      } catch (RedisCommandExecutionException unavailable) {
        return false; // Redis before 7.0, or FUNCTION refused
      }
    }
  }
}
