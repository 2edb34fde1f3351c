package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads the answers of the scripts and commands of {@link RedisSessionStore} into typed values: the
 * one place that knows their layout (see the comment at the top of each script). Stateless.
 */
final class ScriptReplies {
  private ScriptReplies() {}

  /** What the expire script found; see expire.lua. */
  enum ExpireOutcome {
    /** Expired: deleted. */
    EXPIRED,
    /** Missing or incomplete: deleted if present. */
    GONE,
    /** Live again (touched since it was scheduled): nothing deleted. */
    LIVE,
    /** No longer expires: nothing deleted. */
    NEVER
  }

  /**
   * The expire script's answer.
   *
   * @param metadata of the deleted session ({@code EXPIRED}, {@code GONE}); for {@code LIVE} its last
   *     access and timeout; empty for {@code NEVER}
   */
  record ExpireReply(ExpireOutcome outcome, SessionMetadata metadata) {}

  /**
   * The delete script's answer with {@code 'all'}.
   *
   * @param attributes attribute name to envelope bytes, as the hash held them when it was deleted
   */
  record DeletedHash(SessionMetadata metadata, Map<String, byte[]> attributes) {}

  /** {c, a, m, p}, then the hash's fields and values: metadata and attributes. */
  static DeletedHash deletedHash(List<byte @Nullable []> answer) {
    Map<String, byte[]> attributes = new LinkedHashMap<>();
    for (int i = 4; i + 1 < answer.size(); i += 2) {
      byte[] name = answer.get(i);
      byte[] value = answer.get(i + 1);
      String attribute = name == null ? null : SessionKeys.attributeName(new String(name, UTF_8));
      if (attribute != null && value != null) {
        attributes.put(attribute, value);
      }
    }
    return new DeletedHash(metadata(answer, 0), attributes);
  }

  /**
   * Parses a find answer (alternating field names and values); null when a metadata field is missing
   * or unreadable. An "unchanged" answer carries no creation time nor attributes: they are taken from
   * {@code cached}, the copy whose version the caller sent.
   */
  static @Nullable StoredSession find(List<byte @Nullable []> fields,
      NearCache.@Nullable Snapshot cached) {
    Long creation = null;
    Long lastAccess = null;
    Long maxInactive = null;
    Long version = null;
    String principal = null;
    boolean unchanged = false;
    Map<String, byte[]> attributes = new LinkedHashMap<>();
    for (int i = 0; i + 1 < fields.size(); i += 2) {
      byte[] nameBytes = fields.get(i);
      byte[] value = fields.get(i + 1);
      if (nameBytes == null || value == null) {
        continue;
      }
      String field = new String(nameBytes, UTF_8);
      String attribute = SessionKeys.attributeName(field);
      if (attribute != null) {
        attributes.put(attribute, value);
        continue;
      }
      switch (field) {
        case SessionKeys.CREATION -> creation = number(value);
        case SessionKeys.LAST_ACCESS -> lastAccess = number(value);
        case SessionKeys.MAX_INACTIVE -> maxInactive = number(value);
        case SessionKeys.VERSION -> version = number(value);
        case SessionKeys.PRINCIPAL -> principal = new String(value, UTF_8);
        case SessionKeys.UNCHANGED -> unchanged = true;
        default -> { } // metadata written by a later version: ignored
      }
    }
    if (unchanged) {
      if (cached == null || version == null || cached.version() != version) {
        return null;
      }
      creation = cached.creation();
      attributes = cached.attributes();
    }
    if (creation == null || lastAccess == null || maxInactive == null || version == null) {
      return null;
    }
    return new StoredSession(creation, lastAccess, maxInactive, version, principal, unchanged,
        attributes);
  }

  /** {creation, last access, max inactive, principal} from {@code from} on; missing ones null. */
  static SessionMetadata metadata(List<byte @Nullable []> values, int from) {
    return new SessionMetadata(number(at(values, from)), number(at(values, from + 1)),
        number(at(values, from + 2)), text(at(values, from + 3)));
  }

  /** The expire script's answer: the outcome first, then what it says about the session. */
  static ExpireReply expire(List<byte @Nullable []> answer) {
    String outcome = answer.isEmpty() ? "gone" : text(answer.get(0));
    if ("never".equals(outcome)) {
      return new ExpireReply(ExpireOutcome.NEVER, SessionMetadata.NONE);
    }
    if ("live".equals(outcome)) {
      return new ExpireReply(ExpireOutcome.LIVE, new SessionMetadata(null,
          number(at(answer, 1)), number(at(answer, 2)), null));
    }
    return new ExpireReply("expired".equals(outcome) ? ExpireOutcome.EXPIRED : ExpireOutcome.GONE,
        metadata(answer, 1));
  }

  static @Nullable Long number(byte @Nullable [] bytes) {
    if (bytes == null) {
      return null;
    }
    try {
      return Long.parseLong(new String(bytes, UTF_8));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  static @Nullable String text(byte @Nullable [] bytes) {
    return bytes == null ? null : new String(bytes, UTF_8);
  }

  private static byte @Nullable [] at(List<byte @Nullable []> values, int index) {
    return index < values.size() ? values.get(index) : null;
  }
}
