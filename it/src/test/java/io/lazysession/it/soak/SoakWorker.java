package io.lazysession.it.soak;

import io.lazysession.it.bench.shop.Cart;
import io.lazysession.it.bench.shop.SessionSize;
import io.lazysession.it.bench.shop.ShopSessions;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.LazySession;
import io.lazysession.redis.SessionNotReplicatedException;
import io.lazysession.redis.SessionStoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.Lock;
import org.springframework.session.FindByIndexNameSessionRepository;

/**
 * One client thread: a visitor with a few sessions of its own, sending requests through the two
 * application nodes of its mode in turn (a round-robin balancer): sign-in (a new session), cart
 * change (a write that also stores the next version), read. Every request writes the session's
 * version into its {@link SoakSession} ledger only when its save returned. One per thread.
 */
final class SoakWorker implements Runnable {
  static final String VERSION = "version";
  private static final int SESSIONS = 3;
  private static final int MAX_REQUESTS = 1_000_000;

  /** What the worker needs from the soak: the current window, the request lock, when to stop. */
  interface Context {
    WindowStats stats(SoakMode mode);

    Lock requestLock();

    boolean running();
  }

  private final SoakMode mode;
  private final int index;
  private final List<LazyRedisSessionRepository> nodes;
  private final Context context;
  private final long thinkMillis;
  private final SplittableRandom random;
  private final SoakSession[] sessions = new SoakSession[SESSIONS];
  private final List<SoakSession> retired = new ArrayList<>();
  private long requests;

  SoakWorker(SoakMode mode, int index, List<LazyRedisSessionRepository> nodes, Context context,
      long thinkMillis) {
    this.mode = mode;
    this.index = index;
    this.nodes = nodes;
    this.context = context;
    this.thinkMillis = thinkMillis;
    this.random = new SplittableRandom(31L * mode.ordinal() + index);
  }

  SoakMode mode() {
    return mode;
  }

  /** Sessions to verify: the current ones and those replaced since the last verification. */
  List<SoakSession> sessionsToVerify() {
    List<SoakSession> all = new ArrayList<>(retired);
    for (SoakSession session : sessions) {
      if (session != null) {
        all.add(session);
      }
    }
    return all;
  }

  /** Called by the verification (with requests held off) once it has looked at every session. */
  void verified() {
    retired.clear();
  }

  @Override
  public void run() {
    for (int i = 0; i < MAX_REQUESTS && context.running(); i++) {
      Lock lock = context.requestLock();
      lock.lock();
      try {
        request();
      } finally {
        lock.unlock();
      }
      try {
        Thread.sleep(thinkMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void request() {
    int slot = (int) (requests % SESSIONS);
    LazyRedisSessionRepository node = nodes.get((int) (requests / SESSIONS % nodes.size()));
    requests++;
    WindowStats stats = context.stats(mode);
    SoakSession session = sessions[slot];
    double dice = random.nextDouble();
    long start = System.nanoTime();
    try {
      if (session == null || session.gone() || dice < 0.04) {
        signIn(node, slot);
      } else {
        boolean write = dice < 0.35;
        if (!visit(node, session, start, write)) {
          retired.add(session);
          sessions[slot] = null;
          stats.failure("session missing", System.nanoTime());
          return;
        }
        if (write) {
          stats.acknowledgedWrites.increment();
        }
      }
      stats.success(start);
    } catch (RuntimeException e) {
      stats.failure(describe(e), System.nanoTime());
    }
  }

  private void signIn(LazyRedisSessionRepository node, int slot) {
    LazySession created = node.createSession();
    created.setLastAccessedTime(Instant.now());
    ShopSessions.create(SessionSize.SMALL, random.nextLong()).forEach(created::setAttribute);
    created.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME,
        "user-" + mode.ordinal() + "-" + index + "-" + requests);
    created.setAttribute(VERSION, 1L);
    node.save(created);
    context.stats(mode).acknowledgedWrites.increment();
    if (sessions[slot] != null) {
      retired.add(sessions[slot]);
    }
    sessions[slot] = new SoakSession(created.getId(), 1L, System.nanoTime());
  }

  /**
   * A page view: reads the cart and the version, changes the cart when {@code write}; false if
   * gone.
   */
  private boolean visit(LazyRedisSessionRepository node, SoakSession ledger, long start,
      boolean write) {
    LazySession session = node.findById(ledger.id);
    if (session == null) {
      return false;
    }
    Instant now = Instant.now();
    session.setLastAccessedTime(now);
    Long version = session.getAttribute(VERSION);
    Cart cart = session.getAttribute(ShopSessions.CART);
    long read = version == null ? 0 : version;
    long next = ledger.nextVersion(read);
    if (write && cart != null) {
      session.setAttribute(ShopSessions.CART, cart.withOneMore(now));
      session.setAttribute(VERSION, next);
    }
    node.save(session);
    ledger.read(read, start, mode.allowedStaleness().toNanos());
    if (write && cart != null) {
      ledger.acknowledge(next, System.nanoTime());
    }
    return true;
  }

  /** The exception's type, with the Redis error or Lettuce exception behind the store's own. */
  static String describe(Throwable failure) {
    String type = failure.getClass().getSimpleName();
    if (failure instanceof SessionNotReplicatedException) {
      return type;
    }
    Throwable cause = failure.getCause();
    if (failure instanceof SessionStoreException && cause != null) {
      return type + " (" + causeLabel(cause) + ")";
    }
    return type;
  }

  private static String causeLabel(Throwable cause) {
    String message = cause.getMessage();
    String type = cause.getClass().getSimpleName();
    if (type.equals("RedisCommandExecutionException") && message != null) {
      int space = message.indexOf(' ');
      return space > 0 ? message.substring(0, space) : message;
    }
    if (type.equals("RedisException") && message != null) {
      return type + ": " + (message.length() > 40 ? message.substring(0, 40) + "..." : message);
    }
    return type;
  }
}
