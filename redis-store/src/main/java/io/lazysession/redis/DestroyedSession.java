package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassNotAllowedException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.session.MapSession;
import org.springframework.session.Session;

/**
 * The session a {@code SessionDeletedEvent} or {@code SessionExpiredEvent} carries: its id, times
 * and attributes as Redis held them when the hash was deleted. Nothing is read before a listener
 * asks: the pack is unpacked on the first attribute call, and each value is decoded when it is
 * read, once, by the same lazy attributes a {@link LazySession} has (it is one, built on first
 * use).
 *
 * <p>An attribute this node cannot decode (a class not allowed, corrupt bytes, a hidden attribute)
 * reads as null and leaves the others readable, whatever the decode failure policy: the session is
 * gone, so there is nothing to drop, invalidate or fail. Changes made to it are kept in memory
 * only; it is never saved.
 *
 * <p>Attribute calls are thread-safe (synchronized): listeners of one event share one instance, and
 * asynchronous ones may read it at once. The setters of its times are not, as in a
 * {@link MapSession}.
 */
final class DestroyedSession implements Session {
  private static final Logger log = LoggerFactory.getLogger(DestroyedSession.class);

  private final MapSession times;
  private final SessionContext context;
  private final @Nullable String principal;
  private @Nullable Map<String, byte[]> ownFields;
  private byte @Nullable [] pack;
  private @Nullable LazySession attributes;

  /**
   * @param deleted what the delete or expire script returned: metadata, the fields of their own
   *     (empty when the script was not asked for them) and the pack
   */
  DestroyedSession(String id, ScriptReplies.DeletedHash deleted, SessionContext context) {
    this.times = deleted.metadata().toMapSession(id);
    this.context = context;
    this.principal = deleted.metadata().principal();
    this.ownFields = deleted.attributes();
    this.pack = deleted.pack();
  }

  /**
   * The context of destroyed sessions: decode failures hide the attribute (counted and logged),
   * nothing is ever saved.
   */
  static SessionContext context(AttributeSerializer serializer, Clock clock,
      MetricsRecorder metrics) {
    return context(serializer, ValueProtection.NONE, clock, metrics);
  }

  /** As {@link #context(AttributeSerializer, Clock, MetricsRecorder)}, with protection. */
  static SessionContext context(AttributeSerializer serializer, ValueProtection protection,
      Clock clock, MetricsRecorder metrics) {
    return SessionContext.of(serializer, protection, DestroyedSession::neverAsked, clock,
        (session, attributeName, failure) -> {
          for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof VirtualMachineError error) {
              throw error;
            }
          }
          metrics.decodeFailures.increment();
          String what = failure instanceof ClassNotAllowedException notAllowed
              ? "class " + notAllowed.className() + " is not allowed"
              : failure.getClass().getSimpleName() + ": " + failure.getMessage();
          log.warn("Attribute '{}' of the deleted or expired session {} reads as null for the "
              + "event listener: {}", attributeName, session.getId(), what);
          session.hideAttribute(attributeName);
        }, null); // never saved: no flush
  }

  /** Never asked: changeSessionId is not delegated to the attributes' session. */
  private static String neverAsked() {
    return java.util.UUID.randomUUID().toString();
  }

  /** The stored principal name, without decoding anything; null when none was stored. */
  @Nullable String principalName() {
    return principal;
  }

  /** The attributes, unpacked now if this is the first call. */
  private synchronized LazySession attributes() {
    LazySession session = attributes;
    if (session == null) {
      Map<String, byte[]> fields = ownFields == null ? Map.of() : ownFields;
      AttributePacking.Expanded expanded =
          AttributePacking.expand(context.serializer(), context.protection(), getId(),
              fields, pack);
      session = new LazySession(context, getId(), times.getCreationTime(),
          times.getLastAccessedTime(), times.getMaxInactiveInterval(), 0, principal,
          NearCache.NO_EPOCH);
      session.loaded(expanded.attributes());
      attributes = session;
      ownFields = null;
      pack = null;
    }
    return session;
  }

  @Override
  public String getId() {
    return times.getId();
  }

  @Override
  public String changeSessionId() {
    return times.changeSessionId();
  }

  @Override
  public synchronized <T> @Nullable T getAttribute(String attributeName) {
    return attributes().getAttribute(attributeName);
  }

  @Override
  public synchronized Set<String> getAttributeNames() {
    return attributes().getAttributeNames();
  }

  @Override
  public synchronized void setAttribute(String attributeName, @Nullable Object attributeValue) {
    attributes().setAttribute(attributeName, attributeValue);
  }

  @Override
  public synchronized void removeAttribute(String attributeName) {
    attributes().removeAttribute(attributeName);
  }

  @Override
  public Instant getCreationTime() {
    return times.getCreationTime();
  }

  @Override
  public void setLastAccessedTime(Instant lastAccessedTime) {
    times.setLastAccessedTime(lastAccessedTime);
  }

  @Override
  public Instant getLastAccessedTime() {
    return times.getLastAccessedTime();
  }

  @Override
  public void setMaxInactiveInterval(Duration interval) {
    times.setMaxInactiveInterval(interval);
  }

  @Override
  public Duration getMaxInactiveInterval() {
    return times.getMaxInactiveInterval();
  }

  @Override
  public boolean isExpired() {
    return times.isExpired();
  }

  @Override
  public String toString() {
    return "DestroyedSession[id=" + getId() + "]";
  }
}
