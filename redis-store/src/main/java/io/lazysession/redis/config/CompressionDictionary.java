package io.lazysession.redis.config;

import io.lazysession.redis.LazyRedisSessionRepositoryBuilder;
import io.lazysession.serializer.compress.ZstdDictionary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The zstd dictionary of attribute values, {@code lazysession.compression.dictionary.*}
 * (docs/redis-layout.md, "Dictionaries"). Immutable.
 *
 * @param enabled Whether values are compressed with a zstd dictionary that the nodes train from
 *     what they store and share through Redis (written with only once the namespace is finalized
 *     at Redis format 2); false compresses without one.
 * @param file A zstd dictionary file (trained beforehand, e.g. with zstd --train) that every node
 *     is given: used instead of one the nodes train, which then never happens. Off by default.
 */
public record CompressionDictionary(@DefaultValue("true") boolean enabled, @Nullable String file) {
  static final String ENABLED = LazySessionProperties.PREFIX + ".compression.dictionary.enabled";
  static final String FILE = LazySessionProperties.PREFIX + ".compression.dictionary.file";

  public CompressionDictionary {
    if (file != null && file.isBlank()) {
      file = null;
    }
  }

  /** Sets the builder's dictionary as these settings say; reads the file now. */
  void applyTo(LazyRedisSessionRepositoryBuilder builder) {
    if (!enabled) {
      builder.sharedDictionary(false);
      return;
    }
    if (file != null) {
      builder.dictionary(read(file));
    }
  }

  private static ZstdDictionary read(String file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(Path.of(file));
    } catch (IOException | RuntimeException e) {
      throw LazySessionConfigurationException.invalidValue(FILE, file,
          "cannot be read (" + e + ")", "Point " + FILE + " at a readable zstd dictionary file, "
              + "or remove it to have the nodes train one.");
    }
    try {
      return ZstdDictionary.of(bytes);
    } catch (IllegalArgumentException e) {
      throw LazySessionConfigurationException.invalidValue(FILE, file,
          "is not a zstd dictionary with an id (" + e.getMessage() + ")", "Train one with "
              + "zstd --train (or ZstdDictionary.train), or remove " + FILE + " to have the nodes "
              + "train one; " + ENABLED + "=false compresses without a dictionary.");
    }
  }
}
