/** Micrometer binding of the repository's metrics (optional: only when Micrometer is present). */
@NullMarked
package io.lazysession.redis.micrometer;

import org.jspecify.annotations.NullMarked;
