package io.lazysession.serializer;

import io.lazysession.serializer.compress.ZstdDictionary;
import io.lazysession.serializer.envelope.EnvelopeCompression;
import io.lazysession.serializer.envelope.EnvelopeHeader;
import java.util.Map;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The dictionaries a serializer reads: those it was built with, by id, and after them a source of
 * dictionaries added at run time ({@link AttributeSerializer.Builder#dictionarySource}), asked only
 * for an id the serializer was not built with. Thread-safe as its source is.
 */
final class DictionaryLookup {
  private final Map<Integer, ZstdDictionary> byId;
  private final @Nullable IntFunction<@Nullable ZstdDictionary> source;

  DictionaryLookup(Map<Integer, ZstdDictionary> byId,
      @Nullable IntFunction<@Nullable ZstdDictionary> source) {
    this.byId = Map.copyOf(byId);
    this.source = source;
  }

  /** The dictionary of {@code id}; null when neither the serializer nor its source has it. */
  @Nullable ZstdDictionary get(int id) {
    ZstdDictionary dictionary = byId.get(id);
    if (dictionary == null && source != null) {
      dictionary = source.apply(id);
      if (dictionary != null && dictionary.id() != id) {
        return null; // a source that answers another id: not this one
      }
    }
    return dictionary;
  }

  /**
   * The dictionary an envelope was compressed with; null when it was compressed without one.
   *
   * @throws UnknownDictionaryException when it names one this serializer lacks
   */
  @Nullable ZstdDictionary of(EnvelopeHeader header) {
    if (header.compression() != EnvelopeCompression.ZSTD_DICTIONARY) {
      return null;
    }
    ZstdDictionary dictionary = get(header.dictionaryId());
    if (dictionary == null) {
      throw new UnknownDictionaryException(header.dictionaryId());
    }
    return dictionary;
  }
}
