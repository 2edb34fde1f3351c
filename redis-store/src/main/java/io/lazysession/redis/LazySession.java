package io.lazysession.redis;

import io.lazysession.serializer.SerializationException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.Session;

/**
 * A session loaded from (or about to be stored in) Redis by {@link LazyRedisSessionRepository}. It
 * knows nothing of Redis: what it needs from its repository comes through a {@link SessionContext}.
 *
 * <p>Each attribute stays as the envelope bytes it was stored as until {@link #getAttribute} asks for
 * it; then that one value is decoded, once. {@code setAttribute} and {@code removeAttribute} are
 * remembered as changes; {@link LazyRedisSessionRepository#save} writes only those, plus any value
 * that was read and now encodes differently (an in-place mutation).
 *
 * <p>Not thread-safe: like Spring Session's own sessions, one instance serves one request at a time.
 * Concurrent requests each load their own instance.
 */
public final class LazySession implements Session {
  /**
   * The request attribute under which, in a Spring web request, the repository leaves the session
   * that the request loaded or created.
   */
  public static final String REQUEST_ATTRIBUTE = LazySession.class.getName() + ".CURRENT";

  static final String SPRING_SECURITY_CONTEXT = "SPRING_SECURITY_CONTEXT";

  private final SessionContext context;
  /**
   * The attributes, in stored order, by name. While {@link #loadedBytes} is not null, only the
   * entries the request asked for are here (in any order), and every other name of {@code
   * loadedBytes} stands for a loaded entry nobody asked for: see {@link #entries()}.
   */
  private Map<String, AttributeEntry> attributes = new LinkedHashMap<>();
  /**
   * The map a read-only request's session was loaded from, shared with the near cache (never
   * modified), until the first change or full walk of the attributes makes every entry; null after.
   * A request that only reads a few attributes makes entries for those only.
   */
  private @Nullable Map<String, byte[]> loadedBytes;
  /**
   * The attribute names Redis holds for this session, as far as this instance knows (loaded, or
   * written by its last save). At save, every one of them that the session no longer has is deleted,
   * however often it was set and removed in between. After a load this is the key set of the loaded
   * map (shared with the near cache, read-only) until {@link #committed} or {@link #mergeStored}
   * changes it: see {@link #ownStoredNames}.
   */
  private Set<String> storedNames = new LinkedHashSet<>();
  private boolean storedNamesOwned = true;
  /**
   * Attributes this node cannot decode but another node may (see {@link
   * DecodeFailurePolicy#DROP_ATTRIBUTE}): hidden from the application, their stored bytes are kept
   * in Redis as they are, neither deleted nor re-encoded.
   */
  private final Map<String, byte[]> hidden = new LinkedHashMap<>();
  private final Instant creationTime;
  private String id;
  private String storedId;
  private boolean isNew;
  private boolean invalidated;
  private boolean principalTouched;
  private Instant lastAccessedTime;
  private Instant storedLastAccessedTime;
  private Duration maxInactiveInterval;
  private Duration storedMaxInactiveInterval;
  private long version;
  /** The near-cache epoch in which {@link #version} was read from or written to Redis. */
  private long nearCacheEpoch;
  private @Nullable String storedPrincipal;
  /**
   * The Spring Session Data Redis session this one was loaded from, until its first save takes it
   * over; null for a session of lazysession's own layout. See {@link SpringSessionDataRedisMigration}.
   */
  private @Nullable SsdrSession migratingFrom;

  /** A new session, not yet stored. */
  LazySession(SessionContext context, String id, Instant now, Duration maxInactive) {
    this.context = context;
    this.id = id;
    this.storedId = id;
    this.isNew = true;
    this.creationTime = now;
    this.lastAccessedTime = now;
    this.storedLastAccessedTime = now;
    this.maxInactiveInterval = maxInactive;
    this.storedMaxInactiveInterval = maxInactive;
  }

