package io.lazysession.it.bench;

import org.jspecify.annotations.Nullable;
import org.springframework.session.ReactiveSessionRepository;
import org.springframework.session.Session;
import org.springframework.session.SessionRepository;

/**
 * A reactive repository driven as the benchmark's requests drive every store: each call subscribes
 * and waits for the answer on the request thread, so that the same workloads, counters and timers
 * measure reactive stores (whose work after the answer runs on the client's event loop, outside the
 * request thread's CPU time). Thread-safe when the repository is.
 */
final class BlockingReactiveRepository<S extends Session> implements SessionRepository<S> {
  private final ReactiveSessionRepository<S> repository;

  BlockingReactiveRepository(ReactiveSessionRepository<S> repository) {
    this.repository = repository;
  }

  @Override
  public S createSession() {
    S session = repository.createSession().block();
    if (session == null) {
      throw new IllegalStateException("createSession completed empty");
    }
    return session;
  }

  @Override
  public void save(S session) {
    repository.save(session).block();
  }

  @Override
  public @Nullable S findById(String id) {
    return repository.findById(id).block();
  }

  @Override
  public void deleteById(String id) {
    repository.deleteById(id).block();
  }
}
