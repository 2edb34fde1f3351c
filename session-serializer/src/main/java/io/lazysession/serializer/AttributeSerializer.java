package io.lazysession.serializer;

import io.lazysession.serializer.codec.Codec;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.codec.Codecs;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdCompressor;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lazysession.serializer.envelope.EnvelopeCompression;
import io.lazysession.serializer.envelope.EnvelopeHeader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Encodes attribute values into envelopes and decodes envelopes of any codec and compression.
 *
 * <p>What is written is configured (codec, compression, level, threshold, dictionary); what is read is
 * whatever the envelope header says, provided the dictionary it names is known. Immutable and
 * thread-safe: create one per application and share it.
 *
 * <pre>{@code
 * AttributeSerializer serializer = AttributeSerializer.builder()
 *     .codec(CodecKind.KRYO)
 *     .compression(Compression.zstd(3, 256))
 *     .allowList(ClassAllowList.builder().allowPackage("com.example.shop").build())
 *     .build();
 * byte[] envelope = serializer.serialize(cart);
 * LazyValue lazy = serializer.lazy(envelope);
 * }</pre>
 */
public final class AttributeSerializer {
  /** Largest decoded payload accepted or written by default: 16 MiB. */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = Codecs.DEFAULT_MAX_PAYLOAD_BYTES;
  /**
   * Codec payloads up to this many bytes are packed by default: written as uncompressed envelopes
   * that the store keeps together in one {@linkplain #pack pack}, compressed as a unit.
   */
  public static final int DEFAULT_PACK_MAX_BYTES = 1024;
  /** Most attributes one {@linkplain #pack pack} may hold: {@link #unpack} refuses more. */
  public static final int MAX_PACK_ENTRIES = AttributePack.MAX_ENTRIES;
  /** Bytes of a pack's body besides its entries, at most (see {@link #packEntryBytes}). */
  public static final int PACK_BODY_HEADER_BYTES = AttributePack.BODY_HEADER_BYTES;

  private final CodecKind codecKind;
  private final Compression compression;
  private final ClassAllowList allowList;
  private final List<ZstdDictionary> dictionaries;
  private final ClassLoader classLoader;
  private final int maxPayloadBytes;
  private final int packMaxBytes;
  private final boolean requireSerializable;
  private final Map<CodecKind, Codec> codecs;
  private final Codec writer;
  private final @Nullable IntFunction<@Nullable ZstdDictionary> dictionarySource;
  private final DictionaryLookup dictionariesById;
  private final CodecFallback fallback; // shared with the serializers derived by toBuilder()
  final ImmutableTypes immutableTypes; // what lazy values ask whether a value read can have changed

  private AttributeSerializer(Builder builder) {
    this.codecKind = builder.codec;
    this.compression = builder.compression;
    this.allowList = builder.allowList;
    this.classLoader = builder.classLoader != null ? builder.classLoader : defaultClassLoader();
    this.maxPayloadBytes = builder.maxPayloadBytes;
    this.packMaxBytes = builder.packMaxBytes;
    this.requireSerializable = builder.requireSerializable;
    this.immutableTypes = builder.immutableTypes;
    this.codecs = new EnumMap<>(CodecKind.class);
    for (CodecKind kind : CodecKind.values()) {
      codecs.put(kind, Codecs.of(kind, allowList, classLoader, maxPayloadBytes, requireSerializable));
    }
    this.writer = codecs.get(codecKind);
    Map<Integer, ZstdDictionary> byId =
        DictionaryIndex.byId(builder.dictionaries, compression.dictionary());
    this.dictionarySource = builder.dictionarySource;
    this.fallback = builder.fallback != null ? builder.fallback : new CodecFallback();
    this.dictionariesById = new DictionaryLookup(byId, dictionarySource);
    this.dictionaries = List.copyOf(byId.values());
    // Packs are compressed at every save that changes a small attribute: not on an event loop first.
    ZstdCompressor.loadNative();
  }

