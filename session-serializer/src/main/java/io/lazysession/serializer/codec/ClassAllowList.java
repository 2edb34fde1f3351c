package io.lazysession.serializer.codec;

import java.util.Set;

/**
 * Which classes may be named in encoded bytes. JDK value types (java.lang, java.util, java.time,
 * java.math, and their array types) are always allowed; other classes only if their package (or a
 * parent package) was allowed. Immutable and thread-safe.
 */
public final class ClassAllowList {
  /** Only JDK value types. */
  public static ClassAllowList jdkOnly() {
    throw new UnsupportedOperationException("TODO");
  }

  public static Builder builder() {
    throw new UnsupportedOperationException("TODO");
  }

  /** Whether a class of this binary name may be loaded and constructed while decoding. */
  public boolean isAllowed(String className) {
    throw new UnsupportedOperationException("TODO");
  }

  /** The packages allowed on top of the JDK types. */
  public Set<String> packages() {
    throw new UnsupportedOperationException("TODO");
  }

  /** Not thread-safe. */
  public static final class Builder {
    /** Allows every class in this package and its sub-packages. */
    public Builder allowPackage(String packageName) {
      throw new UnsupportedOperationException("TODO");
    }

    public Builder allowPackages(Iterable<String> packageNames) {
      throw new UnsupportedOperationException("TODO");
    }

    public ClassAllowList build() {
      throw new UnsupportedOperationException("TODO");
    }
  }
}
