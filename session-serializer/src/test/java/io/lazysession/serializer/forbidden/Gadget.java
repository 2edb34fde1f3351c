package io.lazysession.serializer.forbidden;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stands for a deserialization gadget: a class outside the allow-list whose construction, readObject,
 * hashCode or compare would run code. Counts every such call so tests can prove none happened.
 */
public class Gadget implements Serializable, Comparator<Object> {
  private static final long serialVersionUID = 1L;

  /** Constructor, readObject, hashCode and compare calls since the last {@link #reset()}. */
  public static final AtomicInteger CALLS = new AtomicInteger();

  public String command = "calc.exe";

  public Gadget() {
    CALLS.incrementAndGet();
  }

  public static void reset() {
    CALLS.set(0);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    CALLS.incrementAndGet();
    in.defaultReadObject();
  }

  @Override
  public int hashCode() {
    CALLS.incrementAndGet();
    return 1;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Gadget;
  }

  @Override
  public int compare(Object a, Object b) {
    CALLS.incrementAndGet();
    return 0;
  }
}