  private static ClassLoader defaultClassLoader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : AttributeSerializer.class.getClassLoader();
  }

  /** Builder with defaults: Kryo, zstd level 3 above 256 bytes, JDK types only, no dictionary. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this serializer's settings, to derive a variant (sharing its fallback count). */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.codec = codecKind;
    b.compression = compression;
    b.allowList = allowList;
    b.dictionaries = dictionaries;
    b.dictionarySource = dictionarySource;
    b.fallback = fallback;
    b.classLoader = classLoader;
    b.maxPayloadBytes = maxPayloadBytes;
    b.packMaxBytes = packMaxBytes;
    b.requireSerializable = requireSerializable;
    b.immutableTypes = immutableTypes;
    return b;
  }

  /**
   * Encodes a value into an envelope, with the configured codec or, for a value only Java
   * serialization can encode, the JDK codec ({@link CodecFallback}). Never returns null.
   *
   * @throws SerializationException when neither codec can encode it, naming why
   */
  public byte[] serialize(Object value) {
    CodecFallback.Encoded encoded = encode(value);
    return envelope(encoded.codec(), encoded.payload());
  }

  CodecFallback.Encoded encode(Object value) { // what serialize and lazy values store
    return fallback.encode(Objects.requireNonNull(value, "value must not be null"), writer,
        codecs.get(CodecKind.JDK));
  }

  /** Values stored with the JDK codec as Kryo could not encode them ({@link #serialize}), variants included. */
  public long codecFallbacks() {
    return fallback.count();
  }

  public boolean requireSerializable() { // see the builder
    return requireSerializable;
  }

  /**
   * The configured codec's encoding only, no envelope nor compression: what {@link #envelope(byte[])}
   * wraps; to train dictionaries and to measure. */
  public byte[] encodePayload(Object value) {
    Objects.requireNonNull(value, "value must not be null");
    return writer.encode(value);
  }

  /** Wraps a codec payload written by this serializer's codec into an envelope, compressing it if due. */
  public byte[] envelope(byte[] payload) {
    return envelope(codecKind, payload);
  }

  /** The configured codec's encoding, or null when it is {@code length} bytes of {@code bytes} from {@code offset}. */
  byte @Nullable [] encodePayloadUnlessEqual(Object value, byte[] bytes, int offset, int length) {
    return writer.encodeUnlessEqual(value, bytes, offset, length);
  }

  /** Encodes a value with the codec of this kind, which may not be the configured one. */
  byte[] encodePayload(CodecKind kind, Object value) {
    return codecs.get(kind).encode(value);
  }

  /** Wraps a payload written by the codec of this kind, compressing it as configured. */
  byte[] envelope(CodecKind codecKind, byte[] payload) {
    // A payload that will be packed is compressed with the pack, not on its own.
    if (compression.enabled() && payload.length >= compression.minBytes()
        && payload.length > packMaxBytes) {
      ZstdDictionary dictionary = compression.dictionary();
      EnvelopeHeader header = EnvelopeHeader.zstd(codecKind,
          dictionary == null ? 0 : dictionary.id(), payload.length);
      // Compressed only if shorter than the raw envelope (3 header bytes + payload); the frame is
      // written after room for the header, so the envelope is built without another copy.
      int maxFrame = 3 + payload.length - header.length() - 1;
      byte[] envelope = ZstdCompressor.compress(payload, 0, payload.length, compression.level(),
          dictionary, header.length(), maxFrame);
      if (envelope != null
          && ZstdCompressor.withinRatio(payload.length, envelope.length - header.length())) {
        header.writeTo(envelope);
        return envelope;
      }
    }
    return EnvelopeHeader.raw(codecKind, payload.length).wrap(payload, payload.length);
  }

  /**
   * Decodes an envelope written by any codec and compression.
   *
   * @throws CorruptDataException if the bytes are not a valid envelope
   * @throws ClassNotAllowedException if the payload names a class outside the allow-list
   * @throws UnknownDictionaryException if the dictionary it was compressed with is not configured
   */
  public Object deserialize(byte[] envelope) {
    EnvelopeHeader header = EnvelopeHeader.read(envelope, maxPayloadBytes);
    Codec codec = codecs.get(header.codec());
    if (header.compression() == EnvelopeCompression.NONE) {
      return codec.decode(envelope, header.length(), envelope.length - header.length());
    }
    // The payload is not kept: decode it from this thread's reused buffer.
    return ZstdCompressor.decompress(envelope, header.length(), envelope.length - header.length(),
        header.decodedLength(), dictionariesById.of(header), codec::decode);
  }

  /**
   * Decodes an envelope and keeps the codec payload it decoded, so that a lazy value can later tell
   * whether its value changed by comparing codec bytes, without compressing anything.
   */
  Inflated inflate(byte[] envelope) {
    EnvelopeHeader header = EnvelopeHeader.read(envelope, maxPayloadBytes);
    Codec codec = codecs.get(header.codec());
    if (header.compression() == EnvelopeCompression.NONE) {
      int length = envelope.length - header.length();
      return new Inflated(codec.decode(envelope, header.length(), length), header.codec(), envelope,
          header.length(), length);
    }
    byte[] payload = decompress(envelope, header);
    return new Inflated(codec.decode(payload, 0, payload.length), header.codec(), payload, 0,
        payload.length);
  }

  /** Decodes a codec payload written by the codec of this kind. */
  Object decodePayload(CodecKind kind, byte[] bytes, int offset, int length) {
    return codecs.get(kind).decode(bytes, offset, length);
  }

  /** The header of an envelope: which codec, compression and dictionary wrote it. */
  public EnvelopeHeader header(byte[] envelope) {
    return EnvelopeHeader.read(envelope, maxPayloadBytes);
  }

  /** The codec payload inside an envelope, decompressed. */
  public byte[] payload(byte[] envelope) {
    EnvelopeHeader header = EnvelopeHeader.read(envelope, maxPayloadBytes);
    if (header.compression() == EnvelopeCompression.NONE) {
      return java.util.Arrays.copyOfRange(envelope, header.length(), envelope.length);
    }
    return decompress(envelope, header);
  }

  private byte[] decompress(byte[] envelope, EnvelopeHeader header) {
    return ZstdCompressor.decompress(envelope, header.length(), envelope.length - header.length(),
        header.decodedLength(), dictionariesById.of(header));
  }

  /**
   * Whether the store keeps this envelope in the pack rather than in a field of its own: packing is
   * on, and the envelope is uncompressed with a payload of at most {@link #packMaxBytes()} bytes.
   */
  public boolean packable(byte[] envelope) {
    return packMaxBytes > 0 && envelope.length >= 3 && envelope.length - 3 <= packMaxBytes
        && (envelope[0] & 0xFF) == EnvelopeHeader.FORMAT_BYTE
        && envelope[2] == EnvelopeCompression.NONE.id();
  }

  /**
   * Writes the envelopes of several attributes (name to envelope) as one pack, compressed as one
   * unit with this serializer's compression (and dictionary); format in docs/envelope-format.md.
   *
   * @throws ValueTooLargeException if the body would be larger than {@link #maxPayloadBytes()},
   *     which no reader accepts (keep the entries within it with {@link #packEntryBytes})
   * @throws IllegalArgumentException if a name holds a lone surrogate (it has no UTF-8 form)
   */
  public byte[] pack(Map<String, byte[]> envelopes) {
    return AttributePack.write(envelopes, compression, maxPayloadBytes);
  }

  /**
   * Reads a pack written by {@link #pack}: name to envelope, in written order. The envelopes are not
   * decoded.
   *
   * @throws CorruptDataException if the bytes are not a valid pack
   * @throws IncompatibleDataException if a later version of the format wrote it, or it is larger
   *     than {@link #maxPayloadBytes()}
   * @throws UnknownDictionaryException if it was compressed with a dictionary this node lacks
   * @throws io.lazysession.serializer.codec.DecodeLimitException past the decompression ratio cap
   */
  public Map<String, byte[]> unpack(byte[] pack) {
    return AttributePack.read(pack, maxPayloadBytes, dictionariesById::get);
  }

  /**
   * What this serializer compresses for a session holding {@code attributes}: the uncompressed body of
   * its pack and the payload of each larger attribute; train a dictionary on these, from many real
   * sessions ({@link io.lazysession.serializer.compress.ZstdDictionary#train}), not on single payloads.
   */
  public List<byte[]> dictionarySamples(Map<String, ?> attributes) {
    return DictionarySamples.of(this, attributes);
  }

  /**
   * Bytes the attribute {@code name} with {@code envelope} adds to the body of a {@linkplain #pack
   * pack} (before compression), at most; {@link #unpack} refuses a body over {@link
   * #maxPayloadBytes()}, which holds the entries and {@link #PACK_BODY_HEADER_BYTES}, so a writer
   * keeps the sum of its entries within that.
   */
  public static int packEntryBytes(String name, byte[] envelope) {
    return AttributePack.entryBytes(name, envelope);
  }

  /** Largest codec payload that is packed; 0 when every attribute is stored on its own. */
  public int packMaxBytes() {
    return packMaxBytes;
  }

  /** A value that stays as these envelope bytes until first read. */
  public LazyValue lazy(byte[] envelope) {
    return EnvelopeLazyValue.ofBytes(this, envelope);
  }

  /** A value set by the application; its bytes are encoded when first asked for. */
  public LazyValue ofValue(Object value) {
    return EnvelopeLazyValue.ofValue(this, Objects.requireNonNull(value, "value must not be null"));
  }

  public CodecKind codec() {
    return codecKind;
  }

  public Compression compression() {
    return compression;
  }

  public ClassAllowList allowList() {
    return allowList;
  }

  /** Every dictionary this serializer was built with, the writing one included (a source gives more). */
  public List<ZstdDictionary> dictionaries() {
    return dictionaries;
  }

  public int maxPayloadBytes() {
    return maxPayloadBytes;
  }

  @Override
  public String toString() {
    return "AttributeSerializer{codec=" + codecKind.propertyValue() + ", compression=" + compression
        + ", allowList=" + allowList + "}";
  }

  /** Copy-on-write builder; see {@link #builder()}. Not thread-safe. */
  public static final class Builder {
    private CodecKind codec = CodecKind.KRYO;
    private Compression compression = Compression.zstd();
    private ClassAllowList allowList = ClassAllowList.jdkOnly();
    private List<ZstdDictionary> dictionaries = List.of();
    private @Nullable IntFunction<@Nullable ZstdDictionary> dictionarySource;
    private @Nullable CodecFallback fallback;
    private @Nullable ClassLoader classLoader;
    private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    private int packMaxBytes = DEFAULT_PACK_MAX_BYTES;
    private boolean requireSerializable = true;
    private ImmutableTypes immutableTypes = ImmutableTypes.NONE_NAMED;

    private Builder() {}

    /**
     * Store only what Java serialization can ({@code lazysession.require-serializable}, default
     * true): else a {@link NotSerializableException}, as with Spring Session Data Redis and a
     * distributable Servlet container. false lets Kryo store other values too.
     */
    public Builder requireSerializable(boolean requireSerializable) {
      this.requireSerializable = requireSerializable;
      return this;
    }

    /** Classes (by name) as if marked {@link Immutable}: the setting lazysession.immutable-types. */
    public Builder immutableTypes(Collection<String> classNames) {
      this.immutableTypes = ImmutableTypes.of(classNames);
      return this;
    }

    public Builder codec(CodecKind codec) {
      this.codec = Objects.requireNonNull(codec, "codec must not be null");
      return this;
    }

    public Builder compression(Compression compression) {
      this.compression = Objects.requireNonNull(compression, "compression must not be null");
      return this;
    }

    public Builder allowList(ClassAllowList allowList) {
      this.allowList = Objects.requireNonNull(allowList, "allowList must not be null");
      return this;
    }

    /** Dictionaries this serializer can read, one per id; the one in {@link Compression} also writes. */
    public Builder dictionaries(List<ZstdDictionary> readable) {
      List<ZstdDictionary> copy = new ArrayList<>();
      for (ZstdDictionary d : Objects.requireNonNull(readable, "dictionaries must not be null")) {
        copy.add(Objects.requireNonNull(d, "dictionaries must not contain null"));
      }
      this.dictionaries = List.copyOf(copy);
      return this;
    }

    /**
     * Where to find a dictionary an envelope or pack names that this serializer was not built with:
     * asked on every such read, so it must be fast once it holds the dictionary; may answer null.
     * For a store that shares dictionaries trained at run time. Thread-safe sources only.
     */
    public Builder dictionarySource(IntFunction<@Nullable ZstdDictionary> source) {
      this.dictionarySource = Objects.requireNonNull(source, "source must not be null");
      return this;
    }

    /** Class loader used to resolve allowed classes (defaults to the thread context loader). */
    public Builder classLoader(ClassLoader classLoader) {
      this.classLoader = Objects.requireNonNull(classLoader, "classLoader must not be null");
      return this;
    }

    /**
     * Largest codec payload written or read (decompressed), the setting
     * {@code lazysession.max-value-bytes}; larger values fail to encode with a
     * {@link ValueTooLargeException}, and envelopes declaring more are refused before anything is
     * allocated. Default 16 MiB.
     */
    public Builder maxPayloadBytes(int maxPayloadBytes) {
      if (maxPayloadBytes < 1024) {
        throw new IllegalArgumentException("maxPayloadBytes must be >= 1024, was " + maxPayloadBytes);
      }
      this.maxPayloadBytes = maxPayloadBytes;
      return this;
    }

    /**
     * Codec payloads up to this many bytes are packed (the setting
     * {@code lazysession.pack.max-bytes}): written as uncompressed envelopes, which the store keeps
     * together in one hash field, compressed as one unit, so that small attributes share what they
     * have in common and do not each cost a hash field. 0 stores every attribute in its own field.
     * Default {@value #DEFAULT_PACK_MAX_BYTES}.
     */
    public Builder packMaxBytes(int packMaxBytes) {
      if (packMaxBytes < 0 || packMaxBytes > 65536) {
        throw new IllegalArgumentException("packMaxBytes must be between 0 and 65536, was "
            + packMaxBytes);
      }
      this.packMaxBytes = packMaxBytes;
      return this;
    }

    /** @throws IllegalArgumentException if two different dictionaries (the writing one too) share an id */
    public AttributeSerializer build() {
      return new AttributeSerializer(this);
    }
  }
}
