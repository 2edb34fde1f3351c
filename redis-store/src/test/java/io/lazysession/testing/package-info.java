/**
 * The Redis test harness shared by every module's integration tests (published in redis-store's
 * test-jar): {@link io.lazysession.testing.RedisServerExtension} gives a test class real Redis servers
 * from an explicit URL, Testcontainers, or the embedded Redis binary.
 */
@NullMarked
package io.lazysession.testing;

import org.jspecify.annotations.NullMarked;
