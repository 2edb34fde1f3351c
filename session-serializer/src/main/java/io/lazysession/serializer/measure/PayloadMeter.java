package io.lazysession.serializer.measure;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.codec.ClassAllowList;
import io.lazysession.serializer.compress.ZstdDictionary;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Measures what a map of attributes costs under several encodings, so a user sees what switching codec
 * or compression would save. Thread-safe.
 */
public final class PayloadMeter {
  /** One encoding to measure, with the label shown in reports (e.g. "kryo+zstd"). */
  public record Choice(String label, AttributeSerializer serializer) {}

  /** Measures with the given choices, in that order. */
  public static PayloadMeter of(List<Choice> choices) {
    throw new UnsupportedOperationException("TODO");
  }

  /**
   * The standard choices: jdk, jdk+zstd, kryo, kryo+zstd, and kryo+zstd+dict when a dictionary is
   * given.
   */
  public static PayloadMeter standard(ClassAllowList allowList, @Nullable ZstdDictionary dictionary) {
    throw new UnsupportedOperationException("TODO");
  }

  public List<Choice> choices() {
    throw new UnsupportedOperationException("TODO");
  }

  /** Encodes and decodes each attribute with each choice; a value a choice cannot encode is reported. */
  public PayloadReport measure(Map<String, ?> attributes) {
    throw new UnsupportedOperationException("TODO");
  }
}
