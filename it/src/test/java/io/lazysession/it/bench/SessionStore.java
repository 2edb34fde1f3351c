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

  /**
   * One PING through node 0's own Lettuce client (a connection of its own on the same client
   * resources): the floor that this store's request-thread CPU is compared with.
   */
  boolean ping();

  /** Near-cache hits of both nodes so far (lazysession's RepositoryMetrics); 0 without a near cache. */
  long nearCacheHits();

  /** Whether this store has a near cache whose hits {@link #nearCacheHits()} counts. */
  boolean hasNearCache();

  @Override
  void close();
}
