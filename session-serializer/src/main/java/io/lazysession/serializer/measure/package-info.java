/**
 * Measuring what a session's attributes cost: {@link io.lazysession.serializer.measure.PayloadMeter}
 * encodes values with every codec and compression and reports the bytes of each in a {@link
 * io.lazysession.serializer.measure.PayloadReport} (used by the sample's payload page).
 */
@NullMarked
package io.lazysession.serializer.measure;

import org.jspecify.annotations.NullMarked;
