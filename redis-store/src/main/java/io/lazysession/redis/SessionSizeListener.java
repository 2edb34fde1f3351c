package io.lazysession.redis;

import java.util.Map;

/**
 * Told the stored size of each session a save writes, and of each of its attributes, as {@link
 * SessionSizes} counts them ({@link SessionSize} describes the counting). Called on the saving
 * thread as the save is sent, so it must be quick and thread-safe; an exception it throws is logged
 * and does not affect the save. Register with {@link LazyRedisSessionRepository#addSizeListener}
 * (Micrometer: {@code io.lazysession.redis.micrometer.LazySessionMetrics} does).
 */
@FunctionalInterface
public interface SessionSizeListener {
  /**
   * @param storedBytes the session's stored size once the save is applied
   * @param attributes each attribute's stored bytes (own field: name and value; pack member: its
   *     share of the pack), unmodifiable
   */
  void saved(long storedBytes, Map<String, Long> attributes);
}
