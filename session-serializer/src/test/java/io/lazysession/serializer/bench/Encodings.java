package io.lazysession.serializer.bench;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.codec.BenchCodecs;
import io.lazysession.serializer.codec.Codec;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.BuiltInDictionaryTrainer;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lazysession.serializer.reference.ReferenceSession;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The encodings compared by the benchmarks, by name. */
final class Encodings {
  static final ClassAllowList ALLOW = ClassAllowList.builder().allowPackage(ReferenceSession.PACKAGE)
      .allowPackage(UnlikeSession.PACKAGE).build();
  private static ZstdDictionary builtIn;

  /** One encoding: value to stored bytes and back. */
  interface Encoding {
    byte[] encode(Object value);

    Object decode(byte[] stored);
  }

  private Encodings() {}

  /**
   * A dictionary trained on the small and large reference sessions (not on {@link
   * ReferenceSession#create()}, which is what gets measured), Kryo payloads, 16 KiB at most.
   */
  static ZstdDictionary dictionary() {
    AttributeSerializer kryo = AttributeSerializer.builder().allowList(ALLOW).build();
    List<byte[]> samples = new ArrayList<>();
    for (int round = 0; round < 20; round++) {
      for (Map<String, Object> session : List.of(ReferenceSession.small(), ReferenceSession.large())) {
        session.values().forEach(v -> samples.add(kryo.encodePayload(v)));
      }
    }
    return ZstdDictionary.train(samples, 16 * 1024);
  }

  /**
   * The generic candidate dictionary of {@link BuiltInDictionaryTrainer} (trained on a synthetic corpus,
   * not on the reference session); {@code -Dlazysession.builtin.bytes=N} trains one of another size.
   */
  static synchronized ZstdDictionary builtInDictionary() {
    if (builtIn == null) {
      builtIn = ZstdDictionary.of(BuiltInDictionaryTrainer.train(BuiltInDictionaryTrainer.SEED,
          Integer.getInteger("lazysession.builtin.bytes", BuiltInDictionaryTrainer.DICTIONARY_BYTES)));
    }
    return builtIn;
  }

  static Encoding of(String name) {
    if (name.startsWith("kryo+builtin")) {
      int minBytes = Integer.parseInt(name.substring("kryo+builtin".length()));
      AttributeSerializer base = AttributeSerializer.builder().allowList(ALLOW).build();
      return serializer(base.toBuilder().compression(
          Compression.zstd(Compression.DEFAULT_LEVEL, minBytes, builtInDictionary())));
    }
    AttributeSerializer base = AttributeSerializer.builder().allowList(ALLOW).build();
    return switch (name) {
      case "jdk" -> serializer(base.toBuilder().codec(CodecKind.JDK).compression(Compression.none()));
      case "jdk+zstd" -> serializer(base.toBuilder().codec(CodecKind.JDK));
      case "kryo" -> serializer(base.toBuilder().compression(Compression.none()));
      case "kryo+zstd" -> serializer(base.toBuilder());
      case "kryo+zstd+dict" -> serializer(base.toBuilder().compression(
          Compression.zstd(Compression.DEFAULT_LEVEL, Compression.DEFAULT_MIN_BYTES_WITH_DICTIONARY,
              dictionary())));
      case "kryo-plain" -> plain(base.toBuilder().compression(Compression.none()).build());
      case "kryo-plain+zstd" -> plain(base);
      // Plain zstd from a lower threshold: the control for the dictionary encodings above.
      case "kryo+zstd64" -> serializer(base.toBuilder().compression(
          Compression.zstd(Compression.DEFAULT_LEVEL, 64)));
      default -> throw new IllegalArgumentException("unknown encoding " + name);
    };
  }

  private static Encoding serializer(AttributeSerializer.Builder builder) {
    AttributeSerializer serializer = builder.build();
    return new Encoding() {
      @Override
      public byte[] encode(Object value) {
        return serializer.serialize(value);
      }

      @Override
      public Object decode(byte[] stored) {
        return serializer.deserialize(stored);
      }
    };
  }

  /** Plain FieldSerializer payloads in the same envelope and compression. */
  private static Encoding plain(AttributeSerializer envelope) {
    Codec codec = BenchCodecs.plainKryo(ALLOW);
    return new Encoding() {
      @Override
      public byte[] encode(Object value) {
        return envelope.envelope(codec.encode(value));
      }

      @Override
      public Object decode(byte[] stored) {
        byte[] payload = envelope.payload(stored);
        return codec.decode(payload, 0, payload.length);
      }
    };
  }
}
