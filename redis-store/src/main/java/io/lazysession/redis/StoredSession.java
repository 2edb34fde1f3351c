package io.lazysession.redis;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A session hash as the find script returned it: metadata parsed, attribute envelopes as bytes
 * (parsed by {@link ScriptReplies#find}). Immutable.
 *
 * @param unchanged whether Redis confirmed the caller's near-cache copy (whose creation time and
 *     attributes these are) instead of sending the hash
 * @param attributes attribute name to envelope bytes, in field order (once the pack is read by
 *     {@link AttributePacking#expand}, the pack's attributes too)
 * @param pack the pack field, as the answer carried it or as read
 * @param renewed when the id was issued by a renewal or change of id (field {@code #r}), epoch
 *     milliseconds; 0 when it is the id the session was created with
 */
record StoredSession(long creation, long lastAccess, long maxInactiveSeconds, long version,
    @Nullable String principal, boolean unchanged, Map<String, byte[]> attributes,
    StoredPack pack, long renewed) {

  StoredSession(long creation, long lastAccess, long maxInactiveSeconds, long version,
      @Nullable String principal, boolean unchanged, Map<String, byte[]> attributes,
      StoredPack pack) {
    this(creation, lastAccess, maxInactiveSeconds, version, principal, unchanged, attributes, pack,
        0);
  }
}
