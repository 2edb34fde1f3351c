package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.compress.ZstdDictionary;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Sampling and the retraining rule: one save in {@code sampleEvery} sampled, a dictionary trained
 * once enough samples exist and none is current, and again only when the ratio drifted.
 */
class DictionaryTrainingTest {
  private static final AttributeSerializer SERIALIZER = AttributeSerializer.builder().build();
  private final Random random = new Random(11);

  @Test
  void sample_oneSaveInSampleEvery_andTrainsOnlyWithEnoughSamplesAndNoCurrent() {
    DictionaryTraining training = training(Duration.ofHours(24));
    for (int i = 0; i < 40; i++) {
      training.sample(save("cart", "books"), null);
    }
    assertThat(training.samples()).as("one save in 2, at random").isBetween(6, 34);
    assertThat(training.due(true, true)).as("fewer than 60 samples").isNull();
    fill(training, "cart", "books", null);
    assertThat(training.due(true, false)).as("no room for one more").isNull();
    assertThat(training.due(false, true)).as("a current one that did not drift").isNull();
    assertThat(training.due(true, true)).isNotNull();
  }

  @Test
  void due_ratioWorseThanTheBaselineByMoreThanTheDrift_trainsAgain() {
    DictionaryTraining training = training(Duration.ZERO);
    fill(training, "cart", "books", null);
    ZstdDictionary first = training.due(true, true);
    assertThat(first).isNotNull();
    training.started(first);
    fill(training, "cart", "books", first); // the baseline window
    assertThat(training.due(false, true)).as("the baseline is taken").isNull();
    fill(training, "cart", "books", first);
    assertThat(training.due(false, true)).as("same data, same ratio").isNull();

    fill(training, "ledger", "invoices", first); // what the sessions hold changed
    ZstdDictionary second = training.due(false, true);

    assertThat(second).isNotNull();
    assertThat(second.id()).isNotEqualTo(first.id());
  }

  @Test
  void due_drifted_butWithinRetrainAfter_waits() {
    DictionaryTraining training = training(Duration.ofHours(24));
    fill(training, "cart", "books", null);
    ZstdDictionary first = training.due(true, true);
    training.started(first);
    fill(training, "cart", "books", first);
    assertThat(training.due(false, true)).isNull();
    fill(training, "ledger", "invoices", first);
    assertThat(training.due(false, true)).isNull();
  }

  private static DictionaryTraining training(Duration retrainAfter) {
    DictionarySettings settings = new DictionarySettings(true, null, 2, 60, 4L << 20, 2048,
        Duration.ofSeconds(1), retrainAfter, 0.15);
    return new DictionaryTraining(SERIALIZER, settings, id -> null);
  }

  /** Enough sampled saves for one window of 60 samples (one in 2 sampled, at random). */
  private void fill(DictionaryTraining training, String name, String word,
      ZstdDictionary current) {
    for (int i = 0; i < 400; i++) {
      training.sample(save(name, word), current);
    }
  }

  /** A save writing a pack of a few attributes about {@code word}. */
  private SaveRequest save(String name, String word) {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    for (int i = 0; i < 6; i++) {
      StringBuilder text = new StringBuilder();
      for (int j = 0; j < 20; j++) {
        int k = random.nextInt(30); // one of 30 long tokens of the domain
        text.append(word).append(Integer.toString(k * 7919, 36)).append(word.toUpperCase())
            .append(k).append(' ');
      }
      entries.put(name + i, SERIALIZER.serialize(text.toString()));
    }
    StoredPack after = new StoredPack(new byte[0], entries, null);
    AttributePacking.PackWrite pack = new AttributePacking.PackWrite(null, Map.of(), Set.of(),
        new byte[0], Map.of(), after, 0);
    return new SaveRequest(SaveRequest.SaveMode.UPDATE, 0, 0, 0, null, 0,
        PrincipalChange.UNCHANGED, Map.of(), List.of(), pack, 0, 1);
  }
}
