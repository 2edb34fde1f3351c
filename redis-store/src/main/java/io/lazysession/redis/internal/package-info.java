/**
 * Internal: public for lazysession's own packages and for the libraries that load them by name;
 * not part of the supported API (docs/api.md), may change in any release.
 */
@NullMarked
package io.lazysession.redis.internal;

import org.jspecify.annotations.NullMarked;
