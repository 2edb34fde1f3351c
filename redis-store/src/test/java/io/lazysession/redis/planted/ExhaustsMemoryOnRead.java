package io.lazysession.redis.planted;

import java.io.ObjectInputStream;
import java.io.Serial;
import java.io.Serializable;

/**
 * A value whose decoding throws {@link OutOfMemoryError}, as a valid but large value does on a node
 * with a small heap: the bytes are fine, the reading JVM is not.
 */
public final class ExhaustsMemoryOnRead implements Serializable {
  @Serial
  private static final long serialVersionUID = 1L;

  @Serial
  private void readObject(ObjectInputStream in) {
    throw new OutOfMemoryError("simulated: the heap is too small for this value");
  }
}
