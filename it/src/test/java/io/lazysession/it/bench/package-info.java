/**
 * The replication-cost benchmark: the same requests, through the same {@code SessionRepository} code
 * path, on Spring Session Data Redis and on lazysession, against one Redis, measuring what each costs
 * in Redis memory, commands, bytes on the wire, client CPU and latency. See {@code it/README.md}.
 */
@NullMarked
package io.lazysession.it.bench;

import org.jspecify.annotations.NullMarked;
