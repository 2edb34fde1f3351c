package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The key names of the expiry schedule of Redis format 2: one set per minute,
 * {@code <ns>:expirations:{<ns>:expirations}:<minute>} (the minute: epoch milliseconds / 60000),
 * holding the members (session ids, sealed with encryption keys) due in that minute. The hash tag
 * puts every bucket in the slot of format 1's sorted set {@code <ns>:expirations}, so that the
 * scripts that move a member between the two (schedule.lua, unschedule.lua) touch one Cluster slot
 * (a namespace holds no braces: {@link SessionKeys#checkNamespace}). Immutable.
 *
 * <p>A bucket is swept once its minute is over, by any node, within {@link #LOOK_BACK} minutes;
 * Redis drops a bucket that long after its minute ended (schedule.lua), so that buckets nobody swept
 * (every node down for an hour) do not stay for ever. See docs/redis-layout.md, "Expiry schedule".
 */
final class ExpiryBuckets {
  /** The width of one bucket. */
  static final long MINUTE = 60_000;
  /** How many past minutes a sweep looks at, and how long after its minute a bucket lives. */
  static final int LOOK_BACK = 60;
  /**
   * How many minutes, from the current one, a create or id change in flight is scheduled at most
   * ({@link ExpirySweeper#IN_FLIGHT} ahead, in the bucket of that minute): the buckets a delete
   * and a lookup ({@code scheduledExpiry}) look in besides the sorted set.
   */
  static final int IN_FLIGHT_BUCKETS =
      (int) (ExpirySweeper.IN_FLIGHT.toMillis() / MINUTE) + 2;

  private final byte[] zset;
  private final String prefix;

  ExpiryBuckets(SessionKeys keys) {
    this.zset = keys.expirations();
    String name = new String(zset, UTF_8);
    this.prefix = name + ":{" + name + "}:";
  }

  /** The minute {@code millis} falls in: the number of its bucket. */
  static long minute(long millis) {
    return Math.floorDiv(millis, MINUTE);
  }

  /** The format 1 schedule, {@code <ns>:expirations}. */
  byte[] zset() {
    return zset.clone();
  }

  /** The bucket of {@code minute}. */
  byte[] bucket(long minute) {
    return (prefix + minute).getBytes(UTF_8);
  }

  /** When Redis drops the bucket of {@code minute}, epoch milliseconds (at the latest). */
  static byte[] dropAt(long minute) {
    return Long.toString((minute + 1 + LOOK_BACK) * MINUTE).getBytes(UTF_8);
  }

  /** {@code <ns>:expirations}, then the buckets a create or id change in flight at {@code now} is in. */
  byte[][] zsetAndInFlight(long now) {
    long first = minute(now);
    byte[][] keys = new byte[IN_FLIGHT_BUCKETS + 1][];
    keys[0] = zset();
    for (int i = 0; i < IN_FLIGHT_BUCKETS; i++) {
      keys[i + 1] = bucket(first + i);
    }
    return keys;
  }

  /** The buckets of the {@link #LOOK_BACK} minutes before the one of {@code now}, oldest first. */
  byte[][] past(long now) {
    long current = minute(now);
    byte[][] keys = new byte[LOOK_BACK][];
    for (int i = 0; i < LOOK_BACK; i++) {
      keys[i] = bucket(current - LOOK_BACK + i);
    }
    return keys;
  }

  /** The minute of the bucket at {@code index} of {@link #past}. */
  static long pastMinute(long now, int index) {
    return minute(now) - LOOK_BACK + index;
  }
}
