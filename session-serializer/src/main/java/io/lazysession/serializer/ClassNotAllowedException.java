package io.lazysession.serializer;

/** The bytes name a class outside the allow-list; it was refused before being loaded or constructed. */
public class ClassNotAllowedException extends SerializationException {
  private static final long serialVersionUID = 1L;
  private final String className;

  /** @param className the refused class; for an array, its element class is reported */
  public ClassNotAllowedException(String className) {
    super("class " + reported(className) + " is not allowed to be deserialized; add its package "
        + "to lazysession.allowed-packages if it is yours");
    this.className = reported(className);
  }

  /** The fully qualified name of the refused class. */
  public String className() {
    return className;
  }

  /** The name to report when refusing a class: the element class of an array. */
  private static String reported(String className) {
    String element = ClassAllowList.elementName(className);
    return element == null || element.equals("int") ? className : element;
  }
}
