package io.lazysession.serializer.codec;

import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serial;
import java.io.Serializable;
import java.net.URL;

/**
 * What JDK serialization writes for a {@link URL}: its external form only. Reading it yields a URL
 * that never resolves its host ({@link JavaNetSerializers#noLookupUrl}), already by the time a
 * {@code HashMap} that holds it as a key asks for its hash code. Part of the JDK wire format: keep the
 * class name and the single field.
 *
 * <p>Immutable and thread-safe.
 */
final class SerializedUrl implements Serializable {
  @Serial
  private static final long serialVersionUID = 1L;

  private final String spec;

  private SerializedUrl(String spec) {
    this.spec = spec;
  }

  /**
   * @throws IllegalArgumentException if the URL could not be read back, so that it is never stored
   */
  static SerializedUrl of(URL url) {
    String spec = url.toExternalForm();
    JavaNetSerializers.noLookupUrl(spec);
    return new SerializedUrl(spec);
  }

  @Serial
  private void readObject(ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
    in.defaultReadObject();
    if (spec == null) {
      throw new InvalidObjectException("serialized URL has no spec");
    }
  }

  @Serial
  private Object readResolve() throws InvalidObjectException {
    try {
      return JavaNetSerializers.noLookupUrl(spec);
    } catch (IllegalArgumentException e) {
      InvalidObjectException invalid = new InvalidObjectException(e.getMessage());
      invalid.initCause(e);
      throw invalid;
    }
  }
}
