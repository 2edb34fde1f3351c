package io.lazysession.serializer;

import io.lazysession.serializer.codec.Codec;
import io.lazysession.serializer.codec.CodecKind;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Encoding with the configured codec, and with the JDK codec when Kryo cannot encode a value that
 * Java serialization can: an exception without a public {@code (String)} constructor (Spring
 * Security's {@code OAuth2AuthenticationException}), a class whose {@code writeReplace} returns an
 * object of another class (a serialization proxy: {@code JavaSerialSemantics}). The envelope
 * records the codec, so every node reads such a value, and
 * no request fails because of the codec for what Spring Session Data Redis would have stored.
 *
 * <p>Not a fallback: a value over the size limit (the JDK encoding is larger still), one Kryo refused
 * for the decoding limits (readers refuse it whatever the codec), a value
 * that is not {@link java.io.Serializable} while the serializer requires it (the JDK codec would
 * refuse it too, for the same reason), and a record reached again from its own components (Java
 * serialization would store it and read that reference back as null). When both codecs fail, the reason Kryo gave and the reason
 * Java serialization gave are both in the message; a class outside the allow-list is reported as
 * such, being the one thing to fix.
 *
 * <p>Each fallback is counted ({@link #count()}, the metric {@code lazysession.codec.fallbacks}) and
 * logged once per class. Thread-safe.
 */
final class CodecFallback {
  private static final Logger log = LoggerFactory.getLogger(CodecFallback.class);
  private static final int MAX_REPORTED = 1024;

  /** A codec payload and the codec that wrote it. */
  record Encoded(CodecKind codec, byte[] payload) {}

  private final LongAdder count = new LongAdder();
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  /** Encodes with {@code writer}, else with {@code jdk} as described in the class comment. */
  Encoded encode(Object value, Codec writer, Codec jdk) {
    try {
      return new Encoded(writer.kind(), writer.encode(value));
    } catch (ValueTooLargeException | NotSerializableException | RecordCycleException
        | io.lazysession.serializer.codec.DecodeLimitException e) {
      throw e;
    } catch (SerializationException kryoFailure) {
      if (writer.kind() == CodecKind.JDK) {
        throw kryoFailure;
      }
      byte[] payload;
      try {
        payload = jdk.encode(value);
      } catch (SerializationException jdkFailure) {
        throw bothFailed(kryoFailure, jdkFailure);
      }
      count.increment();
      String type = TypeNames.ofValue(value);
      if (reported.size() < MAX_REPORTED && reported.add(type)) {
        log.info("A value of {} cannot be encoded with Kryo ({}); it is stored with Java "
            + "serialization instead, which every node reads (counted in "
            + "lazysession.codec.fallbacks; logged once per class)", type, kryoFailure.getMessage());
      }
      return new Encoded(CodecKind.JDK, payload);
    }
  }

  private static SerializationException bothFailed(SerializationException kryo,
      SerializationException jdk) {
    if (kryo instanceof ClassNotAllowedException) {
      return kryo;
    }
    if (jdk instanceof ClassNotAllowedException || jdk instanceof ValueTooLargeException
        || jdk instanceof NotSerializableException) {
      return jdk;
    }
    SerializationException both = new SerializationException("neither codec can encode it: Kryo: "
        + kryo.getMessage() + "; Java serialization: " + jdk.getMessage(), kryo);
    both.addSuppressed(jdk);
    return both;
  }

  long count() {
    return count.sum();
  }
}
