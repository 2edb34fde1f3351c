package io.lazysession.serializer.envelope;

import io.lazysession.serializer.CorruptDataException;
import io.lazysession.serializer.IncompatibleDataException;
import io.lazysession.serializer.ValueTooLargeException;
import io.lazysession.serializer.codec.CodecKind;

/**
 * The header of an envelope, the bytes of one attribute value (format in docs/envelope-format.md):
 *
 * <pre>
 * byte 0   format byte: 0xA1 (high nibble 0xA marks an envelope, low nibble is the version, 1)
 * byte 1   codec id ({@link CodecKind#id()}: 1 JDK, 2 Kryo)
 * byte 2   compression id ({@link EnvelopeCompression}: 0 none, 1 zstd, 2 zstd with dictionary)
 * varint   dictionary id, unsigned 32 bits, only for compression 2
 * varint   decoded payload length, only for compression 1 and 2
 * ...      payload
 * </pre>
 *
 * Varints are unsigned LEB128 (7 bits a byte, least significant group first, at most 5 bytes).
 * Immutable and thread-safe.
 *
 * @param codec the codec that wrote the payload
 * @param compression how the payload is compressed
 * @param dictionaryId the zstd dictionary id for {@link EnvelopeCompression#ZSTD_DICTIONARY}, else 0
 * @param decodedLength length of the codec payload once decompressed
 * @param length length of this header in bytes; the payload starts there
 */
