/**
 * Encoding of session attribute values: {@link io.lazysession.serializer.AttributeSerializer} turns a
 * value into an envelope (header + codec payload, optionally zstd-compressed) and back.
 */
@NullMarked
package io.lazysession.serializer;

import org.jspecify.annotations.NullMarked;
