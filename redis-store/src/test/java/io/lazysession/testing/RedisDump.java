package io.lazysession.testing;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * What Redis holds, as text a test can search: for a test that something (a session id, a user's
 * name, a secret) is never stored in clear.
 */
public final class RedisDump {
  private RedisDump() {}

  /** Every key matching {@code pattern}, its members and values, as ISO-8859-1 text. */
  public static String of(RedisCommands<byte[], byte[]> raw, String pattern) {
    StringBuilder dump = new StringBuilder();
    ScanIterator<byte[]> keys = ScanIterator.scan(raw, KeyScanArgs.Builder.matches(pattern));
    while (keys.hasNext()) {
      byte[] key = keys.next();
      dump.append(new String(key, ISO_8859_1)).append('\n');
      switch (raw.type(key)) {
        case "hash" -> raw.hgetall(key).forEach((field, value) -> dump.append(
            new String(field, ISO_8859_1)).append('=').append(new String(value, ISO_8859_1)));
        case "set" -> raw.smembers(key).forEach(m -> dump.append(new String(m, ISO_8859_1)));
        case "zset" -> raw.zrange(key, 0, -1).forEach(m -> dump.append(new String(m, ISO_8859_1)));
        default -> dump.append(new String(raw.dump(key), ISO_8859_1));
      }
      dump.append('\n');
    }
    return dump.toString();
  }
}
