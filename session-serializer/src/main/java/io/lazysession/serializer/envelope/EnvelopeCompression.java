package io.lazysession.serializer.envelope;

/** The compression byte of an envelope header; the ids are part of the wire format. */
public enum EnvelopeCompression {
  /** Payload stored as the codec wrote it. */
  NONE(0),
  /** Payload is a zstd frame; the header carries the decoded length. */
  ZSTD(1),
  /** Payload is a zstd frame compressed with a dictionary; the header carries its id and the length. */
  ZSTD_DICTIONARY(2);

  private final int id;

  EnvelopeCompression(int id) {
    this.id = id;
  }

  public int id() {
    return id;
  }

  static @org.jspecify.annotations.Nullable EnvelopeCompression ofId(int id) {
    return switch (id) {
      case 0 -> NONE;
      case 1 -> ZSTD;
      case 2 -> ZSTD_DICTIONARY;
      default -> null;
    };
  }
}
