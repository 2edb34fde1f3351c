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
 */
record StoredSession(long creation, long lastAccess, long maxInactiveSeconds, long version,
    @Nullable String principal, boolean unchanged, Map<String, byte[]> attributes,
    StoredPack pack) {}