  /** A session loaded from Redis; attributes are added with {@link #loaded}. */
  LazySession(SessionContext context, String id, Instant creationTime,
      Instant lastAccessedTime, Duration maxInactive, long version, @Nullable String principal,
      long nearCacheEpoch) {
    this.context = context;
    this.id = id;
    this.storedId = id;
    this.isNew = false;
    this.creationTime = creationTime;
    this.lastAccessedTime = lastAccessedTime;
    this.storedLastAccessedTime = lastAccessedTime;
    this.maxInactiveInterval = maxInactive;
    this.storedMaxInactiveInterval = maxInactive;
    this.version = version;
    this.storedPrincipal = principal;
    this.nearCacheEpoch = nearCacheEpoch;
  }

  void loaded(String name, byte[] stored) {
    entries().put(name, AttributeEntry.loaded(context.serializer(), stored));
    ownStoredNames().add(name);
  }

  /**
   * Adds every attribute of a freshly loaded session at once. {@code stored} is never modified
   * (it may be the near cache's copy): its key set is shared as the stored names.
   */
  void loaded(Map<String, byte[]> stored) {
    if (!attributes.isEmpty() || !storedNames.isEmpty()) {
      stored.forEach(this::loaded);
      return;
    }
    loadedBytes = stored;
    attributes = new LinkedHashMap<>(4);
    storedNames = Collections.unmodifiableSet(stored.keySet());
    storedNamesOwned = false;
  }

  /**
   * Every attribute's entry, in stored order, made now for the loaded attributes nobody asked for:
   * what any change or full walk of the attributes works on.
   */
  private Map<String, AttributeEntry> entries() {
    Map<String, byte[]> loaded = loadedBytes;
    if (loaded != null) {
      Map<String, AttributeEntry> all = new LinkedHashMap<>((int) (loaded.size() / 0.75f) + 1);
      var serializer = context.serializer();
      for (Map.Entry<String, byte[]> attribute : loaded.entrySet()) {
        AttributeEntry asked = attributes.get(attribute.getKey());
        all.put(attribute.getKey(),
            asked != null ? asked : AttributeEntry.loaded(serializer, attribute.getValue()));
      }
      attributes = all;
      loadedBytes = null;
    }
    return attributes;
  }

  /** The entry of {@code name}, made if it is a loaded one nobody asked for yet; null if none. */
  private @Nullable AttributeEntry entry(String name) {
    AttributeEntry entry = attributes.get(name);
    Map<String, byte[]> loaded = loadedBytes;
    if (entry == null && loaded != null) {
      byte[] stored = loaded.get(name);
      if (stored != null) {
        entry = AttributeEntry.loaded(context.serializer(), stored);
        attributes.put(name, entry);
      }
    }
    return entry;
  }

  /** The stored names, as a set of this instance's own that may be changed. */
  private Set<String> ownStoredNames() {
    if (!storedNamesOwned) {
      storedNames = new LinkedHashSet<>(storedNames);
      storedNamesOwned = true;
    }
    return storedNames;
  }

  @Override
  public String getId() {
    return id;
  }

