package io.lazysession.serializer.measure;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What each attribute costs under each encoding choice, and the totals per choice.
 *
 * @param attributes one entry per attribute, in the order of the measured map
 * @param totals one entry per choice, summing the attributes (choice order)
 */
public record PayloadReport(List<AttributeReport> attributes, List<Totals> totals) {

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
