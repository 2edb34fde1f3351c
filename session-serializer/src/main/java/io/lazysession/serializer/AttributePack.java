package io.lazysession.serializer;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lazysession.serializer.codec.DecodeLimitException;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdCompressor;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lazysession.serializer.envelope.EnvelopeCompression;
import io.lazysession.serializer.envelope.EnvelopeHeader;
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
  static final int BARE_HEADER = 3;
  /** Largest body written in a thread's reused buffer; larger ones get an array of their own. */
  private static final int RETAINED_BODY_BYTES = 64 * 1024;
  /** Per thread: the body of a pack being written, the input of its compression. */
  private static final ThreadLocal<byte[]> BODY_BUFFER = ThreadLocal.withInitial(() -> new byte[0]);

  private AttributePack() {}

  /**
   * Writes a pack of {@code envelopes} (name to envelope), compressed as {@code compression} says.
   * The body is written once, after room for the uncompressed header: into this thread's buffer
   * when it is to be compressed (the frame is then compressed after room for its header, into the
   * array returned), else into an array of its exact length, which is the pack. No buffer grows
   * while it is written.
   */
  static byte[] write(Map<String, byte[]> envelopes, Compression compression, int maxBodyBytes) {
    int codec = 0;
    for (byte[] envelope : envelopes.values()) {
      if (uncompressed(envelope)) {
        codec = envelope[1] & 0xFF;
        break;
      }
    }
    int bodyLength = 1 + varintBytes(envelopes.size());
    for (Map.Entry<String, byte[]> entry : envelopes.entrySet()) {
      requireUtf8(entry.getKey());
      bodyLength = Math.addExact(bodyLength, entryLength(entry.getKey(), entry.getValue(), codec));
    }
    if (bodyLength > maxBodyBytes) {
      // What every reader refuses: the caller keeps its entries within the limit (entryBytes).
      throw new ValueTooLargeException("the attribute pack", bodyLength, maxBodyBytes);
    }
    int packLength = Math.addExact(2, bodyLength);
    // Compressed (the usual case), the body is only zstd's input: written in this thread's buffer.
    boolean buffered = compression.enabled() && packLength <= RETAINED_BODY_BYTES;
    byte[] raw = buffered ? bodyBuffer(packLength) : new byte[packLength];
    raw[0] = (byte) FORMAT_BYTE;
    raw[1] = 0;
    raw[2] = (byte) codec;
    int position = writeVarint(raw, 3, envelopes.size());
    for (Map.Entry<String, byte[]> entry : envelopes.entrySet()) {
      String name = entry.getKey();
      byte[] envelope = entry.getValue();
      boolean whole = !bare(envelope, codec);
      position = writeVarint(raw, position, (utf8Length(name) << 1) | (whole ? 1 : 0));
      position = writeName(raw, position, name);
      int skip = whole ? 0 : BARE_HEADER;
      position = writeVarint(raw, position, envelope.length - skip);
      System.arraycopy(envelope, skip, raw, position, envelope.length - skip);
      position += envelope.length - skip;
    }
    if (compression.enabled()) {
      ZstdDictionary dictionary = compression.dictionary();
      int header = 2 + (dictionary == null ? 0 : varintBytes(dictionary.id()))
          + varintBytes(bodyLength);
      // Kept only when shorter than the uncompressed pack (2 header bytes and the body).
      byte[] pack = ZstdCompressor.compress(raw, 2, bodyLength, compression.level(), dictionary,
          header, bodyLength + 1 - header);
      if (pack != null && ZstdCompressor.withinRatio(bodyLength, pack.length - header)) {
        pack[0] = (byte) FORMAT_BYTE;
        pack[1] = (byte) (dictionary == null ? 1 : 2);
        int at = dictionary == null ? 2 : writeVarint(pack, 2, dictionary.id());
        writeVarint(pack, at, bodyLength);
        return pack;
      }
    }
    return buffered ? java.util.Arrays.copyOf(raw, packLength) : raw;
  }

  /** This thread's body buffer, at least {@code length} long ({@code <= RETAINED_BODY_BYTES}). */
  private static byte[] bodyBuffer(int length) {
    byte[] buffer = BODY_BUFFER.get();
    if (buffer.length < length) {
      buffer = new byte[Math.min(RETAINED_BODY_BYTES, Math.max(length, 2 * buffer.length))];
      BODY_BUFFER.set(buffer);
    }
    return buffer;
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
      throw new IncompatibleDataException(null, "the attribute pack names compression id "
          + compression + ", which this node does not have (written by a newer lazysession)", null);
    }
    PackCursor header = new PackCursor(pack, 2, pack.length);
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
    // The body is only read here (names and envelopes are copied out): decoded in this thread's
    // scratch buffer, not in an array of its own.
    return ZstdCompressor.decompress(pack, header.position(), pack.length - header.position(),
        decoded, dictionary, (body, offset, length) -> v1 ? bodyV1(body, offset, offset + length)
            : body(body, offset, offset + length));
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
    PackCursor in = new PackCursor(bytes, from, to);
    int codec = in.octet();
    int count = in.varint();
    // Each entry takes at least 2 bytes (its two lengths).
    Map<String, byte[]> entries = new LinkedHashMap<>(capacity(count, to - in.position(), 2));
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
    PackCursor in = new PackCursor(bytes, from, to);
    int count = in.varint();
    // Each entry takes at least 5 bytes (two lengths and a 3-byte envelope header).
    Map<String, byte[]> entries = new LinkedHashMap<>(capacity(count, to - in.position(), 5));
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

  private static Map<String, byte[]> finish(Map<String, byte[]> entries, PackCursor in, int to) {
    if (in.position() != to) {
      throw new CorruptDataException("pack has " + (to - in.position()) + " trailing bytes");
    }
    return entries;
  }

  /**
   * Bytes the entry of {@code name} and {@code envelope} takes in a pack's body at most (as a whole
   * envelope; a bare one takes 3 bytes less).
   */
  static int entryBytes(String name, byte[] envelope) {
    return entryLength(name, envelope, -1);
  }

  /** Bytes the entry takes in a body whose bare entries are of {@code codec}. */
  private static int entryLength(String name, byte[] envelope, int codec) {
    int nameBytes = utf8Length(name);
    int length = bare(envelope, codec) ? envelope.length - BARE_HEADER : envelope.length;
    return varintBytes((nameBytes << 1) | 1) + nameBytes + varintBytes(length) + length;
  }

  /** Refuses a name that is not a valid string (a lone surrogate): it has no UTF-8 form. */
  private static void requireUtf8(String name) {
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
  }

  /**
   * Whether an envelope is stored bare in a body of {@code codec}: uncompressed (so its header is 3
   * fixed bytes) and of that codec.
   */
  private static boolean bare(byte[] envelope, int codec) {
    return uncompressed(envelope) && (envelope[1] & 0xFF) == codec;
  }

  /** Whether an envelope is uncompressed, so that its header is 3 fixed bytes with a codec id. */
  private static boolean uncompressed(byte[] envelope) {
    return envelope.length >= BARE_HEADER && (envelope[0] & 0xFF) == EnvelopeHeader.FORMAT_BYTE
        && envelope[2] == EnvelopeCompression.NONE.id() && envelope[1] != 0;
  }

  /**
   * The length of {@code name} in UTF-8, as {@code name.getBytes(UTF_8)} would make it (a lone
   * surrogate, which has no UTF-8 form, counts as the one '?' byte that it becomes there).
   */
  static int utf8Length(String name) {
    int length = name.length();
    int bytes = length;
    for (int i = 0; i < length; i++) {
      char c = name.charAt(i);
      if (c >= 0x80) {
        if (c < 0x800) {
          bytes++;
        } else if (Character.isHighSurrogate(c) && i + 1 < length
            && Character.isLowSurrogate(name.charAt(i + 1))) {
          bytes += 2; // the pair: 4 bytes for 2 chars
          i++;
        } else if (Character.isSurrogate(c)) {
          // a lone surrogate: encoded as '?'
        } else {
          bytes += 2;
        }
      }
    }
    return bytes;
  }

  /** Writes {@code name} in UTF-8 at {@code position}; returns the position after it. */
  private static int writeName(byte[] out, int position, String name) {
    int length = name.length();
    for (int i = 0; i < length; i++) {
      char c = name.charAt(i);
      if (c >= 0x80) {
        // Not ASCII: the JDK's encoder (rare; names are nearly always ASCII).
        byte[] encoded = name.substring(i).getBytes(UTF_8);
        System.arraycopy(encoded, 0, out, position, encoded.length);
        return position + encoded.length;
      }
      out[position++] = (byte) c;
    }
    return position;
  }

  private static int varintBytes(int value) {
    long v = value & 0xFFFFFFFFL;
    return v < 1L << 7 ? 1 : v < 1L << 14 ? 2 : v < 1L << 21 ? 3 : v < 1L << 28 ? 4 : 5;
  }

  /** Writes {@code value} as a varint at {@code position}; returns the position after it. */
  private static int writeVarint(byte[] out, int position, int value) {
    long v = value & 0xFFFFFFFFL;
    while (v >= 0x80) {
      out[position++] = (byte) (v | 0x80);
      v >>>= 7;
    }
    out[position++] = (byte) v;
    return position;
  }
}
