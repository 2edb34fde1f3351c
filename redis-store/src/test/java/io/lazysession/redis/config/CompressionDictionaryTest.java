package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.redis.LazyRedisSessionRepository;
import io.lettuce.core.RedisClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lazysession.compression.dictionary.*}: what a wrong file says. */
class CompressionDictionaryTest {
  @TempDir
  Path directory;

  @Test
  void applyTo_missingFile_namesThePropertyTheFileAndTheFix() {
    String file = directory.resolve("missing.dict").toString();
    RedisClient client = RedisClient.create();
    try {
      assertThatThrownBy(() -> new CompressionDictionary(true, file)
          .applyTo(LazyRedisSessionRepository.builder(client)))
          .isInstanceOf(LazySessionConfigurationException.class)
          .hasMessageContaining("lazysession.compression.dictionary.file")
          .hasMessageContaining(file)
          .hasMessageContaining("cannot be read")
          .hasMessageContaining("remove it to have the nodes train one");
    } finally {
      client.shutdown();
    }
  }

  @Test
  void applyTo_fileThatIsNoDictionary_saysSoAndHowToMakeOne() throws IOException {
    Path file = Files.write(directory.resolve("notes.txt"), "not a dictionary".getBytes());
    RedisClient client = RedisClient.create();
    try {
      assertThatThrownBy(() -> new CompressionDictionary(true, file.toString())
          .applyTo(LazyRedisSessionRepository.builder(client)))
          .isInstanceOf(LazySessionConfigurationException.class)
          .hasMessageContaining("is not a zstd dictionary with an id")
          .hasMessageContaining("zstd --train");
    } finally {
      client.shutdown();
    }
  }

  @Test
  void blankFile_isNone_andOffNeverReadsTheFile() {
    assertThat(new CompressionDictionary(true, " ").file()).isNull();
    RedisClient client = RedisClient.create();
    try {
      new CompressionDictionary(false, directory.resolve("missing.dict").toString())
          .applyTo(LazyRedisSessionRepository.builder(client));
    } finally {
      client.shutdown();
    }
  }
}
