package io.lazysession.testing;

import io.lettuce.core.RedisURI;

/** One Redis server (or Sentinel) started for a test, with the means to break it. */
public interface RedisNode {
  String host();

  int port();

  /** A URI for a direct connection to this node. */
  default RedisURI uri() {
    return RedisURI.create(host(), port());
  }

  /** Freezes the server: it keeps its connections but answers nothing until {@link #unpause()}. */
  void pause();

  void unpause();

  /** Kills the server abruptly (SIGKILL); it does not come back. */
  void kill();

  /**
   * Stops the server (its connections drop, new ones are refused) until {@link #startAgain()}, which
   * starts it on the same port, empty. Not every backend can: see {@link #canRestart()}.
   */
  default void stop() {
    throw new UnsupportedOperationException("cannot stop and start " + this);
  }

  /** Starts a server {@link #stop() stopped} before, on the same port; returns once it answers. */
  default void startAgain() {
    throw new UnsupportedOperationException("cannot stop and start " + this);
  }

  /** Whether {@link #stop()} and {@link #startAgain()} work for this node. */
  default boolean canRestart() {
    return false;
  }
}
