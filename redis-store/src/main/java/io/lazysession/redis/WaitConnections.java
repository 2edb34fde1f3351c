package io.lazysession.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Dedicated connections for a save followed by WAIT, one per save in flight. Thread-safe.
 *
 * <p>Design note: WAIT blocks the connection it is sent on until the replicas acknowledge or the
 * timeout passes, and it counts the replicas that have the last write <em>of that connection</em>.
 * So the save and its WAIT share one connection, and no other command may use it meanwhile: were
 * saves of different sessions to share one, each would queue behind the others' WAITs (eight
 * concurrent saves with an unreachable replica would take eight timeouts, and most would fail as
 * unavailable although all were applied). A save therefore borrows a connection of its own; one is
 * opened when none is idle (never a wait for another save), and up to {@code maxIdle} are kept for
 * the next saves. A connection whose command failed is closed, not reused: it may still be blocked
 * in a WAIT that Redis has not answered.
 *
 * <p>At most {@code maxOpen} are open at once. Beyond that (as many saves already waiting for
 * replicas that do not answer), a save is not sent at all and fails at once, saying that nothing was
 * written: a node never opens a connection per request while its replicas are away, and its
 * requests fail fast instead of queueing behind timeouts.
 *
 * @param <C> the connection type of the topology
 */
final class WaitConnections<C extends StatefulConnection<byte[], byte[]>> implements AutoCloseable {
  private final Supplier<C> connect;
  private final Consumer<C> quietly;
  private final int maxIdle;
  private final int maxOpen;
  private final AtomicInteger openCount = new AtomicInteger();
  private final Queue<C> idle = new ConcurrentLinkedQueue<>();
  private final AtomicInteger idleCount = new AtomicInteger();
  private final List<C> all = new ArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * @param connect opens one more connection (and registers whatever listens to its drops)
   * @param quietly unregisters those listeners from a connection about to be closed on purpose, so
   *     that closing it is not taken for a dropped connection
   * @param maxIdle how many idle connections are kept between saves
   * @param maxOpen how many may be open at once, idle or in use
   */
  WaitConnections(Supplier<C> connect, Consumer<C> quietly, int maxIdle, int maxOpen) {
    if (maxIdle > maxOpen) {
      throw new IllegalArgumentException("maxIdle must be <= maxOpen, was " + maxIdle + " > "
          + maxOpen);
    }
    this.connect = connect;
    this.quietly = quietly;
    this.maxIdle = maxIdle;
    this.maxOpen = maxOpen;
  }

  /** Opens the first connection now, so that a bad setting fails at startup. */
  void warmUp() {
    release(open());
  }

  /**
   * Runs {@code work} on a connection no other thread uses meanwhile.
   *
   * @throws RedisException from opening the connection or from {@code work}, or without running
   *     {@code work} when {@code maxOpen} connections are in use
   */
  <T> T with(Function<C, T> work) {
    C connection = idle.poll();
    if (connection != null) {
      idleCount.decrementAndGet();
    } else {
      connection = open();
    }
    T result;
    try {
      result = work.apply(connection);
    } catch (RuntimeException | Error e) {
      discard(connection);
      throw e;
    }
    release(connection);
    return result;
  }

  private C open() {
    if (openCount.incrementAndGet() > maxOpen) {
      openCount.decrementAndGet();
      throw new RedisException(maxOpen + " saves on this node are already waiting for their "
          + "replicas to acknowledge (WAIT): this one was not sent, nothing was written; the "
          + "replicas are slow or unreachable");
    }
    C connection;
    try {
      connection = connect.get();
    } catch (RuntimeException | Error e) {
      openCount.decrementAndGet();
      throw e;
    }
    synchronized (all) {
      all.add(connection);
    }
    if (closed.get()) {
      discard(connection);
      throw new RedisException("the repository is closed");
    }
    return connection;
  }

  private void release(C connection) {
    if (closed.get() || !connection.isOpen()) {
      discard(connection);
    } else if (idleCount.incrementAndGet() > maxIdle) {
      idleCount.decrementAndGet();
      discard(connection);
    } else {
      idle.offer(connection); // if close() runs meanwhile, it closes this one too (it is in all)
    }
  }

  private void discard(C connection) {
    synchronized (all) {
      all.remove(connection);
    }
    openCount.decrementAndGet();
    quietly.accept(connection);
    connection.closeAsync();
  }

  /** Runs {@code action} on every open connection, idle or in use. */
  void forEachOpen(Consumer<C> action) {
    List<C> open;
    synchronized (all) {
      open = new ArrayList<>(all);
    }
    open.forEach(action);
  }

  /** Closes every connection, idle or in use. */
  @Override
  public void close() {
    closed.set(true);
    List<C> open;
    synchronized (all) {
      open = new ArrayList<>(all);
      all.clear();
    }
    idle.clear();
    open.forEach(StatefulConnection::close);
  }
}
