package io.lazysession.it.bench.shop;

/** The three session shapes of the benchmark; sizes are those of Spring Session's JDK encoding. */
public enum SessionSize {
  /** Four attributes (a one-line cart, a token, a time, a step), about 1 KB. */
  SMALL,
  /** The reference shop session: twelve attributes, a few KB. */
  REFERENCE,
  /** The reference session plus a catalogue page and an order history, about 100 KB. */
  LARGE;

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
