/**
 * The fault soak: two application nodes per store configuration on a Sentinel-managed primary and
 * replica, client threads doing shop requests while a schedule breaks Redis, and a ledger of every
 * acknowledged write that says what a fault lost, which reads were stale and how long recovery took.
 * Writes docs/reliability.md. See {@code it/README.md}.
 */
@NullMarked
package io.lazysession.it.soak;

import org.jspecify.annotations.NullMarked;
