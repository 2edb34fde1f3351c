package io.lazysession.serializer.compress;

import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import io.lazysession.serializer.CorruptDataException;
import io.lazysession.serializer.codec.DecodeLimitException;
import org.jspecify.annotations.Nullable;

/**
 * Compresses and decompresses raw zstd frames with contexts reused per thread. Thread-safe: each thread
 * gets its own compression and decompression context, never shared.
 *
 * <p>Frames are written without magic number, content size, dictionary id or checksum: the envelope
 * carries the uncompressed length and the dictionary id, and a frame is never read outside an envelope.
 * That saves up to 12 bytes per value, which matters for small attributes.
 */
public final class ZstdCompressor {
  private static final ThreadLocal<ZstdCompressCtx> COMPRESS = ThreadLocal.withInitial(ZstdCompressCtx::new);
  private static final ThreadLocal<ZstdDecompressCtx> DECOMPRESS =
      ThreadLocal.withInitial(ZstdDecompressCtx::new);

  /**
   * Decoded bytes allowed per compressed byte beyond {@link #RATIO_FREE_BYTES}: a frame declaring more
   * is refused before its buffer is allocated, so a few hundred stored bytes cannot make a decode
   * allocate megabytes. Writers store a payload raw instead of compressing it past this ratio.
   */
  public static final int MAX_RATIO = 1024;

  /** Decoded size up to which any ratio is accepted. */
  public static final int RATIO_FREE_BYTES = 1 << 20;

  private ZstdCompressor() {}

  /** Whether a frame of {@code compressedLength} bytes may decode to {@code decodedLength}. */
  public static boolean withinRatio(int decodedLength, int compressedLength) {
    return decodedLength <= RATIO_FREE_BYTES || decodedLength <= (long) MAX_RATIO * compressedLength;
  }

  /**
   * Compresses {@code length} bytes of {@code source} from {@code offset} into a new array. With a
   * dictionary the level is the one given here too.
   */
  public static byte[] compress(byte[] source, int offset, int length, int level,
      @Nullable ZstdDictionary dictionary) {
    ZstdCompressCtx ctx = COMPRESS.get();
    ctx.reset();
    ctx.setMagicless(true).setContentSize(false).setDictID(false).setChecksum(false);
    if (dictionary != null) {
      ctx.loadDict(dictionary.compressDictionary(level));
    } else {
      ctx.setLevel(level);
    }
    byte[] target = new byte[(int) com.github.luben.zstd.Zstd.compressBound(length)];
    int size = ctx.compressByteArray(target, 0, target.length, source, offset, length);
    return java.util.Arrays.copyOf(target, size);
  }

  /**
   * Decompresses a frame written by {@link #compress} that must yield exactly {@code decodedLength}
   * bytes.
   *
   * @throws CorruptDataException if the frame is invalid or does not decode to that length
   * @throws DecodeLimitException if that length is beyond {@link #MAX_RATIO} times the frame's
   */
  public static byte[] decompress(byte[] source, int offset, int length, int decodedLength,
      @Nullable ZstdDictionary dictionary) {
    if (!withinRatio(decodedLength, length)) {
      throw new DecodeLimitException("zstd frame of " + length + " bytes declares " + decodedLength
          + " decoded bytes, more than " + MAX_RATIO + " times its size above "
          + RATIO_FREE_BYTES + " bytes (limit ZstdCompressor.MAX_RATIO); not decompressed");
    }
    ZstdDecompressCtx ctx = DECOMPRESS.get();
    ctx.reset();
    ctx.setMagicless(true);
    if (dictionary != null) {
      ctx.loadDict(dictionary.decompressDictionary());
    }
    byte[] target = new byte[decodedLength];
    int size;
    try {
      size = ctx.decompressByteArray(target, 0, decodedLength, source, offset, length);
    } catch (ZstdException e) {
      throw new CorruptDataException("zstd frame cannot be decompressed"
          + (dictionary == null ? "" : " with dictionary " + Integer.toUnsignedString(dictionary.id()))
          + ": " + e.getMessage(), e);
    } finally {
      if (dictionary != null) {
        ctx.reset();
      }
    }
    if (size != decodedLength) {
      throw new CorruptDataException("zstd frame decompressed to " + size
          + " bytes but the envelope declares " + decodedLength);
    }
    return target;
  }
}
