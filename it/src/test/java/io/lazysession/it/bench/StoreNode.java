package io.lazysession.it.bench;

import io.lazysession.it.bench.shop.Cart;
import io.lazysession.it.bench.shop.ShopSessions;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.session.Session;
import org.springframework.session.SessionRepository;

/**
 * One application node's view of a store: the requests of the benchmark, written once against
 * {@link SessionRepository} and run unchanged on every store. Each request does what Spring Session's
 * {@code SessionRepositoryFilter} does around a servlet request: {@code findById}, set the last access
 * time, touch attributes, {@code save}. Thread-safe when the repository is.
 */
final class StoreNode<S extends Session> {
  private final SessionRepository<S> repository;

  private StoreNode(SessionRepository<S> repository) {
    this.repository = repository;
  }

  static <S extends Session> StoreNode<S> of(SessionRepository<S> repository) {
    return new StoreNode<>(repository);
  }

  /** Creates and saves a session holding these attributes; returns its id. */
  String create(Map<String, Object> attributes) {
    S session = repository.createSession();
    session.setLastAccessedTime(Instant.now());
    attributes.forEach(session::setAttribute);
    repository.save(session);
    return session.getId();
  }

  /** A request that reads the cart; false when the session or the cart is missing. */
  boolean readCart(String id) {
    S session = repository.findById(id);
    if (session == null) {
      return false;
    }
    session.setLastAccessedTime(Instant.now());
    Cart cart = session.getAttribute(ShopSessions.CART);
    repository.save(session);
    return cart != null;
  }

  /** A request that reads the cart and stores a changed copy; false when something is missing. */
  boolean changeCart(String id) {
    S session = repository.findById(id);
    if (session == null) {
      return false;
    }
    Instant now = Instant.now();
    session.setLastAccessedTime(now);
    Cart cart = session.getAttribute(ShopSessions.CART);
    if (cart == null) {
      return false;
    }
    session.setAttribute(ShopSessions.CART, cart.withOneMore(now));
    repository.save(session);
    return true;
  }

  /** A request that reads one attribute and saves; false when the session or attribute is missing. */
  boolean readAttribute(String id, String name) {
    S session = repository.findById(id);
    if (session == null) {
      return false;
    }
    session.setLastAccessedTime(Instant.now());
    Object value = session.getAttribute(name);
    repository.save(session);
    return value != null;
  }

  /** Deletes a session (clean-up, not measured). */
  void delete(String id) {
    repository.deleteById(id);
  }

  /** The stored value of one attribute, through a fresh load (for checks, not measured). */
  @Nullable Object attribute(String id, String name) {
    S session = repository.findById(id);
    return session == null ? null : session.getAttribute(name);
  }
}
