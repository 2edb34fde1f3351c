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
}
