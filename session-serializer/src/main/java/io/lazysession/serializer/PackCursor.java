package io.lazysession.serializer;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lazysession.serializer.envelope.EnvelopeCompression;
import io.lazysession.serializer.envelope.EnvelopeHeader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Reads varints, names and byte runs of a range, refusing anything past its end. */
final class PackCursor {
  private final byte[] bytes;
  private final int end;
  private int position;

  PackCursor(byte[] bytes, int position, int end) {
    this.bytes = bytes;
    this.position = position;
    this.end = end;
  }

  /** Where the next read starts. */
  int position() {
    return position;
  }

  int varint() {
    long value = 0;
    for (int i = 0; i < 5; i++) {
      if (position >= end) {
        throw new CorruptDataException("pack is truncated");
      }
      int b = bytes[position++] & 0xFF;
      value |= (long) (b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) {
        if (value > Integer.MAX_VALUE) {
          throw new CorruptDataException("pack varint overflows");
        }
        return (int) value;
      }
    }
    throw new CorruptDataException("pack varint is longer than 5 bytes");
  }

  int octet() {
    if (position >= end) {
      throw new CorruptDataException("pack is truncated");
    }
    return bytes[position++] & 0xFF;
  }

  /** The envelope of a bare entry: its header put back in front of the payload that follows. */
  byte[] bare(int length, int codec) {
    if (length > end - position) {
      throw new CorruptDataException("pack is truncated");
    }
    byte[] envelope = new byte[AttributePack.BARE_HEADER + length];
    envelope[0] = (byte) EnvelopeHeader.FORMAT_BYTE;
    envelope[1] = (byte) codec;
    envelope[2] = (byte) EnvelopeCompression.NONE.id();
    System.arraycopy(bytes, position, envelope, AttributePack.BARE_HEADER, length);
    position += length;
    return envelope;
  }

  private boolean ascii(int from, int length) {
    for (int i = from; i < from + length; i++) {
      if (bytes[i] < 0) {
        return false;
      }
    }
    return true;
  }

  byte[] bytes(int length) {
    if (length > end - position) {
      throw new CorruptDataException("pack is truncated");
    }
    byte[] copy = Arrays.copyOfRange(bytes, position, position + length);
    position += length;
    return copy;
  }

  String name(int length) {
    if (length > end - position) {
      throw new CorruptDataException("pack is truncated");
    }
    if (ascii(position, length)) {
      // Nearly every attribute name: no decoder needed, and none is made per name.
      String name = new String(bytes, position, length, StandardCharsets.US_ASCII);
      position += length;
      return name;
    }
    try {
      String name = UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes, position, length)).toString();
      position += length;
      return name;
    } catch (CharacterCodingException e) {
      throw new CorruptDataException("pack holds a name that is not UTF-8", e);
    }
  }
}
