package io.lazysession.redis;

import java.util.List;
import java.util.Map;

/**
 * A session as Spring Session Data Redis stored it, read by {@link SsdrLayout#read}: its metadata,
 * and each attribute's JDK-serialized bytes already wrapped as a JDK-codec envelope (decoded only
 * when the application reads it, through the allow-list). Immutable.
 *
 * @param attributes attribute name to envelope bytes, in field order
 * @param fields the names of every field of the hash it was read from, in the order of {@code digest}
 * @param digest what claim-ssdr.lua compares the hash with to tell whether it is still this one:
 *     {@link SsdrLayout#digest}
 */
record SsdrSession(long creation, long lastAccess, long maxInactiveSeconds,
    Map<String, byte[]> attributes, List<byte[]> fields, byte[] digest) {

  /** When Spring Session Data Redis considers it expired, as it computes it; Long.MAX_VALUE: never. */
  long expiresAtMillis() {
    return maxInactiveSeconds < 0 ? Long.MAX_VALUE : lastAccess + maxInactiveSeconds * 1000;
  }

  /**
   * migrate.lua's arguments for this session, taken over at {@code nowMillis}, with the bytes of
   * {@code replaced} attributes in place of those read from SSDR; {@code absoluteMillis}: the
   * absolute timeout (0: none), which bounds the TTL as a save's does.
   */
  byte[][] migrateArguments(long nowMillis, long graceMillis, long absoluteMillis,
      Map<String, byte[]> replaced) {
    byte[][] arguments = new byte[5 + attributes.size() * 2][];
    int i = 0;
    arguments[i++] = RedisSessionStore.utf8(Long.toString(nowMillis));
    arguments[i++] = RedisSessionStore.utf8(Long.toString(creation));
    arguments[i++] = RedisSessionStore.utf8(Long.toString(lastAccess));
    arguments[i++] = RedisSessionStore.utf8(Long.toString(maxInactiveSeconds));
    arguments[i++] = SaveRequest.graceArgument(graceMillis, absoluteMillis);
    for (Map.Entry<String, byte[]> attribute : attributes.entrySet()) {
      arguments[i++] = RedisSessionStore.utf8(SessionKeys.attributeField(attribute.getKey()));
      arguments[i++] = replaced.getOrDefault(attribute.getKey(), attribute.getValue());
    }
    return arguments;
  }
}
