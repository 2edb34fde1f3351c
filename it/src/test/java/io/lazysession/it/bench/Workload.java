package io.lazysession.it.bench;

import java.util.Locale;

/** What one request of a cell does; every request goes through {@link StoreNode}. */
public enum Workload {
  /** Load a session, read one attribute (the cart), save: a page view. */
  READ("read 1 attr"),
  /** Load a session, read the cart and store a changed copy, save: "add to cart". */
  WRITE("change 1 attr"),
  /** 90% {@link #READ}, 10% {@link #WRITE}, each request on one of two application nodes at random. */
  MIX("90/10 mix, 2 nodes"),
  /** Create a session with every attribute of its size and save it: a sign-in. */
  CREATE("create session");

  private final String label;

  Workload(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  static Workload parse(String text) {
    return valueOf(text.trim().toUpperCase(Locale.ROOT));
  }
}
