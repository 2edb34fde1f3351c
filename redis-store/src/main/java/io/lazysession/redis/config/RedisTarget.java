package io.lazysession.redis.config;

import java.time.Duration;

/**
 * Where the session store's client connects and its command timeout, as the configuration knows
 * them: for error messages ("Redis was expected at ...") and for checks that involve the timeout.
 *
 * @param description the address and the setting it came from, without credentials
 * @param commandTimeout how long a command may take before it fails
 * @param commandTimeoutName the setting that holds {@code commandTimeout}
 */
record RedisTarget(String description, Duration commandTimeout, String commandTimeoutName) {}
