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
 * Publishes the session lifecycle events. A listener that throws is logged and never affects the
 * store (a save or a sweep goes on); only a {@link VirtualMachineError} propagates. Thread-safe when
 * the publisher is (Spring's are).
 */
final class SessionEvents {
  private static final Logger log = LoggerFactory.getLogger(SessionEvents.class);

  private final Object source;
  private final @Nullable ApplicationEventPublisher publisher;

  /**
   * @param source the repository, as the events' source
   * @param publisher where the events go; null: nowhere
   */
  SessionEvents(Object source, @Nullable ApplicationEventPublisher publisher) {
    this.source = source;
    this.publisher = publisher;
  }

  void created(LazySession session) {
    publish(() -> new SessionCreatedEvent(source, session));
  }

  void deleted(String id, SessionMetadata metadata) {
    publish(() -> new SessionDeletedEvent(source, metadata.toMapSession(id)));
  }

  void expired(String id, SessionMetadata metadata) {
    publish(() -> new SessionExpiredEvent(source, metadata.toMapSession(id)));
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
