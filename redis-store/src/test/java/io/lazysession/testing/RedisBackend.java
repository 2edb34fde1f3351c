package io.lazysession.testing;

/** Where the test harness found its Redis servers. */
public enum RedisBackend {
  /** An explicit server given by {@code lazysession.test.redis.url}; standalone only, no fault injection. */
  URL,
  /** Containers started through Testcontainers. */
  TESTCONTAINERS,
  /** Redis processes started from the binary shipped in the embedded-redis jar. */
  EMBEDDED
}
