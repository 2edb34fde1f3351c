/**
 * Encoding of session attribute values, the API of this module: {@link
 * io.lazysession.serializer.AttributeSerializer} turns a value into an envelope (header + codec
 * payload, optionally zstd-compressed) and back, and hands out {@link
 * io.lazysession.serializer.LazyValue}s that stay bytes until read; {@link
 * io.lazysession.serializer.ClassAllowList} says which classes may be decoded. The exceptions say why a
 * value could not be decoded: {@link io.lazysession.serializer.CorruptDataException} only for bytes that
 * are provably broken, {@link io.lazysession.serializer.IncompatibleDataException}, {@link
 * io.lazysession.serializer.ClassNotAllowedException} and {@link
 * io.lazysession.serializer.UnknownDictionaryException} for bytes another node may read (keep them).
 * Sub-packages: {@code codec} (Kryo and JDK), {@code compress} (zstd), {@code envelope} (the header),
 * {@code measure} (payload sizes).
 */
@NullMarked
package io.lazysession.serializer;

import org.jspecify.annotations.NullMarked;
