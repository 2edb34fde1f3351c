package org.acme.shared;

/** A class that is not Serializable. */
public class Counter {
  public int count;
}
