package io.lazysession.redis;

import java.util.Collection;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One call of the save script, typed; {@link #arguments()} is its wire form, read by save.lua.
 *
 * @param nowMillis the caller's clock, epoch milliseconds
 * @param maxInactiveSeconds the timeout to store; null (updates only) keeps the stored one
 * @param writes attribute name to envelope bytes to store
 * @param removes attribute names whose fields are deleted
 */
record SaveRequest(SaveMode mode, long nowMillis, long creationMillis, long lastAccessMillis,
    @Nullable Long maxInactiveSeconds, long graceMillis, PrincipalChange principal,
    Map<String, byte[]> writes, Collection<String> removes) {
  /**
   * The request that saves {@code session} at {@code nowMillis}. The max inactive interval is sent
   * only when {@code withTimeout} (created, or changed by this request): otherwise the script keeps
   * the stored one, which another node may have changed since this request loaded the session.
   */
  static SaveRequest of(SaveMode mode, long nowMillis, LazySession session,
      PrincipalChange principal, boolean withTimeout, long graceMillis,
      Map<String, byte[]> writes, Collection<String> removes) {
    long maxInactive = session.getMaxInactiveInterval().isNegative() ? -1L
        : session.getMaxInactiveInterval().getSeconds();
    return new SaveRequest(mode, nowMillis, session.getCreationTime().toEpochMilli(),
        session.getLastAccessedTime().toEpochMilli(), withTimeout ? maxInactive : null,
        graceMillis, principal, writes, removes);
  }

  /** How the save script treats the key: see save.lua. */
  enum SaveMode {
    /** The key must not exist (or be this very create, re-sent). */
    CREATE("n"),
    /** The session must exist and be live; nothing is written otherwise. */
    UPDATE("u");

    private final byte[] argument;

    SaveMode(String argument) {
      this.argument = RedisSessionStore.utf8(argument);
    }
  }

  /** The save script's arguments, as save.lua reads them. */
  byte[][] arguments() {
    int size = 8 + writes().size() * 2 + removes().size();
    byte[][] arguments = new byte[size][];
    int i = 0;
    arguments[i++] = mode.argument;
    arguments[i++] = RedisSessionStore.utf8(Long.toString(nowMillis()));
    arguments[i++] = RedisSessionStore.utf8(Long.toString(creationMillis()));
    arguments[i++] = RedisSessionStore.utf8(Long.toString(lastAccessMillis()));
    arguments[i++] = maxInactiveSeconds() == null ? new byte[0]
        : RedisSessionStore.utf8(Long.toString(maxInactiveSeconds()));
    arguments[i++] = RedisSessionStore.utf8(Long.toString(graceMillis()));
    arguments[i++] = principalArgument(principal());
    arguments[i++] = RedisSessionStore.utf8(Integer.toString(writes().size()));
    for (Map.Entry<String, byte[]> write : writes().entrySet()) {
      arguments[i++] = RedisSessionStore.utf8(SessionKeys.attributeField(write.getKey()));
      arguments[i++] = write.getValue();
    }
    for (String name : removes()) {
      arguments[i++] = RedisSessionStore.utf8(SessionKeys.attributeField(name));
    }
    return arguments;
  }

  /** The principal as save.lua reads it: '' unchanged, '-' none, '=' followed by the name. */
  private static byte[] principalArgument(PrincipalChange change) {
    if (change instanceof PrincipalChange.SetTo set) {
      return RedisSessionStore.utf8("=" + set.name());
    }
    return RedisSessionStore.utf8(change instanceof PrincipalChange.Removed ? "-" : "");
  }
}
