package io.lazysession.serializer.compat;

import java.io.Serializable;

/** A Serializable class with a field whose value is not Serializable. */
public class Holder implements Serializable {
  private static final long serialVersionUID = 1L;
  Object held = new Plain();
}
