package io.lazysession.redis;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;

/** Keeps the events a repository publishes. Thread-safe. */
final class RecordingEventPublisher implements ApplicationEventPublisher {
  final List<ApplicationEvent> events = new CopyOnWriteArrayList<>();

  @Override
  public void publishEvent(Object event) {
    events.add((ApplicationEvent) event);
  }

  <E extends ApplicationEvent> List<E> ofType(Class<E> type) {
    return events.stream().filter(type::isInstance).map(type::cast).toList();
  }
}