  /**
   * Gives the session a new id (session fixation protection). The stored session moves to the new id
   * when the session is saved.
   */
  @Override
  public String changeSessionId() {
    id = context.newSessionId();
    return id;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> @Nullable T getAttribute(String attributeName) {
    AttributeEntry entry = entry(attributeName);
    if (entry == null) {
      return null;
    }
    try {
      return (T) entry.value().get();
    } catch (SerializationException e) {
      context.decodeFailed(this, attributeName, e);
      return null;
    }
  }

  @Override
  public Set<String> getAttributeNames() {
    Map<String, byte[]> loaded = loadedBytes;
    return Collections.unmodifiableSet(
        new LinkedHashSet<>(loaded != null ? loaded.keySet() : attributes.keySet()));
  }

  /**
   * Sets an attribute; a null value removes it. The value is encoded when the session is saved.
   *
   * @throws IllegalArgumentException when the name cannot be stored as a Redis field (it holds a
   *     lone UTF-16 surrogate, which has no UTF-8 form)
   */
  @Override
  public void setAttribute(String attributeName, @Nullable Object attributeValue) {
    Objects.requireNonNull(attributeName, "attributeName must not be null");
    if (attributeValue == null) {
      removeAttribute(attributeName);
      return;
    }
    SessionKeys.requireStorableName(attributeName);
    AttributeEntry previous = entries().get(attributeName);
    attributes.put(attributeName, AttributeEntry.set(context.serializer().ofValue(attributeValue),
        previous == null ? null : previous.stored()));
    hidden.remove(attributeName);
    notePrincipal(attributeName);
  }

  @Override
  public void removeAttribute(String attributeName) {
    entries().remove(attributeName);
    hidden.remove(attributeName);
    notePrincipal(attributeName);
  }

  @Override
  public Instant getCreationTime() {
    return creationTime;
  }

  @Override
  public void setLastAccessedTime(Instant lastAccessedTime) {
    this.lastAccessedTime = Objects.requireNonNull(lastAccessedTime, "lastAccessedTime");
  }

  @Override
  public Instant getLastAccessedTime() {
    return lastAccessedTime;
  }

  /** A negative interval means the session never expires. */
  @Override
  public void setMaxInactiveInterval(Duration interval) {
    this.maxInactiveInterval = Objects.requireNonNull(interval, "interval");
  }

  @Override
  public Duration getMaxInactiveInterval() {
    return maxInactiveInterval;
  }

  @Override
  public boolean isExpired() {
    return isExpired(context.now());
  }

  boolean isExpired(Instant now) {
    return invalidated || (!maxInactiveInterval.isNegative()
        && !now.isBefore(lastAccessedTime.plus(maxInactiveInterval)));
  }

  /**
   * Per attribute: the stored size and whether this request decoded it. Reading this does not decode
   * anything.
   */
  public List<AttributeInfo> attributeInfo() {
    List<AttributeInfo> info = new ArrayList<>(entries().size());
    attributes.forEach((name, entry) -> info.add(new AttributeInfo(name,
        entry.stored() == null || entry.isSet() ? -1 : entry.stored().length,
        entry.isSet() || entry.isInflated(), entry.isSet())));
    return info;
  }

  /**
   * The session the current Spring web request loaded or created through lazysession, if any: the
   * object behind the request's {@code HttpSession}, for diagnostics such as {@link #attributeInfo()}.
   * That is the first session the request loaded, or the last one it created; sessions looked up
   * later in the request (such as by {@code findByPrincipalName}) are never returned here.
   */
  public static Optional<LazySession> current() {
    return Optional.ofNullable(CurrentRequest.current());
  }

  /** The version of the stored session this instance was loaded as or last saved as; 0 when new. */
  public long version() {
    return version;
  }

  @Override
  public String toString() {
    return "LazySession[id=" + id + ", attributes=" + getAttributeNames() + "]";
  }

  // ---- used by the repository ------------------------------------------------------------------

  private void notePrincipal(String attributeName) {
    if (FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME.equals(attributeName)
        || SPRING_SECURITY_CONTEXT.equals(attributeName)) {
      principalTouched = true;
    }
  }

  /** Hides an attribute this node cannot decode, keeping its stored bytes in Redis unchanged. */
  void hideAttribute(String attributeName) {
    AttributeEntry entry = entries().remove(attributeName);
    if (entry != null && entry.stored() != null && !entry.isSet()) {
      hidden.put(attributeName, entry.stored());
    }
  }

  void invalidate() {
    invalidated = true;
    loadedBytes = null;
    attributes.clear();
    hidden.clear();
  }

  boolean invalidated() {
    return invalidated;
  }

  boolean isNew() {
    return isNew;
  }

  String storedId() {
    return storedId;
  }

  Instant storedLastAccessedTime() {
    return storedLastAccessedTime;
  }

  Duration storedMaxInactiveInterval() {
    return storedMaxInactiveInterval;
  }

  @Nullable String storedPrincipal() {
    return storedPrincipal;
  }

  /**
   * Whether the principal may have changed: an index attribute was set or removed, or was read and
   * might have been changed in place. Only then is the principal resolved (which reads those values).
   */
  boolean principalMayHaveChanged() {
    // A session taken over from Spring Session Data Redis has no principal stored yet.
    if (principalTouched || migratingFrom != null) {
      return true;
    }
    return mayHaveChanged(attributes.get(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME))
        || mayHaveChanged(attributes.get(SPRING_SECURITY_CONTEXT));
  }

  private boolean mayHaveChanged(@Nullable AttributeEntry entry) {
    return entry != null && (isNew || entry.isInflated());
  }

  /**
   * Takes in what Redis held for this session when its old id was deleted (an id change): attributes
   * this request neither set nor changed take the stored bytes (another request may have saved newer
   * ones), attributes another request added join, those it removed leave; this request's own changes
   * win. So do its timeout and a later access time; the stored principal becomes the one Redis held.
   */
  void mergeStored(Map<String, byte[]> stored, SessionMetadata metadata) {
    Set<String> removedHere = removedNames();
    entries().entrySet().removeIf(named -> named.getValue().isLoaded()
        && named.getValue().changedBytes() == null && !stored.containsKey(named.getKey()));
    hidden.keySet().retainAll(stored.keySet());
    stored.forEach((name, bytes) -> {
      AttributeEntry entry = attributes.get(name);
      boolean unchangedHere = entry != null && entry.isLoaded() && entry.changedBytes() == null
          && !Arrays.equals(entry.stored(), bytes);
      if (hidden.containsKey(name)) {
        hidden.put(name, bytes);
      } else if (unchangedHere || (entry == null && !removedHere.contains(name))) {
        attributes.put(name, AttributeEntry.loaded(context.serializer(), bytes));
      }
    });
    ownStoredNames().retainAll(stored.keySet());
    if (metadata.lastAccess() != null && metadata.lastAccess() > lastAccessedTime.toEpochMilli()) {
      lastAccessedTime = Instant.ofEpochMilli(metadata.lastAccess());
    }
    if (maxInactiveInterval.equals(storedMaxInactiveInterval)
        && metadata.maxInactiveSeconds() != null) {
      maxInactiveInterval = Duration.ofSeconds(metadata.maxInactiveSeconds());
    }
    storedPrincipal = metadata.principal();
  }

  /** The Spring Session Data Redis session this one still has to take over at save, if any. */
  @Nullable SsdrSession migratingFrom() {
    return migratingFrom;
  }

  void migratingFrom(@Nullable SsdrSession origin) {
    this.migratingFrom = origin;
  }

  /** The near-cache epoch in which {@link #version()} was read from or written to Redis. */
  long nearCacheEpoch() {
    return nearCacheEpoch;
  }

  /**
   * The names Redis holds that this session no longer has: to be deleted (HDEL) at save. Allocates
   * nothing when there are none (a request that removed nothing).
   */
  Set<String> removedNames() {
    if (loadedBytes != null) {
      return Set.of(); // nothing changed since the load
    }
    Set<String> removedNames = null;
    for (String name : storedNames) {
      if (!attributes.containsKey(name) && !hidden.containsKey(name)) {
        if (removedNames == null) {
          removedNames = new LinkedHashSet<>();
        }
        removedNames.add(name);
      }
    }
    return removedNames == null ? Set.of() : removedNames;
  }

  /**
   * What an update writes: the attributes set, or read and changed in place, with their bytes. Only
   * those are encoded; the map is made only when one changed (a read-only request allocates none).
   */
  Map<String, byte[]> changedAttributes() {
    Map<String, byte[]> changed = null;
    for (Map.Entry<String, AttributeEntry> named : attributes.entrySet()) {
      AttributeEntry entry = named.getValue();
      if (!entry.isSet() && !entry.isInflated()) {
        continue; // never read, never set: its stored bytes stand
      }
      byte[] bytes = encoded(named.getKey(), entry::changedBytes);
      if (bytes != null) {
        if (changed == null) {
          changed = new LinkedHashMap<>();
        }
        changed.put(named.getKey(), bytes);
      }
    }
    return changed == null ? Map.of() : changed;
  }

  /**
   * What a full write (new session, new id) writes: every attribute, and the hidden ones with the
   * bytes they were loaded as (moved as they are, never re-encoded).
   */
  Map<String, byte[]> allAttributes() {
    Map<String, byte[]> all = new LinkedHashMap<>();
    entries().forEach((name, entry) -> all.put(name, encoded(name, entry::fullBytes)));
    all.putAll(hidden);
    return all;
  }

  /**
   * Runs an entry's encoding; a failure names the attribute and session, and for a value over the
   * size limit the setting that raises it.
   */
  private byte @Nullable [] encoded(String name, Supplier<byte @Nullable []> encoding) {
    try {
      return encoding.get();
    } catch (SerializationException e) {
      String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      String hint = message.contains("more than the maximum")
          ? " (the limit is AttributeSerializer.Builder.maxPayloadBytes; raise it or store less in "
              + "this attribute)" : "";
      throw new SerializationException("attribute '" + name + "' of session " + id
          + " cannot be stored: " + message + hint, e);
    }
  }

  /** The bytes Redis holds for each attribute, hidden ones included: what the near cache keeps. */
  Map<String, byte[]> storedAttributes() {
    Map<String, byte[]> stored = new LinkedHashMap<>();
    entries().forEach((name, entry) -> {
      if (entry.stored() != null) {
        stored.put(name, entry.stored());
      }
    });
    stored.putAll(hidden);
    return stored;
  }

  /** How many loaded attributes this request decoded, and how many it left as bytes. */
  record Inflation(int inflated, int leftCompressed) {}

  Inflation inflation() {
    int inflated = 0;
    int leftCompressed = 0;
    for (AttributeEntry entry : attributes.values()) {
      if (entry.isLoaded()) {
        if (entry.isInflated()) {
          inflated++;
        } else {
          leftCompressed++;
        }
      }
    }
    Map<String, byte[]> loaded = loadedBytes;
    if (loaded != null) {
      leftCompressed += loaded.size() - attributes.size(); // loaded, and nobody asked for them
    }
    return new Inflation(inflated, leftCompressed);
  }

  /**
   * Records a successful write: Redis now holds what this instance holds.
   *
   * @param full whether the write replaced the whole hash (a new session or a new id), so that Redis
   *     holds exactly {@code written}
   * @param epoch the near-cache epoch in which the write was sent
   */
  void committed(long newVersion, Map<String, byte[]> written, Collection<String> deleted,
      boolean full, @Nullable String principal, long epoch) {
    for (Map.Entry<String, byte[]> write : written.entrySet()) {
      AttributeEntry entry = entries().get(write.getKey());
      if (entry != null) {
        entry.committed(write.getValue());
      }
    }
    // A touch leaves the stored names as they are (and shared, if they were).
    if (full || !deleted.isEmpty() || !written.isEmpty()) {
      Set<String> names = ownStoredNames();
      if (full) {
        names.clear();
      }
      names.removeAll(deleted);
      names.addAll(written.keySet());
    }
    isNew = false;
    storedId = id;
    storedLastAccessedTime = lastAccessedTime;
    storedMaxInactiveInterval = maxInactiveInterval;
    storedPrincipal = principal;
    principalTouched = false;
    version = newVersion;
    nearCacheEpoch = epoch;
  }
}
