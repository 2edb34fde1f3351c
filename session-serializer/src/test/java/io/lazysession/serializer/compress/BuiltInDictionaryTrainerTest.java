package io.lazysession.serializer.compress;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

class BuiltInDictionaryTrainerTest {

  /**
   * The committed candidate dictionary must be regenerable from the committed trainer. A zstd-jni
   * upgrade may change what the trainer produces: then regenerate the resource with the trainer.
   */
  @Test
  void train_committedSeed_reproducesCommittedDictionary() throws IOException {
    byte[] committed;
    try (InputStream in = getClass().getResourceAsStream("/" + BuiltInDictionaryTrainer.RESOURCE)) {
      committed = in.readAllBytes();
    }

    byte[] trained = BuiltInDictionaryTrainer.train(BuiltInDictionaryTrainer.SEED,
        BuiltInDictionaryTrainer.DICTIONARY_BYTES);

    assertThat(trained).isEqualTo(committed);
    assertThat(ZstdDictionary.of(committed).id()).isEqualTo(BuiltInDictionaryTrainer.RESERVED_ID);
    assertThat(committed).hasSize(BuiltInDictionaryTrainer.DICTIONARY_BYTES);
  }
}
