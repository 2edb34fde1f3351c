package io.lazysession.serializer;

/** The bytes name a class outside the allow-list; it was refused before being loaded or constructed. */
public class ClassNotAllowedException extends SerializationException {
  private static final long serialVersionUID = 1L;
  private final String className;

  public ClassNotAllowedException(String className) {
    super("class " + className + " is not allowed to be deserialized; add its package to "
        + "lazysession.allowed-packages if it is yours");
    this.className = className;
  }

  /** The fully qualified name of the refused class. */
  public String className() {
    return className;
  }
}
