/**
 * A reference session: twelve attributes of the kind a shop or portal keeps, built deterministically,
 * shared through this module's test-jar with the store's tests and the benchmarks. Outside the default
 * allow-list on purpose: {@code ClassAllowList.builder().allowPackage(ReferenceSession.PACKAGE)}.
 */
@NullMarked
package io.lazysession.serializer.reference;

import org.jspecify.annotations.NullMarked;
