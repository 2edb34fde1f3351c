package io.lazysession.serializer;

/**
 * The bytes are provably broken: not an envelope, an unknown codec or compression id, a zstd frame
 * that does not decompress, a payload that ends before its value does or goes on after it while no
 * class it names could have changed under it (see docs/serializer-evolution.md). No node, whatever
 * its version, can read them. Every other decode failure is an
 * {@link IncompatibleDataException} (or {@link ClassNotAllowedException},
 * {@link UnknownDictionaryException}): bytes that another node may read.
 */
public class CorruptDataException extends SerializationException {
  private static final long serialVersionUID = 1L;

  public CorruptDataException(String message) {
    super(message);
  }

  public CorruptDataException(String message, Throwable cause) {
    super(message, cause);
  }
}
