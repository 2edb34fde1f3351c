package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.SerializationException;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdCompressor;
import io.lazysession.serializer.compress.ZstdDictionary;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * What a node samples of the saves it writes, to train a shared dictionary on, and how well the
 * current one compresses them. Thread-safe: saves sample from any thread; {@link #due} runs on the
 * dictionary's own thread.
 *
 * <p>Design: one save in {@link DictionarySettings#sampleEvery} is sampled, at random (one random
 * number for the others): the uncompressed body of its pack and the payload of each larger value it writes,
 * what the store compresses (as {@link AttributeSerializer#dictionarySamples}). The newest samples
 * are kept, up to {@link DictionarySettings#trainSamples} and {@link
 * DictionarySettings#maxSampleBytes}. Drift: while a dictionary is current, the samples are also
 * compressed with it; the first window of {@code trainSamples} samples after it became current gives
 * the baseline ratio, and a later window whose ratio is worse than the baseline by more than {@link
 * DictionarySettings#drift} trains again, at most once per {@link DictionarySettings#retrainAfter}.
 */
final class DictionaryTraining {
  private final AttributeSerializer sampler;
  private final DictionarySettings settings;
  private final int level;
  private final ArrayDeque<byte[]> samples = new ArrayDeque<>(); // guarded by this
  private long sampleBytes; // guarded by this
  private @Nullable ZstdDictionary measured; // guarded by this
  private long raw; // guarded by this
  private long compressed; // guarded by this
  private int window; // guarded by this
  private double baseline = Double.NaN; // guarded by this
  private long startedNanos = System.nanoTime(); // guarded by this

  DictionaryTraining(AttributeSerializer base, DictionarySettings settings,
      IntFunction<@Nullable ZstdDictionary> dictionaries) {
    this.sampler = base.toBuilder().compression(Compression.none()).dictionarySource(dictionaries)
        .build();
    this.settings = settings;
    this.level = base.compression().enabled() ? base.compression().level()
        : Compression.DEFAULT_LEVEL;
  }

  /** Samples one save in {@code sampleEvery}; measures {@code current} on it. */
  void sample(SaveRequest request, @Nullable ZstdDictionary current) {
    // At random, not every n-th: traffic that repeats with a period (a load balancer's round robin,
    // a test's loop) would otherwise have only one kind of session sampled.
    if (settings.sampleEvery() > 1
        && java.util.concurrent.ThreadLocalRandom.current().nextInt(settings.sampleEvery()) != 0) {
      return;
    }
    List<byte[]> taken = samplesOf(request);
    if (taken.isEmpty()) {
      return;
    }
    long frames = 0;
    long plain = 0;
    if (current != null) {
      for (byte[] sample : taken) {
        plain += sample.length;
        frames += ZstdCompressor.compress(sample, 0, sample.length, level, current).length;
      }
    }
    synchronized (this) {
      for (byte[] sample : taken) {
        samples.addLast(sample);
        sampleBytes += sample.length;
      }
      while (samples.size() > settings.trainSamples()
          || sampleBytes > settings.maxSampleBytes() && samples.size() > 1) {
        sampleBytes -= samples.removeFirst().length;
      }
      if (current != null && current.equals(measured)) {
        raw += plain;
        compressed += frames;
        window += taken.size();
      }
    }
  }

  /** What the store compresses in this save: the pack's body and the larger values' payloads. */
  private List<byte[]> samplesOf(SaveRequest request) {
    List<byte[]> taken = new ArrayList<>(2);
    try {
      AttributePacking.PackWrite pack = request.pack();
      Map<String, byte[]> entries = pack == null ? null : pack.after().entries();
      if (entries != null && !entries.isEmpty()) {
        byte[] body = sampler.pack(entries);
        taken.add(Arrays.copyOfRange(body, 2, body.length));
      }
      for (byte[] envelope : request.writes().values()) {
        if (!sampler.packable(envelope)) {
          taken.add(sampler.payload(envelope));
        }
      }
    } catch (SerializationException | IllegalArgumentException e) {
      // Not sampled: a value this node cannot read back (a dictionary it lacks).
    }
    return taken;
  }

  /** {@code current} is now written with: its ratio is measured from here on. */
  synchronized void started(ZstdDictionary current) {
    measured = current;
    raw = 0;
    compressed = 0;
    window = 0;
    baseline = Double.NaN;
    startedNanos = System.nanoTime();
  }

  /**
   * A dictionary trained now, or null: when none is current ({@code noCurrent}) and enough samples
   * are kept, or when the current one drifted; never without {@code room} for one more.
   */
  @Nullable ZstdDictionary due(boolean noCurrent, boolean room) {
    List<byte[]> training;
    synchronized (this) {
      if (!room || samples.size() < settings.trainSamples()) {
        return null;
      }
      if (!noCurrent && !drifted()) {
        return null;
      }
      training = new ArrayList<>(samples);
    }
    try {
      ZstdDictionary trained = ZstdDictionary.train(training, settings.dictionaryBytes());
      synchronized (this) {
        samples.clear();
        sampleBytes = 0;
        startedNanos = System.nanoTime();
      }
      return trained;
    } catch (IllegalArgumentException e) {
      SharedDictionary.log.debug("no dictionary trained yet: {}", e.getMessage());
      synchronized (this) {
        // Too few distinct samples: wait for as many new ones.
        samples.clear();
        sampleBytes = 0;
      }
      return null;
    }
  }

  /** Whether the running ratio is worse than the baseline by more than the drift allowed. */
  private boolean drifted() {
    if (measured == null || window < settings.trainSamples() || raw == 0) {
      return false;
    }
    double ratio = (double) compressed / raw;
    raw = 0;
    compressed = 0;
    window = 0;
    if (Double.isNaN(baseline)) {
      baseline = ratio;
      return false;
    }
    boolean due = System.nanoTime() - startedNanos >= settings.retrainAfter().toNanos();
    if (ratio > baseline * (1 + settings.drift()) && due) {
      SharedDictionary.log.info("the zstd dictionary {} now compresses to {} of the input, {} when "
          + "it was first used: training another", Integer.toUnsignedString(measured.id()),
          String.format("%.3f", ratio), String.format("%.3f", baseline));
      return true;
    }
    return false;
  }

  /** Samples kept now. For tests. */
  synchronized int samples() {
    return samples.size();
  }
}
