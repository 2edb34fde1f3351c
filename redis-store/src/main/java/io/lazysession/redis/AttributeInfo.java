package io.lazysession.redis;

/**
 * What one attribute of a {@link LazySession} costs and whether this request decoded it.
 *
 * @param name the attribute name
 * @param storedBytes the size of the envelope as loaded from Redis, or -1 when the attribute was set
 *     in this request and has not been stored yet
 * @param inflated whether the value has been decoded (read) or was set in this request
 * @param changed whether the attribute was set in this request (mutations in place are only detected
 *     when the session is saved)
 */
public record AttributeInfo(String name, int storedBytes, boolean inflated, boolean changed) {}
