/**
 * zstd compression of payloads: {@link io.lazysession.serializer.compress.Compression} (the setting:
 * none, or zstd at a level above a size threshold), {@link io.lazysession.serializer.compress.ZstdDictionary}
 * (a trained dictionary, identified by id in the envelope) and {@link
 * io.lazysession.serializer.compress.ZstdCompressor} (the thread-confined contexts and buffers, with the
 * decompression size and ratio caps).
 */
@NullMarked
package io.lazysession.serializer.compress;

import org.jspecify.annotations.NullMarked;
