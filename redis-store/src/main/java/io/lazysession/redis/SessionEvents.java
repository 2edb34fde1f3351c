package io.lazysession.redis;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.session.events.SessionCreatedEvent;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * Publishes the session lifecycle events. A deleted or expired event carries the session as Redis
 * held it when it was deleted ({@link DestroyedSession}: attributes decoded only when a listener
 * reads them). A listener that throws is logged and never affects the store (a save or a sweep goes
 * on); only a {@link VirtualMachineError} propagates. Thread-safe when the publisher is (Spring's
 * are).
 */
final class SessionEvents {
  private static final Logger log = LoggerFactory.getLogger(SessionEvents.class);

  private final Object source;
  private final @Nullable ApplicationEventPublisher publisher;
  /** What the sessions of deleted and expired events decode with. */
  private final SessionContext destroyed;

  /**
   * @param source the repository, as the events' source
   * @param publisher where the events go; null: nowhere
   * @param destroyed the context of the sessions deleted and expired events carry (see {@link
   *     DestroyedSession#context})
   */
  SessionEvents(Object source, @Nullable ApplicationEventPublisher publisher,
      SessionContext destroyed) {
    this.source = source;
    this.publisher = publisher;
    this.destroyed = destroyed;
  }

  /**
   * Whether events go anywhere: only then do deletes and the sweep ask Redis for the deleted hash's
   * attributes (in the same script call, see docs/redis-layout.md).
   */
  boolean publishing() {
    return publisher != null;
  }

  void created(LazySession session) {
    publish(() -> new SessionCreatedEvent(source, session));
  }

  /** @param deleted as the delete script returned it (asked for the fields when publishing) */
  void deleted(String id, ScriptReplies.DeletedHash deleted) {
    publish(() -> new SessionDeletedEvent(source, new DestroyedSession(id, deleted, destroyed)));
  }

  /** @param expired as the expire script returned it (asked for the fields when publishing) */
  void expired(String id, ScriptReplies.DeletedHash expired) {
    publish(() -> new SessionExpiredEvent(source, new DestroyedSession(id, expired, destroyed)));
  }

  private interface EventFactory {
    ApplicationEvent create();
  }

  private void publish(EventFactory event) {
    if (publisher == null) {
      return;
    }
    ApplicationEvent created = event.create();
    try {
      publisher.publishEvent(created);
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable e) {
      log.warn("a listener of {} failed; the session store is not affected",
          created.getClass().getSimpleName(), e);
    }
  }
}
