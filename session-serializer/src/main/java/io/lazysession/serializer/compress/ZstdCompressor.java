package io.lazysession.serializer.compress;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import io.lazysession.serializer.CorruptDataException;
import io.lazysession.serializer.codec.DecodeLimitException;
import org.jspecify.annotations.Nullable;

/**
 * Compresses and decompresses raw zstd frames with contexts and buffers reused per thread. Thread-safe:
 * each thread gets its own compression and decompression context and scratch buffer, never shared.
 *
 * <p>Frames are written without magic number, content size, dictionary id or checksum: the envelope
 * carries the uncompressed length and the dictionary id, and a frame is never read outside an envelope.
 * That saves up to 12 bytes per value, which matters for small attributes.
 *
 * <p>Buffers, and why: a frame is compressed in one call (the bytes of a frame depend on how its input
 * is fed to zstd, and envelopes must stay byte-identical) into the thread's scratch buffer, then copied
 * once into an array of exactly the envelope's length, header room included; a frame whose bound is
 * larger than the scratch buffer is written after the header room of an array of that bound and
 * trimmed once. Decompression knows the decoded length from
 * the envelope, so it allocates once and never grows; a caller that only decodes the payload can borrow
 * the scratch buffer instead ({@link #decompress(byte[], int, int, int, ZstdDictionary, PayloadReader)}).
 * The scratch buffer is kept up to {@link #RETAINED_BUFFER_BYTES} per thread, so that a thread that
 * once handled a 10 MB value does not hold 10 MB for its lifetime.
 *
 * <p>Internal: public for lazysession's own packages; not part of the supported API (docs/api.md).
 * Applications choose compression with {@link Compression}.
 */
public final class ZstdCompressor {
  private static final ThreadLocal<PerThread> PER_THREAD = ThreadLocal.withInitial(PerThread::new);

  /**
   * Decoded bytes allowed per compressed byte beyond {@link #RATIO_FREE_BYTES}: a frame declaring more
   * is refused before its buffer is allocated, so a few hundred stored bytes cannot make a decode
   * allocate megabytes. Writers store a payload raw instead of compressing it past this ratio.
   */
  public static final int MAX_RATIO = 1024;

  /** Decoded size up to which any ratio is accepted. */
  public static final int RATIO_FREE_BYTES = 1 << 20;

  /** Largest scratch buffer a thread keeps between calls; larger ones are used once and dropped. */
  static final int RETAINED_BUFFER_BYTES = 256 * 1024;

  private ZstdCompressor() {}

