package io.lazysession.serializer.compress;

import java.util.List;

/**
 * A zstd dictionary trained on sample attribute payloads; its id is written in every envelope compressed
 * with it. Immutable and thread-safe.
 */
public final class ZstdDictionary {
  /** Trains a dictionary of at most {@code maxBytes} from sample codec payloads. */
  public static ZstdDictionary train(List<byte[]> samples, int maxBytes) {
    throw new UnsupportedOperationException("TODO");
  }

  /** Wraps the bytes of a dictionary trained earlier (for example read from a file). */
  public static ZstdDictionary of(byte[] dictionaryBytes) {
    throw new UnsupportedOperationException("TODO");
  }

  /** The dictionary id (as zstd stores it in the dictionary header); never 0. */
  public int id() {
    throw new UnsupportedOperationException("TODO");
  }

  /** A copy of the dictionary bytes, to save and load later. */
  public byte[] bytes() {
    throw new UnsupportedOperationException("TODO");
  }
}
