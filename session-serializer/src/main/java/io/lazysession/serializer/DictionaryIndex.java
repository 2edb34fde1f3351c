package io.lazysession.serializer;

import io.lazysession.serializer.compress.ZstdDictionary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The dictionaries a serializer reads, by the id an envelope names. Frames are written without a
 * checksum (docs/envelope-format.md), so a frame decompressed with another dictionary than the one it
 * was compressed with gives wrong bytes, not an error: two different dictionaries with one id are
 * refused rather than one of them kept. Stateless.
 */
final class DictionaryIndex {
  private DictionaryIndex() {}

  /**
   * The readable dictionaries and the writing one, by id, in that order.
   *
   * @throws IllegalArgumentException if two different dictionaries have one id (the same one given
   *     twice is fine)
   */
  static Map<Integer, ZstdDictionary> byId(List<ZstdDictionary> readable,
      @Nullable ZstdDictionary writing) {
    List<ZstdDictionary> all = new ArrayList<>(readable);
    if (writing != null) {
      all.add(writing);
    }
    Map<Integer, ZstdDictionary> byId = new LinkedHashMap<>();
    for (ZstdDictionary dictionary : all) {
      ZstdDictionary known = byId.putIfAbsent(dictionary.id(), dictionary);
      if (known != null && !known.equals(dictionary)) {
        throw new IllegalArgumentException("dictionaries must have distinct ids, but two different"
            + " ones have id " + Integer.toUnsignedString(dictionary.id()) + " (" + known + ", "
            + dictionary + (dictionary == writing ? ", the writing one in compression" : "")
            + "): an envelope names its dictionary by id only, and decompressed with the other one"
            + " it would give wrong bytes; give each serializer one of them, or train again for a"
            + " new id");
      }
    }
    return byId;
  }
}
