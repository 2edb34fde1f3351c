package io.lazysession.serializer.measure;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What each attribute costs under each encoding choice, and the totals per choice. Immutable.
 *
 * @param attributes one entry per attribute, in the order of the measured map
 * @param totals one entry per choice, summing the attributes (choice order)
 */
public record PayloadReport(List<AttributeReport> attributes, List<Totals> totals) {

  /** The totals of the choice with this label. */
  public Totals totals(String choice) {
    for (Totals t : totals) {
      if (t.choice().equals(choice)) {
        return t;
      }
    }
    throw new IllegalArgumentException("choice '" + choice + "' was not measured; measured: "
        + totals.stream().map(Totals::choice).toList());
  }

  /**
   * A plain-text table: one row per attribute with stored bytes per choice, then the totals (stored
   * bytes, codec bytes, encode and decode microseconds).
   */
  public String toTable() {
    StringBuilder out = new StringBuilder();
    out.append(String.format("%-24s %-40s", "attribute", "type"));
    for (Totals t : totals) {
      out.append(String.format(" %16s", t.choice()));
    }
    out.append('\n');
    for (AttributeReport a : attributes) {
      String type = a.type().length() > 40 ? "..." + a.type().substring(a.type().length() - 37) : a.type();
      out.append(String.format("%-24s %-40s", a.name(), type));
      for (Figures f : a.figures()) {
        out.append(String.format(" %16s", f.error() == null ? Integer.toString(f.storedBytes()) : "error"));
      }
      out.append('\n');
    }
    row(out, "total stored bytes", t -> t.storedBytes());
    row(out, "total codec bytes", t -> t.codecBytes());
    row(out, "encode us", t -> t.encodeNanos() / 1000);
    row(out, "decode us", t -> t.decodeNanos() / 1000);
    return out.toString();
  }

  private void row(StringBuilder out, String label, java.util.function.ToLongFunction<Totals> figure) {
    out.append(String.format("%-65s", label));
    for (Totals t : totals) {
      out.append(String.format(" %16d", figure.applyAsLong(t)));
    }
    out.append('\n');
  }

  /** One attribute: its name, the value's class name, and one figure set per choice. */
  public record AttributeReport(String name, String type, List<Figures> figures) {}

  /**
   * One attribute under one choice.
   *
   * @param choice the choice label
   * @param codecBytes bytes of the codec payload before compression
   * @param storedBytes bytes of the whole envelope as stored
   * @param encodeNanos time to encode into the envelope
   * @param decodeNanos time to decode from the envelope
   * @param error why the value could not be encoded with this choice, or null
   */
  public record Figures(
      String choice,
      int codecBytes,
      int storedBytes,
      long encodeNanos,
      long decodeNanos,
      @Nullable String error) {}

  /** The sum over all attributes for one choice. */
  public record Totals(String choice, long codecBytes, long storedBytes, long encodeNanos,
      long decodeNanos) {}
}
