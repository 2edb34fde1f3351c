package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.lettuce.core.RedisConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Key and field names of one namespace; see {@code docs/redis-layout.md}. Not immutable: with keyed
 * names it reads their secret once, and remembers where sessions found during a rollout are located
 * (below).
 *
 * <p>Metadata fields start with {@code #}. An attribute whose name starts with {@code #} is stored
 * under its name with one more {@code #} in front, so attribute and metadata fields never collide and
 * every other attribute is stored under its own name.
 *
 * <p>With keyed names ({@link SessionNames}), a session's key, its schedule member and its
 * principal set are named by keyed hashes, the members hold the id sealed. A session is
 * <em>located</em> under keyed names or under its clear id: new sessions where this node writes
 * ({@code keyedByDefault}), sessions found elsewhere during a rollout (a miss under one name looked
 * under the other: {@link #fallsBack}) are remembered where they were found, so that their writes,
 * schedule and index entries go there too. Thread-safe.
 */
final class SessionKeys {
  /** The metadata field: {@code creation:lastAccess:maxInactive:version}, ASCII decimal numbers. */
  static final String METADATA = "#";
  /** Labels of the metadata in find.lua's answer for a copy that lacks them (not hash fields). */
  static final String CREATION = "#c";
  static final String LAST_ACCESS = "#a";
  static final String MAX_INACTIVE = "#m";
  static final String VERSION = "#v";
  static final String PRINCIPAL = "#p";
  /** The session id, sealed ({@link SessionNames#sealId}), in a hash under a keyed name. */
  static final String ID = "#i";
  /** The hash field of when the session's id was issued by a move (renewal or change; save.lua). */
  static final String RENEWED = "#r";
  /** The fields of the alias a renewal leaves under the old id: the new id, the grace's end. */
  static final String ALIAS = "#>";
  static final String ALIAS_UNTIL = "#t";
  /** Marker in a find answer: the caller's cached attribute fields are current. */
  static final String UNCHANGED = "#=";
  private static final int MAX_ID_LENGTH = 256;

  private final String namespace;
  private final byte[] expirations;
  /** {@code <namespace>:s:{}, ASCII (a namespace is checked to be). */
  private final byte[] sessionPrefix;
  /** Whether names are keyed (keys on); their secret may still be unknown ({@link #names()}). */
  private final boolean keyedNames;
  private final @Nullable Supplier<SessionNames> loader;
  private volatile @Nullable SessionNames names;
  private final boolean keyedByDefault;
  private final boolean fallsBack;
  /** Ids located against the default, found there during a rollout. */
  private final @Nullable Cache<String, Boolean> elsewhere;
  /** The marks of this node's saves ({@link NearCacheTracking#nextSaveMark}); null: none. */
  private volatile @Nullable Supplier<String> saveMarks;

  /** A namespace, checked: letters, digits and {@code -_.:} only (no spaces, no braces). */
  static String checkNamespace(String namespace) {
    java.util.Objects.requireNonNull(namespace, "namespace must not be null");
    if (!namespace.matches("[A-Za-z0-9_.:\\-]+")) {
      throw new IllegalArgumentException("namespace must be made of letters, digits and -_.: "
          + "(no spaces or braces), was '" + namespace + "'");
    }
    return namespace;
  }

  SessionKeys(String namespace) {
    this(namespace, false, null, null, false, false);
  }

  /**
   * @param names keyed names; null: every name in clear, as without keys
   * @param keyedByDefault whether new sessions are located under keyed names
   * @param fallsBack whether a miss under one name is looked up under the other (a rollout)
   */
  SessionKeys(String namespace, @Nullable SessionNames names, boolean keyedByDefault,
      boolean fallsBack) {
    this(namespace, names != null, names, null, keyedByDefault, fallsBack);
  }

  /**
   * Keyed names whose secret {@code loader} reads from Redis ({@link NamesKey}), once, when they
   * are first needed or {@link #loadNames()} is called.
   */
  SessionKeys(String namespace, Supplier<SessionNames> loader, boolean keyedByDefault,
      boolean fallsBack) {
    this(namespace, true, null, loader, keyedByDefault, fallsBack);
  }

  private SessionKeys(String namespace, boolean keyedNames, @Nullable SessionNames names,
      @Nullable Supplier<SessionNames> loader, boolean keyedByDefault, boolean fallsBack) {
    this.namespace = namespace;
    this.expirations = (namespace + ":expirations").getBytes(UTF_8);
    this.sessionPrefix = (namespace + ":s:{").getBytes(UTF_8);
    this.keyedNames = keyedNames;
    this.names = names;
    this.loader = loader;
    this.keyedByDefault = keyedNames && keyedByDefault;
    this.fallsBack = keyedNames && fallsBack;
    this.elsewhere = this.fallsBack ? Caffeine.newBuilder().maximumSize(100_000)
        .expireAfterAccess(Duration.ofHours(1)).<String, Boolean>build() : null;
  }

  /**
   * Reads the names secret from Redis now (startup, or a deferred connection that opened); nothing
   * without keyed names or once read.
   *
   * @throws IllegalStateException when this node's keys cannot open the cluster's names secret
   */
  void loadNames() {
    if (keyedNames && names == null) {
      synchronized (this) {
        if (names == null && loader != null) {
          names = loader.get();
        }
      }
    }
  }

  /**
   * The keyed names, read from Redis the first time they are needed; until then (Redis down since
   * startup, or this node's keys refused) the request fails as Redis being unavailable: no session
   * is named, nor written, under any other name.
   */
  private SessionNames names() {
    SessionNames loaded = names;
    if (loaded != null) {
      return loaded;
    }
    try {
      loadNames();
    } catch (IllegalStateException e) {
      throw new RedisConnectionException("keyed names are unavailable: " + e.getMessage(), e);
    }
    loaded = names;
    if (loaded == null) {
      throw new RedisConnectionException("keyed names are unavailable");
    }
    return loaded;
  }

  /** Whether a find that misses under a session's name looks under the other one. */
  boolean fallsBack() {
    return fallsBack;
  }

  /** Whether new sessions are located under keyed names: where this node writes. */
  boolean keyedByDefault() {
    return keyedByDefault;
  }

  /** Whether session {@code id} is located under keyed names. */
  boolean keyed(String id) {
    return keyedByDefault != (elsewhere != null && elsewhere.getIfPresent(id) != null);
  }

  /** Locates session {@code id} under keyed names or not (a fallback found it there). */
  void locate(String id, boolean keyed) {
    if (elsewhere != null) {
      if (keyed == keyedByDefault) {
        elsewhere.invalidate(id);
      } else {
        elsewhere.put(id, Boolean.TRUE);
      }
    }
  }

  /** {@code id}'s schedule and principal-set member: its id, sealed when it is located keyed. */
  byte[] member(String id) {
    return member(id, keyed(id));
  }

  /** {@code id}'s member as it stands under keyed names ({@code keyed}) or in clear. */
  byte[] member(String id, boolean keyed) {
    return keyedNames && keyed ? names().sealId(id) : id.getBytes(UTF_8);
  }

  /**
   * The session id a member (or an {@code #i} field) stands for, and where that session is located;
   * null when it is sealed and fails its check, or is in clear where only keyed names are read.
   */
  @Nullable String idOf(byte[] member) {
    if (!keyedNames) {
      return new String(member, UTF_8);
    }
    boolean sealed = SessionNames.isSealedId(member);
    String id = sealed ? names().openId(member) : new String(member, UTF_8);
    if (id == null || (sealed != keyedByDefault && !fallsBack)) {
      return null;
    }
    locate(id, sealed);
    return id;
  }

  /**
   * What the alias an id renewal leaves under {@code oldId} names (field {@code #>}): with keyed
   * names, {@code newId} sealed and bound to {@code oldId} and to {@code untilMillis}, the end of
   * the grace ({@link SessionNames#sealAlias}); else the new id in clear.
   */
  byte[] alias(String oldId, String newId, long untilMillis) {
    return keyedNames && keyed(newId) ? names().sealAlias(oldId, newId, untilMillis)
        : newId.getBytes(UTF_8);
  }

  /**
   * The session id an alias found under {@code oldId} names, and where that session is located;
   * null when it is not bound to {@code oldId}, its grace ended at {@code nowMillis}, or it is in
   * clear where only keyed names are read. A sealed id alone (as in a member or {@code #i}) is no
   * alias: a writer of Redis could copy one from anywhere.
   */
  @Nullable String aliasTarget(String oldId, byte[] stored, long nowMillis) {
    if (!keyedNames) {
      return new String(stored, UTF_8);
    }
    if (SessionNames.isSealedAlias(stored)) {
      String id = names().openAlias(oldId, stored, nowMillis);
      if (id == null || (!keyedByDefault && !fallsBack)) {
        return null;
      }
      locate(id, true);
      return id;
    }
    return SessionNames.isSealedId(stored) ? null : idOf(stored);
  }

  /**
   * The session id the {@code #i} field {@code sealedId} of the hash named {@code nameToken}
   * (between the braces) stands for; null unless it opens and names exactly that hash: copied from
   * another hash, it stands for nothing.
   */
  @Nullable String idStoredUnder(byte[] sealedId, String nameToken) {
    if (!keyedNames || !SessionNames.isSealedId(sealedId)) {
      return null;
    }
    String id = names().openId(sealedId);
    if (id == null || !names().sessionName(id).equals(nameToken)) {
      return null;
    }
    return idOf(sealedId);
  }

  /**
   * What stands for session {@code id} between the braces of its key name, where it is located:
   * its keyed name, or the id itself (how tracking invalidations name it).
   */
  String nameToken(String id) {
    return keyedNames && keyed(id) ? names().sessionName(id) : id;
  }

  String namespace() {
    return namespace;
  }

  /** {@code <namespace>:s:{<id>}}: the hash tag keeps every key of one session in one Cluster slot. */
  byte[] session(String id) {
    return session(id, keyed(id));
  }

  /**
   * Session {@code id}'s hash under keyed names ({@code keyed}) or in clear, wherever it is located:
   * what a move between the two names writes, without relocating the session for other threads.
   */
  byte[] session(String id, boolean keyed) {
    if (keyedNames && keyed) {
      return (namespace + ":s:{" + names().sessionName(id) + "}").getBytes(UTF_8);
    }
    // Every command of a request names it: an ASCII id (any id this library makes) is copied in
    // as it is, without a string in between.
    int length = id.length();
    byte[] key = new byte[sessionPrefix.length + length + 1];
    System.arraycopy(sessionPrefix, 0, key, 0, sessionPrefix.length);
    int at = sessionPrefix.length;
    for (int i = 0; i < length; i++) {
      char c = id.charAt(i);
      if (c >= 0x80) {
        return (namespace + ":s:{" + id + "}").getBytes(UTF_8);
      }
      key[at++] = (byte) c;
    }
    key[at] = '}';
    return key;
  }

  /**
   * The keys save.lua is called with: the session hash, and with tracked reads the mark of this
   * save, {@code <hash>:w:<writer>.<n>} (same Cluster slot), which the script writes and deletes so
   * that this node can tell its own save's invalidation ({@link TrackingConnection}).
   */
  byte[][] saveKeys(String id) {
    byte[] hash = session(id);
    Supplier<String> marks = saveMarks;
    if (marks == null) {
      return new byte[][] {hash};
    }
    return new byte[][] {hash, markKey(hash, marks.get())};
  }

  /** {@code <hash>:w:<mark>}: the key a save marked {@code mark} writes and deletes. */
  static byte[] markKey(byte[] hash, String mark) {
    byte[] tail = (TrackingConnection.MARK + mark).getBytes(UTF_8);
    byte[] key = java.util.Arrays.copyOf(hash, hash.length + tail.length);
    System.arraycopy(tail, 0, key, hash.length, tail.length);
    return key;
  }

  /** Saves mark themselves with what {@code marks} gives from now on. */
  void markSaves(Supplier<String> marks) {
    saveMarks = marks;
  }

  /**
   * {@code <namespace>:principal:<name>}, a set of session ids (members: {@link #member}), as this
   * node writes it: with keyed names the name is a keyed hash. The one place principal keys are
   * named.
   */
  byte[] principal(String principalName) {
    return principal(principalName, keyedByDefault);
  }

  /** The principal set a session {@code id} is indexed in, where that session is located. */
  byte[] principal(String principalName, String id) {
    return principal(principalName, keyedNames && keyed(id));
  }

  /** The principal set of {@code principalName} under keyed names ({@code keyed}) or in clear. */
  byte[] principal(String principalName, boolean keyed) {
    String name = keyed && keyedNames ? names().principalName(principalName) : principalName;
    return (namespace + ":principal:" + name).getBytes(UTF_8);
  }

  /** Every set that may index sessions of {@code principalName}: both during a rollout. */
  List<byte[]> principals(String principalName) {
    return fallsBack ? List.of(principal(principalName, true), principal(principalName, false))
        : List.of(principal(principalName));
  }

  /** {@code #i}, the sealed id in a keyed session's hash; null where the session is in clear. */
  byte @Nullable [] idField(String id) {
    return idField(id, keyed(id));
  }

  /** {@code #i} of session {@code id} under keyed names ({@code keyed}); null in clear. */
  byte @Nullable [] idField(String id, boolean keyed) {
    return keyedNames && keyed ? names().sealId(id) : null;
  }

  /**
   * {@code fieldValuePairs} (a script's arguments ending in field / value pairs) with {@code #i} and
   * its sealed id appended where session {@code id} is keyed; as they are otherwise.
   */
  byte[][] withIdField(String id, byte[][] fieldValuePairs) {
    byte[] idField = idField(id);
    if (idField == null) {
      return fieldValuePairs;
    }
    byte[][] arguments = java.util.Arrays.copyOf(fieldValuePairs, fieldValuePairs.length + 2);
    arguments[fieldValuePairs.length] = ID.getBytes(UTF_8);
    arguments[fieldValuePairs.length + 1] = idField;
    return arguments;
  }

  /** {@code <namespace>:expirations}: a sorted set of session id by the time it is due to expire. */
  byte[] expirations() {
    return expirations.clone();
  }

  /** Ids from cookies are untrusted: an empty or oversized one is never sent to Redis. */
  static boolean isPlausibleId(@Nullable String id) {
    return id != null && !id.isEmpty() && id.length() <= MAX_ID_LENGTH;
  }

  /**
   * Refuses an attribute name that has no UTF-8 form (a lone UTF-16 surrogate): its field name would
   * be written as {@code ?} and collide with other such names.
   *
   * @throws IllegalArgumentException naming the attribute and where the surrogate is
   */
  static void requireStorableName(String attributeName) {
    int lone = loneSurrogate(attributeName, 0);
    if (lone >= 0) {
      StringBuilder escaped = new StringBuilder(attributeName.length() + 8);
      for (int i = 0; i < attributeName.length(); ) {
        int next = loneSurrogate(attributeName, i);
        int end = next < 0 ? attributeName.length() : next;
        escaped.append(attributeName, i, end);
        if (next >= 0) {
          escaped.append(String.format("\\u%04X", (int) attributeName.charAt(next)));
        }
        i = end + 1;
      }
      throw new IllegalArgumentException("attribute name '" + escaped + "' holds a lone UTF-16 "
          + "surrogate at index " + lone + " and cannot be stored in Redis (field names are "
          + "UTF-8); use a name made of whole characters");
    }
  }

  /** The index of the first unpaired surrogate at or after {@code from}, or -1. */
  private static int loneSurrogate(String text, int from) {
    for (int i = from; i < text.length(); ) {
      int codePoint = text.codePointAt(i);
      if (codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE) {
        return i;
      }
      i += Character.charCount(codePoint);
    }
    return -1;
  }

  static String attributeField(String attributeName) {
    return attributeName.startsWith("#") ? "#" + attributeName : attributeName;
  }

  /** The attribute name stored in this field, or null when it is a metadata field. */
  static @Nullable String attributeName(String field) {
    if (field.startsWith("##")) {
      return field.substring(1);
    }
    return field.startsWith("#") ? null : field;
  }
}