  /**
   * Loads zstd's native code now. It is otherwise loaded at the first compression or decompression,
   * which may run on an event loop (a reactive save or load), where reading the library out of its jar
   * is blocking I/O; a serializer loads it when it is built.
   */
  public static void loadNative() {
    com.github.luben.zstd.util.Native.load();
  }

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
    byte[] frame = compress(source, offset, length, level, dictionary, 0, Integer.MAX_VALUE);
    if (frame == null) {
      throw new IllegalStateException("zstd frame longer than its bound"); // cannot happen
    }
    return frame;
  }

  /**
   * Compresses {@code length} bytes of {@code source} from {@code offset} into a new array of exactly
   * {@code headroom} plus the frame's length, the frame starting at index {@code headroom} (where an
   * envelope puts its header); the first {@code headroom} bytes are zero. The frame is the same, byte
   * for byte, as {@link #compress(byte[], int, int, int, ZstdDictionary)} writes.
   *
   * @param maxFrameLength longest frame the caller will use (a longer one is stored raw anyway)
   * @return the array, or null if the frame would be longer than {@code maxFrameLength}
   */
  public static byte @Nullable [] compress(byte[] source, int offset, int length, int level,
      @Nullable ZstdDictionary dictionary, int headroom, int maxFrameLength) {
    PerThread thread = PER_THREAD.get();
    ZstdCompressCtx ctx = thread.compress;
    ctx.reset();
    ctx.setMagicless(true).setContentSize(false).setDictID(false).setChecksum(false);
    if (dictionary != null) {
      ctx.loadDict(dictionary.compressDictionary(level));
    } else {
      ctx.setLevel(level);
    }
    // zstd is always given room for its bound: with less it fails on some frames that would have fit
    // (small payloads whose frame is just under their length), so a short buffer cannot double as the
    // "does it shrink" test, and the bound is what the envelope bytes were always compressed with.
    int bound = (int) Math.min(Integer.MAX_VALUE - 8 - headroom, Zstd.compressBound(length));
    int size;
    byte[] target;
    if (bound <= RETAINED_BUFFER_BYTES && !thread.lent) {
      byte[] scratch = thread.scratch(bound);
      size = ctx.compressByteArray(scratch, 0, bound, source, offset, length);
      if (size > maxFrameLength) {
        return null;
      }
      target = new byte[headroom + size];
      System.arraycopy(scratch, 0, target, headroom, size);
      return target;
    }
    target = new byte[headroom + bound];
    size = ctx.compressByteArray(target, headroom, bound, source, offset, length);
    if (size > maxFrameLength) {
      return null;
    }
    // A frame of a large payload is usually far shorter than its bound; hand back an exact array.
    return java.util.Arrays.copyOf(target, headroom + size);
  }

  /**
   * Decompresses a frame written by {@link #compress} that must yield exactly {@code decodedLength}
   * bytes, into a new array of that length.
   *
   * @throws CorruptDataException if the frame is invalid or does not decode to that length
   * @throws DecodeLimitException if that length is beyond {@link #MAX_RATIO} times the frame's
   */
  public static byte[] decompress(byte[] source, int offset, int length, int decodedLength,
      @Nullable ZstdDictionary dictionary) {
    checkRatio(length, decodedLength);
    byte[] target = new byte[decodedLength];
    decompressInto(PER_THREAD.get().decompress, target, source, offset, length, decodedLength,
        dictionary);
    return target;
  }

  /**
   * Reads a decompressed payload that is only valid during the call. Internal, as its enclosing
   * class.
   */
  @FunctionalInterface
  public interface PayloadReader<T> {
    T read(byte[] bytes, int offset, int length);
  }

  /**
   * Decompresses like {@link #decompress(byte[], int, int, int, ZstdDictionary)} and hands the payload
   * to {@code reader}, in this thread's scratch buffer when it fits there: the reader must not keep the
   * array nor let it escape. Reentrant: a reader that decompresses again gets a buffer of its own.
   *
   * @throws CorruptDataException if the frame is invalid or does not decode to that length
   * @throws DecodeLimitException if that length is beyond {@link #MAX_RATIO} times the frame's
   */
  public static <T> T decompress(byte[] source, int offset, int length, int decodedLength,
      @Nullable ZstdDictionary dictionary, PayloadReader<T> reader) {
    checkRatio(length, decodedLength);
    PerThread thread = PER_THREAD.get();
    if (decodedLength > RETAINED_BUFFER_BYTES || thread.lent) {
      byte[] target = new byte[decodedLength];
      decompressInto(thread.decompress, target, source, offset, length, decodedLength, dictionary);
      return reader.read(target, 0, decodedLength);
    }
    byte[] scratch = thread.scratch(decodedLength);
    decompressInto(thread.decompress, scratch, source, offset, length, decodedLength, dictionary);
    thread.lent = true;
    try {
      return reader.read(scratch, 0, decodedLength);
    } finally {
      thread.lent = false;
    }
  }

  private static void checkRatio(int length, int decodedLength) {
    if (!withinRatio(decodedLength, length)) {
      throw new DecodeLimitException("zstd frame of " + length + " bytes declares " + decodedLength
          + " decoded bytes, more than " + MAX_RATIO + " times its size above "
          + RATIO_FREE_BYTES + " bytes (limit ZstdCompressor.MAX_RATIO); not decompressed");
    }
  }

  private static void decompressInto(ZstdDecompressCtx ctx, byte[] target, byte[] source, int offset,
      int length, int decodedLength, @Nullable ZstdDictionary dictionary) {
    ctx.reset();
    ctx.setMagicless(true);
    if (dictionary != null) {
      ctx.loadDict(dictionary.decompressDictionary());
    }
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
  }

  /** One thread's contexts and scratch buffer; confined to that thread. */
  private static final class PerThread {
    final ZstdCompressCtx compress = new ZstdCompressCtx();
    final ZstdDecompressCtx decompress = new ZstdDecompressCtx();
    private byte[] scratch = new byte[0];
    /** Whether the scratch buffer is lent to a {@link PayloadReader} right now. */
    boolean lent;

    /** The scratch buffer, at least {@code length} long ({@code length <= RETAINED_BUFFER_BYTES}). */
    byte[] scratch(int length) {
      if (scratch.length < length) {
        // Grow geometrically, so that a thread seeing slowly larger values does not reallocate each time.
        scratch = new byte[Math.min(RETAINED_BUFFER_BYTES, Math.max(length, 2 * scratch.length))];
      }
      return scratch;
    }
  }
}
