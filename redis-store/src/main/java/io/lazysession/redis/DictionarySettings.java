package io.lazysession.redis;

import io.lazysession.serializer.compress.ZstdDictionary;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How a repository compresses with a shared zstd dictionary ({@link SharedDictionary}): trained by
 * the nodes themselves and kept in Redis (the default), pinned to one dictionary every node is
 * given, or off. The thresholds are package-private settings, so that tests train on a few saves.
 *
 * @param enabled whether values are compressed with a shared or pinned dictionary at all
 * @param pinned the dictionary every node is given (never trained, nor kept in Redis); null: trained
 * @param sampleEvery one save in this many is sampled for training
 * @param trainSamples samples needed to train
 * @param maxSampleBytes the samples kept, in bytes, at most
 * @param dictionaryBytes the size of a trained dictionary, at most
 * @param poll how often a node reads the namespace's dictionaries from Redis (and puts back those
 *     Redis lost); a newly chosen dictionary is written with only after one more poll, so that
 *     every live node had the chance to load it first
 * @param retrainAfter the least time between two trainings of one node when the ratio drifts
 * @param drift how much worse (0.15: 15%) the running compression ratio must get than the one
 *     measured at training for a node to train again
 */
record DictionarySettings(boolean enabled, @Nullable ZstdDictionary pinned, int sampleEvery,
    int trainSamples, long maxSampleBytes, int dictionaryBytes, Duration poll,
    Duration retrainAfter, double drift) {
  /** On, trained: one save in 16 sampled, 400 samples (at most 4 MiB), a 16 KiB dictionary. */
  static final DictionarySettings DEFAULT = new DictionarySettings(true, null, 16, 400,
      4L << 20, 16 * 1024, RedisFormat.HEARTBEAT, Duration.ofHours(24), 0.15);
  /** Off: values are compressed without a dictionary, as in Redis format 1. */
  static final DictionarySettings OFF = new DictionarySettings(false, null, 16, 400, 4L << 20,
      16 * 1024, RedisFormat.HEARTBEAT, Duration.ofHours(24), 0.15);

  DictionarySettings {
    if (sampleEvery < 1 || trainSamples < 1 || maxSampleBytes < 1
        || dictionaryBytes < ZstdDictionary.MIN_BYTES) {
      throw new IllegalArgumentException("invalid dictionary settings: sampleEvery " + sampleEvery
          + ", trainSamples " + trainSamples + ", maxSampleBytes " + maxSampleBytes
          + ", dictionaryBytes " + dictionaryBytes);
    }
  }

  /** Pinned to {@code dictionary}: no training, nothing kept in Redis. */
  static DictionarySettings pinned(ZstdDictionary dictionary) {
    return new DictionarySettings(true, dictionary, DEFAULT.sampleEvery, DEFAULT.trainSamples,
        DEFAULT.maxSampleBytes, DEFAULT.dictionaryBytes, DEFAULT.poll, DEFAULT.retrainAfter,
        DEFAULT.drift);
  }

  /** These settings training sooner and polling more often: for tests. */
  DictionarySettings training(int every, int samples, Duration pollEvery) {
    return new DictionarySettings(enabled, pinned, every, samples, maxSampleBytes, dictionaryBytes,
        pollEvery, retrainAfter, drift);
  }
}
