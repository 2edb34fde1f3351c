package io.lazysession.serializer.measure;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.SerializationException;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.compress.ZstdDictionary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Measures what a map of attributes costs under several encodings, so a user sees what switching codec
 * or compression would save. Thread-safe.
 *
 * <p>Times are one encode and one decode per attribute and choice, measured with {@link System#nanoTime()}:
 * indicative for a report, not a benchmark (use the JMH benchmark for that).
 */
public final class PayloadMeter {
  /** One encoding to measure, with the label shown in reports (e.g. "kryo+zstd"). */
  public record Choice(String label, AttributeSerializer serializer) {
    public Choice {
      Objects.requireNonNull(label, "label must not be null");
      Objects.requireNonNull(serializer, "serializer must not be null");
    }
  }

  private final List<Choice> choices;

  private PayloadMeter(List<Choice> choices) {
    this.choices = choices;
  }

  /** Measures with the given choices, in that order. */
  public static PayloadMeter of(List<Choice> choices) {
    if (choices.isEmpty()) {
      throw new IllegalArgumentException("choices must not be empty");
    }
    return new PayloadMeter(List.copyOf(choices));
  }

  /**
   * The standard choices: jdk, jdk+zstd, kryo, kryo+zstd (level 3 above 256 bytes), and
   * kryo+zstd+dict (above {@link Compression#DEFAULT_MIN_BYTES_WITH_DICTIONARY} bytes) when a dictionary
   * is given.
   */
  public static PayloadMeter standard(ClassAllowList allowList, @Nullable ZstdDictionary dictionary) {
    AttributeSerializer base = AttributeSerializer.builder().allowList(allowList).build();
    List<Choice> choices = new ArrayList<>();
    choices.add(choice("jdk", base, CodecKind.JDK, Compression.none()));
    choices.add(choice("jdk+zstd", base, CodecKind.JDK, Compression.zstd()));
    choices.add(choice("kryo", base, CodecKind.KRYO, Compression.none()));
    choices.add(choice("kryo+zstd", base, CodecKind.KRYO, Compression.zstd()));
    if (dictionary != null) {
      choices.add(choice("kryo+zstd+dict", base, CodecKind.KRYO,
          Compression.zstd(Compression.DEFAULT_LEVEL, Compression.DEFAULT_MIN_BYTES_WITH_DICTIONARY,
              dictionary)));
    }
    return new PayloadMeter(List.copyOf(choices));
  }

  private static Choice choice(String label, AttributeSerializer base, CodecKind codec,
      Compression compression) {
    return new Choice(label, base.toBuilder().codec(codec).compression(compression).build());
  }

  public List<Choice> choices() {
    return choices;
  }

  /** Encodes and decodes each attribute with each choice; a value a choice cannot encode is reported. */
  public PayloadReport measure(Map<String, ?> attributes) {
    List<PayloadReport.AttributeReport> reports = new ArrayList<>(attributes.size());
    long[][] sums = new long[choices.size()][4];
    for (Map.Entry<String, ?> entry : attributes.entrySet()) {
      Object value = entry.getValue();
      List<PayloadReport.Figures> figures = new ArrayList<>(choices.size());
      for (int i = 0; i < choices.size(); i++) {
        PayloadReport.Figures f = measure(choices.get(i), value);
        figures.add(f);
        if (f.error() == null) {
          sums[i][0] += f.codecBytes();
          sums[i][1] += f.storedBytes();
          sums[i][2] += f.encodeNanos();
          sums[i][3] += f.decodeNanos();
        }
      }
      reports.add(new PayloadReport.AttributeReport(entry.getKey(),
          value == null ? "null" : value.getClass().getName(), List.copyOf(figures)));
    }
    List<PayloadReport.Totals> totals = new ArrayList<>(choices.size());
    for (int i = 0; i < choices.size(); i++) {
      totals.add(new PayloadReport.Totals(choices.get(i).label(), sums[i][0], sums[i][1], sums[i][2],
          sums[i][3]));
    }
    return new PayloadReport(List.copyOf(reports), List.copyOf(totals));
  }

  private static PayloadReport.Figures measure(Choice choice, @Nullable Object value) {
    if (value == null) {
      return new PayloadReport.Figures(choice.label(), 0, 0, 0, 0, "null value");
    }
    AttributeSerializer serializer = choice.serializer();
    try {
      long start = System.nanoTime();
      byte[] payload = serializer.encodePayload(value);
      byte[] envelope = serializer.envelope(payload);
      long encoded = System.nanoTime();
      serializer.deserialize(envelope);
      long decoded = System.nanoTime();
      return new PayloadReport.Figures(choice.label(), payload.length, envelope.length,
          encoded - start, decoded - encoded, null);
    } catch (SerializationException e) {
      return new PayloadReport.Figures(choice.label(), 0, 0, 0, 0, e.getMessage());
    }
  }
}
