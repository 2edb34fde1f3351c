package io.lazysession.serializer;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lazysession.serializer.codec.DecodeLimitException;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdCompressor;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lazysession.serializer.envelope.EnvelopeCompression;
import io.lazysession.serializer.envelope.EnvelopeHeader;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The pack: several small attributes' envelopes in one value, compressed together (format in
 * docs/envelope-format.md, "Attribute pack"):
 *
 * <pre>
 * byte 0   format byte: 0xB2 (high nibble 0xB marks a pack, low nibble is the version, 2)
 * byte 1   compression id: 0 none, 1 zstd, 2 zstd with dictionary (as in an envelope)
 * varint   dictionary id, only for compression 2
 * varint   decoded body length, only for compression 1 and 2
 * ...      body, as is or as one zstd frame
 * body     the codec id of the bare entries (0: none is bare), varint entry count, then per entry:
 *          varint (name length &lt;&lt; 1 | whole), the name (UTF-8), varint length, then either the
 *          payload of an uncompressed envelope of the body's codec (whole = 0: a bare entry) or a
 *          whole envelope (whole = 1)
 * </pre>
 *
 * Varints as in the envelope header (unsigned LEB128, at most 5 bytes). Version 1 (0xB1) is still
 * read: its entries are varint name length, name, varint envelope length, envelope. Stateless and
 * thread-safe.
 *
 * <p>Design: names and envelopes are compressed as one frame, so what attributes share (class names,
 * field names, common strings) is stored once; an entry of the common case (uncompressed, the codec
 * most entries have) is stored without its 3-byte envelope header, which the reader puts back.
 * Decoding is strict: a body larger than the payload limit, more than {@link #MAX_ENTRIES} entries,
 * a frame past the ratio cap, a truncated or trailing byte, a repeated or malformed name, an entry
 * that is not an envelope are all refused before anything is built from them.
 */
final class AttributePack {
  /** The format byte this writes: version 2. */
  static final int FORMAT_BYTE = 0xB2;
  /** The format byte of version 1, still read. */
  static final int FORMAT_BYTE_V1 = 0xB1;
  /** Bytes of a body besides its entries, at most: the codec id and the entry count. */
  static final int BODY_HEADER_BYTES = 6;
  /** Most entries one pack may hold (the store packs only small attributes of one session). */
  static final int MAX_ENTRIES = 10_000;
  /** The header of an uncompressed envelope, which a bare entry leaves out. */
  private static final int BARE_HEADER = 3;

  private AttributePack() {}

  /** Writes a pack of {@code envelopes} (name to envelope), compressed as {@code compression} says. */
  static byte[] write(Map<String, byte[]> envelopes, Compression compression, int maxBodyBytes) {
    ByteArrayOutputStream body = new ByteArrayOutputStream(64 + 16 * envelopes.size());
    int codec = 0;
    for (byte[] envelope : envelopes.values()) {
      if (bare(envelope)) {
        codec = envelope[1] & 0xFF;
        break;
      }
    }
    body.write(codec);
    writeVarint(body, envelopes.size());
    for (Map.Entry<String, byte[]> entry : envelopes.entrySet()) {
      byte[] name = utf8(entry.getKey());
      byte[] envelope = entry.getValue();
      boolean whole = !bare(envelope) || (envelope[1] & 0xFF) != codec;
      writeVarint(body, (name.length << 1) | (whole ? 1 : 0));
      body.write(name, 0, name.length);
      int skip = whole ? 0 : BARE_HEADER;
      writeVarint(body, envelope.length - skip);
      body.write(envelope, skip, envelope.length - skip);
    }
    byte[] raw = body.toByteArray();
    if (raw.length > maxBodyBytes) {
      // What every reader refuses: the caller keeps its entries within the limit (entryBytes).
      throw new ValueTooLargeException("the attribute pack", raw.length, maxBodyBytes);
    }
    if (compression.enabled()) {
      ZstdDictionary dictionary = compression.dictionary();
      byte[] frame = ZstdCompressor.compress(raw, 0, raw.length, compression.level(), dictionary);
      ByteArrayOutputStream pack = new ByteArrayOutputStream(frame.length + 12);
      pack.write(FORMAT_BYTE);
      pack.write(dictionary == null ? 1 : 2);
      if (dictionary != null) {
        writeVarint(pack, dictionary.id());
      }
      writeVarint(pack, raw.length);
      pack.write(frame, 0, frame.length);
      if (pack.size() < raw.length + 2 && ZstdCompressor.withinRatio(raw.length, frame.length)) {
        return pack.toByteArray();
      }
    }
    byte[] pack = new byte[raw.length + 2];
    pack[0] = (byte) FORMAT_BYTE;
    System.arraycopy(raw, 0, pack, 2, raw.length);
    return pack;
  }

  /**
   * Reads a pack: name to envelope, in written order.
   *
   * @param maxBodyBytes larger declared or stored bodies are refused
   * @param dictionaries the dictionary of an id, or null when this reader lacks it
   * @throws CorruptDataException if the bytes are not a valid pack
   * @throws IncompatibleDataException if a later version of the format wrote it, or its body is
   *     over {@code maxBodyBytes}
   * @throws UnknownDictionaryException if it was compressed with a dictionary this reader lacks
   * @throws DecodeLimitException if its frame declares more than the ratio cap allows
   */
  static Map<String, byte[]> read(byte[] pack, int maxBodyBytes,
      IntFunction<@Nullable ZstdDictionary> dictionaries) {
    if (pack.length < 2) {
      throw new CorruptDataException("pack of " + pack.length + " bytes is shorter than its header");
    }
    int format = pack[0] & 0xFF;
    if ((format & 0xF0) != 0xB0 || format == 0xB0) {
      throw new CorruptDataException(String.format("pack starts with 0x%02X, expected 0x%02X",
          format, FORMAT_BYTE));
    }
    if (format > FORMAT_BYTE) {
      throw new IncompatibleDataException(null, "the attribute pack is of format version "
          + (format & 0x0F) + ", this node reads versions 1 and 2 (written by a newer lazysession)",
          null);
    }
    boolean v1 = format == FORMAT_BYTE_V1;
    int compression = pack[1] & 0xFF;
    if (compression == 0) {
      checkBody(pack.length - 2, maxBodyBytes);
      return v1 ? bodyV1(pack, 2, pack.length) : body(pack, 2, pack.length);
    }
    if (compression != 1 && compression != 2) {
      throw new CorruptDataException("pack names unknown compression id " + compression);
    }
    Cursor header = new Cursor(pack, 2, pack.length);
    ZstdDictionary dictionary = null;
    if (compression == 2) {
      int id = header.varint();
      if (id == 0) {
        throw new CorruptDataException("pack names zstd dictionary id 0");
      }
      dictionary = dictionaries.apply(id);
      if (dictionary == null) {
        throw new UnknownDictionaryException(id);
      }
    }
    int decoded = header.varint();
    checkBody(decoded, maxBodyBytes);
    byte[] body = ZstdCompressor.decompress(pack, header.position, pack.length - header.position,
        decoded, dictionary);
    return v1 ? bodyV1(body, 0, body.length) : body(body, 0, body.length);
  }

  private static void checkBody(long length, int maxBodyBytes) {
    if (length < 1) {
      throw new CorruptDataException("pack body is empty");
    }
    if (length > maxBodyBytes) {
      throw new IncompatibleDataException(null, "the attribute pack is " + length + " bytes, more "
          + "than the maximum of " + maxBodyBytes + " bytes set by "
          + ValueTooLargeException.PROPERTY, null);
    }
  }

  private static Map<String, byte[]> body(byte[] bytes, int from, int to) {
    Cursor in = new Cursor(bytes, from, to);
    int codec = in.octet();
    int count = in.varint();
    // Each entry takes at least 2 bytes (its two lengths).
    Map<String, byte[]> entries = new LinkedHashMap<>(capacity(count, to - in.position, 2));
    for (int i = 0; i < count; i++) {
      int nameAndKind = in.varint();
      String name = in.name(nameAndKind >>> 1);
      byte[] envelope;
      if ((nameAndKind & 1) == 1) {
        envelope = envelope(in.bytes(in.varint()), i);
      } else {
        if (codec == 0) {
          throw new CorruptDataException("pack entry " + i + " is bare in a body without a codec");
        }
        envelope = in.bare(in.varint(), codec);
      }
      if (entries.put(name, envelope) != null) {
        throw new CorruptDataException("pack holds the name of entry " + i + " twice");
      }
    }
    return finish(entries, in, to);
  }

  private static Map<String, byte[]> bodyV1(byte[] bytes, int from, int to) {
    Cursor in = new Cursor(bytes, from, to);
    int count = in.varint();
    // Each entry takes at least 5 bytes (two lengths and a 3-byte envelope header).
    Map<String, byte[]> entries = new LinkedHashMap<>(capacity(count, to - in.position, 5));
    for (int i = 0; i < count; i++) {
      String name = in.name(in.varint());
      byte[] envelope = envelope(in.bytes(in.varint()), i);
      if (entries.put(name, envelope) != null) {
        throw new CorruptDataException("pack holds the name of entry " + i + " twice");
      }
    }
    return finish(entries, in, to);
  }

  private static int capacity(int count, int bytesLeft, int minEntryBytes) {
    if (count > MAX_ENTRIES || count > bytesLeft / minEntryBytes) {
      throw new DecodeLimitException("pack declares " + count + " entries, more than its "
          + bytesLeft + " bytes or the limit of " + MAX_ENTRIES + " hold");
    }
    return (int) (count / 0.75f) + 1;
  }

  private static byte[] envelope(byte[] bytes, int entry) {
    if (bytes.length < 3 || (bytes[0] & 0xF0) != 0xA0) {
      throw new CorruptDataException("pack entry " + entry + " is not an envelope");
    }
    return bytes;
  }

  private static Map<String, byte[]> finish(Map<String, byte[]> entries, Cursor in, int to) {
    if (in.position != to) {
      throw new CorruptDataException("pack has " + (to - in.position) + " trailing bytes");
    }
    return entries;
  }

  /** The UTF-8 bytes of a name; one that is not a valid string (a lone surrogate) is refused. */
  private static byte[] utf8(String name) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < name.length()
          && Character.isLowSurrogate(name.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException("attribute name with a lone surrogate at index " + i
            + " cannot be packed: it has no UTF-8 form");
      }
    }
    return name.getBytes(UTF_8);
  }

  /** Whether an envelope can be stored bare: uncompressed, so its header is 3 fixed bytes. */
  private static boolean bare(byte[] envelope) {
    return envelope.length >= BARE_HEADER && (envelope[0] & 0xFF) == EnvelopeHeader.FORMAT_BYTE
        && envelope[2] == EnvelopeCompression.NONE.id() && envelope[1] != 0;
  }

  /**
   * Bytes the entry of {@code name} and {@code envelope} takes in a pack's body at most (as a whole
   * envelope; a bare one takes 3 bytes less).
   */
  static int entryBytes(String name, byte[] envelope) {
    int nameBytes = name.getBytes(UTF_8).length;
    return varintBytes((nameBytes << 1) | 1) + nameBytes + varintBytes(envelope.length)
        + envelope.length;
  }

  private static int varintBytes(int value) {
    int bytes = 1;
    for (long v = value & 0xFFFFFFFFL; v >= 0x80; v >>>= 7) {
      bytes++;
    }
    return bytes;
  }

  private static void writeVarint(ByteArrayOutputStream out, int value) {
    long v = value & 0xFFFFFFFFL;
    while (v >= 0x80) {
      out.write((int) (v | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  /** Reads varints, names and byte runs of a range, refusing anything past its end. */
  private static final class Cursor {
    private final byte[] bytes;
    private final int end;
    private int position;

    Cursor(byte[] bytes, int position, int end) {
      this.bytes = bytes;
      this.position = position;
      this.end = end;
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
      byte[] envelope = new byte[BARE_HEADER + length];
      envelope[0] = (byte) EnvelopeHeader.FORMAT_BYTE;
      envelope[1] = (byte) codec;
      envelope[2] = (byte) EnvelopeCompression.NONE.id();
      System.arraycopy(bytes, position, envelope, BARE_HEADER, length);
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
      byte[] copy = java.util.Arrays.copyOfRange(bytes, position, position + length);
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
}
