package io.lazysession.serializer;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.ZstdDictionary;
import io.lazysession.serializer.reference.ReferenceSession;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Dictionaries trained once per test JVM from reference sessions. */
final class TestDictionaries {
  private static ZstdDictionary reference;

  private TestDictionaries() {}

  /** A dictionary trained on Kryo and JDK payloads of varied reference sessions. */
  static synchronized ZstdDictionary reference() {
    if (reference == null) {
      List<byte[]> samples = new ArrayList<>();
      for (CodecKind codec : CodecKind.values()) {
        AttributeSerializer serializer = AttributeSerializer.builder().codec(codec)
            .allowList(CodecMatrixTest.ALLOW).build();
        for (Map<String, Object> session : List.of(ReferenceSession.small(), ReferenceSession.create())) {
          for (Object value : session.values()) {
            samples.add(serializer.encodePayload(value));
          }
        }
      }
      reference = ZstdDictionary.train(samples, 4096);
    }
    return reference;
  }
}
