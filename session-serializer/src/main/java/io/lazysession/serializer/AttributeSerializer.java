package io.lazysession.serializer;

import io.lazysession.serializer.codec.ClassAllowList;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lazysession.serializer.lazy.LazyValue;
import java.util.List;

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
  /** Builder with defaults: Kryo, zstd level 3 above 256 bytes, JDK types only, no dictionary. */
  public static Builder builder() {
    throw new UnsupportedOperationException("TODO");
  }

  /** Encodes a value into an envelope. Never returns null. */
  public byte[] serialize(Object value) {
    throw new UnsupportedOperationException("TODO");
  }

  /**
   * Decodes an envelope written by any codec and compression.
   *
   * @throws CorruptDataException if the bytes are not a valid envelope
   * @throws ClassNotAllowedException if the payload names a class outside the allow-list
   * @throws UnknownDictionaryException if the dictionary it was compressed with is not configured
   */
  public Object deserialize(byte[] envelope) {
    throw new UnsupportedOperationException("TODO");
  }

  /** A value that stays as these envelope bytes until first read. */
  public LazyValue lazy(byte[] envelope) {
    throw new UnsupportedOperationException("TODO");
  }

  /** A value set by the application; its bytes are encoded when first asked for. */
  public LazyValue ofValue(Object value) {
    throw new UnsupportedOperationException("TODO");
  }

  public CodecKind codec() {
    throw new UnsupportedOperationException("TODO");
  }

  public Compression compression() {
    throw new UnsupportedOperationException("TODO");
  }

  public ClassAllowList allowList() {
    throw new UnsupportedOperationException("TODO");
  }

  /** Copy-on-write builder; see {@link #builder()}. Not thread-safe. */
  public static final class Builder {
    public Builder codec(CodecKind codec) {
      throw new UnsupportedOperationException("TODO");
    }

    public Builder compression(Compression compression) {
      throw new UnsupportedOperationException("TODO");
    }

    public Builder allowList(ClassAllowList allowList) {
      throw new UnsupportedOperationException("TODO");
    }

    /** Dictionaries this serializer can read; the one in {@link Compression} is also used to write. */
    public Builder dictionaries(List<ZstdDictionary> readable) {
      throw new UnsupportedOperationException("TODO");
    }

    /** Class loader used to resolve allowed classes (defaults to the thread context loader). */
    public Builder classLoader(ClassLoader classLoader) {
      throw new UnsupportedOperationException("TODO");
    }

    public AttributeSerializer build() {
      throw new UnsupportedOperationException("TODO");
    }
  }
}
