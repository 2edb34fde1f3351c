package io.lazysession.redis;

import io.lazysession.serializer.SerializationException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.ReactiveFindByIndexNameSessionRepository;
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
  /** The request attribute under which the repository leaves the request's session. */
  public static final String REQUEST_ATTRIBUTE = LazySession.class.getName() + ".CURRENT";

  static final String SPRING_SECURITY_CONTEXT = "SPRING_SECURITY_CONTEXT";
  /** The reactive interface's principal attribute; it indexes the session too (PrincipalIndex). */
  static final String REACTIVE_PRINCIPAL_NAME =
      ReactiveFindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;

  private final SessionContext context;
  /** The attributes and what Redis holds of them. */
  private final SessionAttributes attributes;
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
  /** When the id was issued by a renewal or change of id (field #r), epoch ms; 0: at creation. */
  private long renewed;
  /** Loaded from Spring Session Data Redis, until its first save takes it over; else null. */
  private @Nullable SsdrSession migratingFrom;
  /** The pack field Redis holds for this session (see {@link AttributePacking}). */
  private StoredPack storedPack = StoredPack.NONE;
  /**
   * The last access, timeout and principal Redis holds at {@link #version}, when this instance knows
   * them exactly (loaded with them, or saved with nobody writing in between); else null.
   */
  private NearCache.@Nullable Metadata storedMetadata;

  /** A new session, not yet stored. */
  LazySession(SessionContext context, String id, Instant now, Duration maxInactive) {
    this.context = context;
    this.attributes = new SessionAttributes(context.serializer());
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
    this.attributes = new SessionAttributes(context.serializer());
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

  /** Adds every attribute of a loaded session; {@code stored} (maybe shared) is not modified. */
  void loaded(Map<String, byte[]> stored) {
    attributes.loaded(stored);
  }

  @Override
  public String getId() {
    return id;
  }

  /** Gives the session a new id (session fixation protection), moved in Redis when it is saved. */
  @Override
  public String changeSessionId() {
    id = context.newSessionId();
    context.changed(this);
    return id;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> @Nullable T getAttribute(String attributeName) {
    AttributeEntry entry = attributes.entry(attributeName);
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
    return attributes.names();
  }

  /**
   * Sets an attribute; a null value removes it. The value is encoded when the session is saved.
   *
   * @throws IllegalArgumentException when the name cannot be stored as a Redis field (it holds a
   *     lone UTF-16 surrogate, which has no UTF-8 form), or the value is not Serializable while
   *     {@code lazysession.require-serializable} is on (the default); the message names the
   *     attribute, the class and the setting
   */
  @Override
  public void setAttribute(String attributeName, @Nullable Object attributeValue) {
    Objects.requireNonNull(attributeName, "attributeName must not be null");
    if (attributeValue == null) {
      removeAttribute(attributeName);
      return;
    }
    SessionKeys.requireStorableName(attributeName);
    if (context.serializer().requireSerializable()
        && !(attributeValue instanceof java.io.Serializable)) {
      // As a distributable Servlet container does (Servlet spec, distributed environments)
      throw new IllegalArgumentException("attribute '" + attributeName + "' cannot be stored: "
          + new io.lazysession.serializer.NotSerializableException(
              attributeValue.getClass().getTypeName()).getMessage());
    }
    attributes.set(attributeName, context.serializer().ofValue(attributeValue));
    notePrincipal(attributeName);
    context.changed(this);
  }

  @Override
  public void removeAttribute(String attributeName) {
    attributes.remove(attributeName);
    notePrincipal(attributeName);
    context.changed(this);
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
    context.changed(this);
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
        && !now.isBefore(lastAccessedTime.plus(maxInactiveInterval)))
        || context.policies().pastDeadline(creationTime, now);
  }

  /** The repository's absolute and anonymous timeouts. */
  SessionPolicies policies() {
    return context.policies();
  }

  /** The timeout of the save that sets the principal (SessionPolicies.beforeSave); never saves. */
  void timeoutOnSignIn(Duration interval) {
    this.maxInactiveInterval = interval;
  }

  long renewed() {
    return renewed;
  }

  void renewed(long millis) {
    this.renewed = millis;
  }

  /** A renewed id ({@link IdRenewal}), never saving by itself; {@code stored}: Redis has it. */
  void renewTo(String newId, boolean stored) {
    id = newId;
    if (stored) {
      storedId = newId;
      storedMetadata = null;
      nearCacheEpoch = NearCache.NO_EPOCH;
    }
  }

  /**
   * Per attribute: the stored size and whether this request decoded it. Reading this does not decode
   * anything.
   */
  public List<AttributeInfo> attributeInfo() {
    return attributes.info();
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
        || REACTIVE_PRINCIPAL_NAME.equals(attributeName)
        || SPRING_SECURITY_CONTEXT.equals(attributeName)) {
      principalTouched = true;
    }
  }

  /** Hides an attribute this node cannot decode, keeping its stored bytes in Redis unchanged. */
  void hideAttribute(String attributeName) {
    attributes.hide(attributeName);
  }

  void invalidate() {
    invalidated = true;
    attributes.clear();
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
    return mayHaveChanged(attributes.asked(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME))
        || mayHaveChanged(attributes.asked(REACTIVE_PRINCIPAL_NAME))
        || mayHaveChanged(attributes.asked(SPRING_SECURITY_CONTEXT));
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
    attributes.merge(stored);
    if (metadata.lastAccess() != null && metadata.lastAccess() > lastAccessedTime.toEpochMilli()) {
      lastAccessedTime = Instant.ofEpochMilli(metadata.lastAccess());
    }
    if (maxInactiveInterval.equals(storedMaxInactiveInterval)
        && metadata.maxInactiveSeconds() != null) {
      maxInactiveInterval = Duration.ofSeconds(metadata.maxInactiveSeconds());
    }
    storedPrincipal = metadata.principal();
  }

  /**
   * The values this request read and did not change, in the configured encoding, among the
   * attributes {@code claimed} from another store: what a take-over writes in their place.
   */
  Map<String, AttributeEntry.Rebased> rebased(Map<String, byte[]> claimed) {
    return attributes.rebased(claimed);
  }

  /** Redis now holds the {@code rebased} values (the take-over wrote them). */
  void takenOver(Map<String, AttributeEntry.Rebased> rebased) {
    attributes.takenOver(rebased);
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

  /** The names Redis holds that this session no longer has: to be deleted (HDEL) at save. */
  Set<String> removedNames() {
    return attributes.removedNames();
  }

  /** What an update writes: the attributes set, or read and changed in place, with their bytes. */
  Map<String, byte[]> changedAttributes() {
    return attributes.changed(id);
  }

  /** What a full write (new session, new id) writes: every attribute, hidden ones as they are. */
  Map<String, byte[]> allAttributes() {
    return attributes.all(id);
  }

  /** The bytes Redis holds for each attribute, hidden ones included: what the near cache keeps. */
  Map<String, byte[]> storedAttributes() {
    return attributes.stored();
  }

  /** How many loaded attributes this request decoded, and how many it left as bytes. */
  record Inflation(int inflated, int leftCompressed) {}

  Inflation inflation() {
    return attributes.inflation();
  }

  /** The pack field Redis holds for this session, as far as this instance knows. */
  StoredPack storedPack() {
    return storedPack;
  }

  void storedPack(StoredPack pack) {
    this.storedPack = pack;
  }

  /** What Redis holds of the metadata at {@link #version()}, when known exactly; else null. */
  NearCache.@Nullable Metadata storedMetadata() {
    return storedMetadata;
  }

  void storedMetadata(NearCache.@Nullable Metadata metadata) {
    this.storedMetadata = metadata;
  }

  io.lazysession.serializer.AttributeSerializer serializer() {
    return context.serializer();
  }

  ValueProtection protection() {
    return context.protection();
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
    attributes.committed(written, deleted, full);
    if (full && !isNew) { // a new id (save.lua's mode 'r' wrote '#r')
      renewed = context.now().toEpochMilli();
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
