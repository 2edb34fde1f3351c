/**
 * The codecs that turn a value into payload bytes and back: Kryo ({@link
 * io.lazysession.serializer.codec.CodecKind#KRYO}, the default) and JDK serialization. Public here:
 * {@link io.lazysession.serializer.codec.CodecKind} (which codec writes), {@link
 * io.lazysession.serializer.codec.Codec} and {@link io.lazysession.serializer.codec.Codecs} (a codec on
 * its own, for tools and benchmarks), and {@link io.lazysession.serializer.codec.DecodeLimitException}.
 * Everything else is package-private: Kryo's pooled instances and their serializers (JDK collections,
 * views written as their plain copy, {@code java.net.URL}/{@code URI} without host lookups, exceptions),
 * the allow-list class resolver, and the per-decode limits that bound the work and memory of hostile
 * bytes (docs/hostile-input.md).
 */
@NullMarked
package io.lazysession.serializer.codec;

import org.jspecify.annotations.NullMarked;
