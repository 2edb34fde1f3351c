package io.lazysession.it.bench;

/**
 * A store under test, opened on one Redis as two application nodes (two repositories with their own
 * connections, as two servers of a cluster would have) sharing one key namespace. Not thread-safe to
 * open and close; its nodes are thread-safe.
 */
interface SessionStore extends AutoCloseable {
  StoreSpec spec();

  /** Node 0 or 1. */
  StoreNode<?> node(int index);

  /** A SCAN pattern matching every key this store writes, and nothing else. */
  String keyPattern();

  /** Commands sent to Redis by both nodes so far (one per round trip; a script call counts as one). */
  long commandsSent();

  @Override
  void close();
}
