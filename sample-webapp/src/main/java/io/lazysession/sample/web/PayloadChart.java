package io.lazysession.sample.web;

import io.lazysession.redis.SessionSize;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The payload page's picture of a {@link SessionSize}: one bar per place in the hash, on one scale.
 * The pack is one bar whose segments are its members (each its share of the compressed pack); each
 * attribute in a field of its own is a bar; then the key and metadata. A second pair of bars, on a
 * scale of their own, compares the whole session with what Spring Session Data Redis would store for
 * the same attributes (JDK serialization, uncompressed).
 *
 * @param bars the bars of the session, in display order
 * @param comparison this session stacked by place, then Spring Session Data Redis's fields (absent
 *     when some value cannot be written with JDK serialization)
 */
record PayloadChart(List<Bar> bars, List<Bar> comparison) {

  /** One bar: its label, what it is ({@code pack}, {@code own}, {@code meta}, {@code ssdr}). */
  record Bar(String label, String kind, List<Segment> segments) {
    public long bytes() {
      return segments.stream().mapToLong(Segment::bytes).sum();
    }
  }

  /** One part of a bar: an attribute (or the key and metadata), its bytes, width and colour. */
  record Segment(String name, String kind, long bytes, String width, int colour) {}

  static PayloadChart of(SessionSize size) {
    List<SessionSize.AttributeSize> packed = new ArrayList<>();
    List<SessionSize.AttributeSize> own = new ArrayList<>();
    for (SessionSize.AttributeSize attribute : size.attributes()) {
      (attribute.place() == SessionSize.Place.PACK ? packed : own).add(attribute);
    }
    own.sort(Comparator.comparingLong(SessionSize.AttributeSize::storedBytes).reversed());
    long packBytes = packed.stream().mapToLong(SessionSize.AttributeSize::storedBytes).sum();
    long meta = size.keyBytes() + size.metadataBytes();
    long scale = Math.max(1, Math.max(meta, Math.max(packBytes,
        own.stream().mapToLong(SessionSize.AttributeSize::storedBytes).max().orElse(0))));
    List<Bar> bars = new ArrayList<>();
    List<Segment> members = new ArrayList<>();
    for (int i = 0; i < packed.size(); i++) {
      members.add(segment(packed.get(i).name(), "pack", packed.get(i).storedBytes(), scale, i));
    }
    if (!members.isEmpty()) {
      bars.add(new Bar(size.packFields() > 1 ? "pack, in " + size.packFields() + " chunks"
          : "pack (#s)", "pack", members));
    }
    for (SessionSize.AttributeSize attribute : own) {
      bars.add(new Bar(attribute.name(), "own",
          List.of(segment(attribute.name(), "own", attribute.storedBytes(), scale, 0))));
    }
    bars.add(new Bar("key and metadata", "meta",
        List.of(segment("key and metadata", "meta", meta, scale, 0))));
    long jdk = size.jdkStoredBytes();
    if (jdk < 0) {
      return new PayloadChart(List.copyOf(bars), List.of());
    }
    long whole = Math.max(1, Math.max(jdk, size.storedBytes()));
    List<Segment> stored = new ArrayList<>();
    stored.add(segment("the pack", "pack", packBytes, whole, 1));
    for (SessionSize.AttributeSize attribute : own) {
      stored.add(segment(attribute.name(), "own", attribute.storedBytes(), whole, 0));
    }
    stored.add(segment("key and metadata", "meta", meta, whole, 0));
    List<Segment> fields = new ArrayList<>();
    int i = 0;
    for (SessionSize.AttributeSize attribute : size.attributes()) {
      fields.add(segment(attribute.name(), "ssdr", SessionSize.SSDR_ATTRIBUTE_PREFIX.length()
          + attribute.nameBytes() + attribute.jdkBytes(), whole, i++));
    }
    return new PayloadChart(List.copyOf(bars), List.of(
        new Bar("lazysession (this session)", "session", stored),
        new Bar("Spring Session Data Redis (attributes only)", "ssdr", fields)));
  }

  private static Segment segment(String name, String kind, long bytes, long scale, int index) {
    return new Segment(name, kind, bytes,
        String.format(Locale.ROOT, "%.2f%%", Math.max(0.3, 100.0 * bytes / scale)), index % 6);
  }
}
