package io.lazysession.serializer.compress;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDictCompress;
import com.github.luben.zstd.ZstdDictDecompress;
import com.github.luben.zstd.ZstdDictTrainer;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * A zstd dictionary trained on sample attribute payloads; its id is written in every envelope compressed
 * with it. Immutable and thread-safe.
 */
public final class ZstdDictionary {
  /** Smallest dictionary zstd accepts to train. */
  public static final int MIN_BYTES = 256;

  private final byte[] bytes;
  private final int id;
  // Digested forms are expensive to build and immutable once built (zstd CDict / DDict): share them.
  private final ConcurrentMap<Integer, ZstdDictCompress> compressByLevel = new ConcurrentHashMap<>();
  private volatile @Nullable ZstdDictDecompress decompress;

  private ZstdDictionary(byte[] bytes, int id) {
    this.bytes = bytes;
    this.id = id;
  }

  /**
   * Trains a dictionary of at most {@code maxBytes} from sample codec payloads.
   *
   * @throws IllegalArgumentException if there are no samples, {@code maxBytes} is too small, or zstd
   *     cannot train from them (too few or too uniform samples)
   */
  public static ZstdDictionary train(List<byte[]> samples, int maxBytes) {
    if (maxBytes < MIN_BYTES) {
      throw new IllegalArgumentException("maxBytes must be >= " + MIN_BYTES + ", was " + maxBytes);
    }
    if (samples.isEmpty()) {
      throw new IllegalArgumentException("samples must not be empty");
    }
    long total = 0;
    for (byte[] sample : samples) {
      total += sample.length;
    }
    // The trainer holds every sample in one buffer; give it room for all of them.
    ZstdDictTrainer trainer = new ZstdDictTrainer((int) Math.min(Integer.MAX_VALUE - 8, total + 1),
        maxBytes);
    for (byte[] sample : samples) {
      trainer.addSample(sample);
    }
    byte[] trained;
    try {
      trained = trainer.trainSamples();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("zstd could not train a dictionary from " + samples.size()
          + " samples of " + total + " bytes: " + e.getMessage(), e);
    }
    return of(trained);
  }

  /**
   * Wraps the bytes of a dictionary trained earlier (for example read from a file).
   *
   * @throws IllegalArgumentException if the bytes are not a zstd dictionary with an id
   */
  public static ZstdDictionary of(byte[] dictionaryBytes) {
    byte[] copy = dictionaryBytes.clone();
    long id = Zstd.getDictIdFromDict(copy);
    if (id == 0) {
      throw new IllegalArgumentException(
          "dictionaryBytes must be a zstd dictionary with a non-zero id (trained by zstd)");
    }
    return new ZstdDictionary(copy, (int) id);
  }

  /** The dictionary id (as zstd stores it in the dictionary header); never 0. */
  public int id() {
    return id;
  }

  /** A copy of the dictionary bytes, to save and load later. */
  public byte[] bytes() {
    return bytes.clone();
  }

  ZstdDictCompress compressDictionary(int level) {
    return compressByLevel.computeIfAbsent(level, l -> new ZstdDictCompress(bytes, l));
  }

  ZstdDictDecompress decompressDictionary() {
    ZstdDictDecompress d = decompress;
    if (d == null) {
      d = new ZstdDictDecompress(bytes);
      decompress = d;
    }
    return d;
  }

  /** Size of the dictionary in bytes. */
  public int size() {
    return bytes.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ZstdDictionary other && id == other.id && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, bytes.length);
  }

  @Override
  public String toString() {
    return "ZstdDictionary{id=" + Integer.toUnsignedString(id) + ", bytes=" + bytes.length + "}";
  }
}