public record EnvelopeHeader(CodecKind codec, EnvelopeCompression compression, int dictionaryId,
    int decodedLength, int length) {

  /** The format byte of version 1. */
  public static final int FORMAT_BYTE = 0xA1;
  /**
   * The last format byte a later envelope version may take (versions 2 to 9): read as such, never as
   * corrupt. {@code 0xAC} is left out: it starts a bare Java serialization stream.
   */
  private static final int LAST_FORMAT_BYTE = 0xA9;
  /** The version written and read by this library. */
  public static final int FORMAT_VERSION = 1;
  /** The longest Java array: a larger declared length is no writer's. */
  private static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

  /** Header of an uncompressed payload of this length. */
  public static EnvelopeHeader raw(CodecKind codec, int payloadLength) {
    return new EnvelopeHeader(codec, EnvelopeCompression.NONE, 0, payloadLength, 3);
  }

  /** Header of a zstd payload, with a dictionary when {@code dictionaryId} is not 0. */
  public static EnvelopeHeader zstd(CodecKind codec, int dictionaryId, int decodedLength) {
    if (dictionaryId == 0) {
      return new EnvelopeHeader(codec, EnvelopeCompression.ZSTD, 0, decodedLength,
          3 + varintLength(decodedLength));
    }
    return new EnvelopeHeader(codec, EnvelopeCompression.ZSTD_DICTIONARY, dictionaryId, decodedLength,
        3 + varintLength(dictionaryId) + varintLength(decodedLength));
  }

  /**
   * Reads the header at the start of an envelope.
   *
   * @param maxDecodedLength larger declared decoded lengths are refused (decompression bombs)
   * @throws CorruptDataException if the bytes do not start with a valid header
   * @throws IncompatibleDataException if the payload is larger than {@code maxDecodedLength}, or
   *     the header is of a later envelope version or names a codec or compression this version
   *     does not have: bytes to keep for the node that wrote them
   */
  public static EnvelopeHeader read(byte[] envelope, int maxDecodedLength) {
    if (envelope.length < 3) {
      throw new CorruptDataException("envelope of " + envelope.length
          + " bytes is shorter than the 3-byte header");
    }
    int format = envelope[0] & 0xFF;
    if (format > FORMAT_BYTE && format <= LAST_FORMAT_BYTE) {
      // A later envelope version (docs/redis-layout.md, "Format"): kept for the node that wrote it.
      throw new IncompatibleDataException(null, String.format("the envelope is of format version "
          + "%d, this node reads version %d (written by a newer lazysession)", format & 0x0F,
          FORMAT_VERSION), null);
    }
    if (format != FORMAT_BYTE) {
      throw new CorruptDataException(String.format(
          "envelope starts with 0x%02X, expected format byte 0x%02X (version %d)",
          format, FORMAT_BYTE, FORMAT_VERSION));
    }
    int codecId = envelope[1] & 0xFF;
    CodecKind codec = CodecKind.ofId(codecId);
    if (codec == null) {
      throw new IncompatibleDataException(null, "the envelope names codec id " + codecId
          + ", which this node does not have (written by a newer lazysession)", null);
    }
    EnvelopeCompression compression = EnvelopeCompression.ofId(envelope[2] & 0xFF);
    if (compression == null) {
      throw new IncompatibleDataException(null, "the envelope names compression id "
          + (envelope[2] & 0xFF) + ", which this node does not have (written by a newer "
          + "lazysession)", null);
    }
    int position = 3;
    int dictionaryId = 0;
    if (compression == EnvelopeCompression.ZSTD_DICTIONARY) {
      long id = readVarint(envelope, position);
      dictionaryId = (int) id;
      position += (int) (id >>> 40);
      if (dictionaryId == 0) {
        throw new CorruptDataException("envelope names zstd dictionary id 0");
      }
    }
    int decodedLength = envelope.length - 3;
    if (compression != EnvelopeCompression.NONE) {
      long length = readVarint(envelope, position);
      position += (int) (length >>> 40);
      long value = length & 0xFFFFFFFFL;
      if (value > MAX_ARRAY_LENGTH) {
        throw new CorruptDataException("envelope declares a decoded length of " + value
            + " bytes, more than any writer can produce");
      }
      if (value > maxDecodedLength) {
        throw tooLarge(value, maxDecodedLength);
      }
      decodedLength = (int) value;
    } else if (decodedLength > maxDecodedLength) {
      throw tooLarge(decodedLength, maxDecodedLength);
    }
    return new EnvelopeHeader(codec, compression, dictionaryId, decodedLength, position);
  }

  /**
   * A payload over this node's limit is not broken: a node configured with a larger
   * {@code lazysession.max-value-bytes} wrote it and reads it.
   */
  private static IncompatibleDataException tooLarge(long length, int maxDecodedLength) {
    return new IncompatibleDataException(null, "the payload is " + length + " bytes, more than the "
        + "maximum of " + maxDecodedLength + " bytes set by " + ValueTooLargeException.PROPERTY, null);
  }

  /** Writes this header at the start of {@code target}, which must be at least {@link #length()} long. */
  public void writeTo(byte[] target) {
    target[0] = (byte) FORMAT_BYTE;
    target[1] = (byte) codec.id();
    target[2] = (byte) compression.id();
    int position = 3;
    if (compression == EnvelopeCompression.ZSTD_DICTIONARY) {
      position = writeVarint(target, position, dictionaryId);
    }
    if (compression != EnvelopeCompression.NONE) {
      writeVarint(target, position, decodedLength);
    }
  }

  /** An envelope made of this header and the payload. */
  public byte[] wrap(byte[] payload, int payloadLength) {
    byte[] envelope = new byte[length + payloadLength];
    writeTo(envelope);
    System.arraycopy(payload, 0, envelope, length, payloadLength);
    return envelope;
  }

  static int varintLength(int value) {
    long v = value & 0xFFFFFFFFL;
    int n = 1;
    while (v >= 0x80) {
      v >>>= 7;
      n++;
    }
    return n;
  }

  private static int writeVarint(byte[] target, int position, int value) {
    long v = value & 0xFFFFFFFFL;
    while (v >= 0x80) {
      target[position++] = (byte) (v | 0x80);
      v >>>= 7;
    }
    target[position++] = (byte) v;
    return position;
  }

  /** The value in the low 32 bits, the number of bytes read in bits 40 and up. */
  private static long readVarint(byte[] source, int position) {
    long value = 0;
    for (int i = 0; i < 5; i++) {
      if (position + i >= source.length) {
        throw new CorruptDataException("envelope header is truncated");
      }
      int b = source[position + i] & 0xFF;
      value |= (long) (b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) {
        if (value > 0xFFFFFFFFL) {
          throw new CorruptDataException("envelope header varint overflows 32 bits");
        }
        return value | ((long) (i + 1) << 40);
      }
    }
    throw new CorruptDataException("envelope header varint is longer than 5 bytes");
  }
}
