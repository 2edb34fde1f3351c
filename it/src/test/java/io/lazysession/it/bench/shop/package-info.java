/**
 * The application classes of the benchmark's shop sessions: what a web shop keeps in its HTTP
 * sessions (profile, cart, address, catalogue page, order history). Serializable for Spring Session's
 * JDK serializer; allowed by package for lazysession.
 */
@NullMarked
package io.lazysession.it.bench.shop;

import org.jspecify.annotations.NullMarked;
