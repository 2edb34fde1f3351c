package io.lazysession.redis;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One face of a repository, servlet or reactive, behind the same blocking calls, so that a test
 * states a rule once and checks it on both. The reactive face blocks on each publisher (tests
 * only).
 */
interface Face {
  LazySession create();

  void save(LazySession session);

  @Nullable LazySession find(String id);

  void delete(String id);

  Map<String, LazySession> findByIndex(String indexName, String indexValue);

  /** The face's own {@code findByPrincipalName}. */
  Map<String, LazySession> findByPrincipalName(String principal);

  /** Runs the expiry sweep through this face. */
  int sweep();

  /** The servlet repository under this face. */
  LazyRedisSessionRepository servlet();

  /** {@code repository} itself. */
  static Face servlet(LazyRedisSessionRepository repository) {
    return new Face() {
      @Override
      public LazySession create() {
        return repository.createSession();
      }

      @Override
      public void save(LazySession session) {
        repository.save(session);
      }

      @Override
      public @Nullable LazySession find(String id) {
        return repository.findById(id);
      }

      @Override
      public void delete(String id) {
        repository.deleteById(id);
      }

      @Override
      public Map<String, LazySession> findByIndex(String indexName, String indexValue) {
        return repository.findByIndexNameAndIndexValue(indexName, indexValue);
      }

      @Override
      public Map<String, LazySession> findByPrincipalName(String principal) {
        return repository.findByPrincipalName(principal);
      }

      @Override
      public int sweep() {
        return repository.cleanUpExpiredSessions();
      }

      @Override
      public LazyRedisSessionRepository servlet() {
        return repository;
      }

      @Override
      public String toString() {
        return "servlet";
      }
    };
  }

  /** The reactive face of {@code repository}, each call blocked on. */
  static Face reactive(LazyRedisSessionRepository repository) {
    LazyReactiveRedisSessionRepository reactive = LazyReactiveRedisSessionRepository.of(repository);
    return new Face() {
      @Override
      public LazySession create() {
        return reactive.createSession().block();
      }

      @Override
      public void save(LazySession session) {
        reactive.save(session).block();
      }

      @Override
      public @Nullable LazySession find(String id) {
        return reactive.findById(id).block();
      }

      @Override
      public void delete(String id) {
        reactive.deleteById(id).block();
      }

      @Override
      public Map<String, LazySession> findByIndex(String indexName, String indexValue) {
        return reactive.findByIndexNameAndIndexValue(indexName, indexValue).block();
      }

      @Override
      public Map<String, LazySession> findByPrincipalName(String principal) {
        return reactive.findByPrincipalName(principal).block();
      }

      @Override
      public int sweep() {
        Integer swept = reactive.cleanUpExpiredSessions().block();
        return swept == null ? 0 : swept;
      }

      @Override
      public LazyRedisSessionRepository servlet() {
        return repository;
      }

      @Override
      public String toString() {
        return "reactive";
      }
    };
  }
}
