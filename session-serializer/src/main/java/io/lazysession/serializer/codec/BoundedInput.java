package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.KryoException;
import com.esotericsoftware.kryo.kryo5.io.Input;
import java.util.Arrays;

/**
 * A Kryo input over one byte array that refuses to allocate for a declared length longer than the
 * bytes that remain: every array element, string character or collection element takes at least one
 * byte, so a larger count can only be a lie, and believing it would allocate gigabytes. It also counts,
 * per decode (from one {@code setBuffer} to the next), the elements of arrays and maps declared and the bytes of arrays and strings it let be allocated. Not
 * thread-safe (one per pooled Kryo).
 */
final class BoundedInput extends Input {
  private long elements;
  private long allocatedBytes;

  BoundedInput() {
    super(KryoFactory.EMPTY);
  }

  @Override
  public void setBuffer(byte[] bytes, int offset, int count) {
    super.setBuffer(bytes, offset, count);
    elements = 0;
    allocatedBytes = 0;
  }

  /** Collection, map and array elements declared since the buffer was set. */
  long elements() {
    return elements;
  }

  /** Bytes of arrays and strings allocated from declared lengths since the buffer was set. */
  long allocatedBytes() {
    return allocatedBytes;
  }

  /** Fails unless {@code count} elements of at least one byte each can still follow. */
  void elements(long count) {
    require(count, 1);
    elements += count;
    allocatedBytes += 8 * count; // a reference per element, at most
  }

  private void allocate(long count, int bytesEach, int allocatedEach) {
    require(count, bytesEach);
    allocatedBytes += count * allocatedEach;
  }

  /**
   * Consumes the bytes that follow if they are exactly {@code expected} (a schema header this version
   * writes, matched as bytes instead of being decoded into strings); otherwise consumes nothing.
   */
  boolean skipIfNext(byte[] expected) {
    int end = position + expected.length;
    if (end > limit || !Arrays.equals(buffer, position, end, expected, 0, expected.length)) {
      return false;
    }
    position = end;
    return true;
  }

  int remaining() {
    return limit - position;
  }

  /** Fails unless {@code count} items of at least {@code bytesEach} bytes can still follow. */
  void require(long count, int bytesEach) {
    if (count < 0 || count * bytesEach > remaining()) {
      throw new KryoException("declared count " + count + " exceeds the " + remaining()
          + " bytes that remain");
    }
  }

  /**
   * Peeks at the unsigned varint count that follows (Kryo's count encoding, often count + 1 with 0 for
   * null) and checks it against the bytes that remain, without consuming it.
   *
   * @return the count
   */
  long requireCountAhead() {
    long count = 0;
    for (int i = 0, p = position; i < 5 && p < limit; i++, p++) {
      int b = buffer[p];
      count |= (long) (b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) {
        break;
      }
    }
    if (count > 0) {
      elements(count - 1);
      return count - 1;
    }
    return 0;
  }

  @Override
  public byte[] readBytes(int length) {
    allocate(length, 1, 1);
    return super.readBytes(length);
  }

  @Override
  public int[] readInts(int length) {
    allocate(length, 4, 4);
    return super.readInts(length);
  }

  @Override
  public int[] readInts(int length, boolean optimizePositive) {
    allocate(length, 1, 4);
    return super.readInts(length, optimizePositive);
  }

  @Override
  public long[] readLongs(int length) {
    allocate(length, 8, 8);
    return super.readLongs(length);
  }

  @Override
  public long[] readLongs(int length, boolean optimizePositive) {
    allocate(length, 1, 8);
    return super.readLongs(length, optimizePositive);
  }

  @Override
  public float[] readFloats(int length) {
    allocate(length, 4, 4);
    return super.readFloats(length);
  }

  @Override
  public double[] readDoubles(int length) {
    allocate(length, 8, 8);
    return super.readDoubles(length);
  }

  @Override
  public short[] readShorts(int length) {
    allocate(length, 2, 2);
    return super.readShorts(length);
  }

  @Override
  public char[] readChars(int length) {
    allocate(length, 2, 2);
    return super.readChars(length);
  }

  @Override
  public boolean[] readBooleans(int length) {
    allocate(length, 1, 1);
    return super.readBooleans(length);
  }

  @Override
  public String readString() {
    requireStringLength();
    return super.readString();
  }

  @Override
  public StringBuilder readStringBuilder() {
    requireStringLength();
    return super.readStringBuilder();
  }

  /**
   * Peeks at the character count of the string that follows (Kryo's format: ASCII strings end with a
   * high bit, others start with a varint count whose first byte has 0x80 set and 0x40 as its
   * continuation bit) and checks it against the bytes that remain.
   */
  private void requireStringLength() {
    if (position >= limit) {
      return; // super reports the underflow
    }
    int b = buffer[position];
    if ((b & 0x80) == 0) {
      return; // ASCII: read up to its terminating byte, allocation bounded by the input
    }
    long count = b & 0x3F;
    if ((b & 0x40) != 0) {
      int shift = 6;
      for (int p = position + 1; p < limit && shift <= 27; p++, shift += 7) {
        int next = buffer[p];
        count |= (long) (next & 0x7F) << shift;
        if ((next & 0x80) == 0) {
          break;
        }
      }
    }
    // count is chars + 1 (0 means null, 1 the empty string); each char takes at least one byte.
    allocate(count - 1, 1, 2);
  }
}
