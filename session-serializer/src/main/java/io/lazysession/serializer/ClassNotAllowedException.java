package io.lazysession.serializer;

/**
 * A class outside the allow-list: refused before being loaded or constructed when decoding, or
 * before anything is written when encoding. The message names the class, the package to allow and
 * the property that allows it.
 */
public class ClassNotAllowedException extends SerializationException {
  private static final long serialVersionUID = 1L;
  private final String className;

  /** @param className the refused class's binary name; for an array, its element class is reported */
  public ClassNotAllowedException(String className) {
    super(message(className));
    this.className = reported(className);
  }

  private static String message(String className) {
    String reported = reported(className);
    String name = TypeNames.ofBinaryName(reported);
    if (reported.startsWith("java.lang.reflect.Proxy")) {
      return "class " + name + " is not allowed: dynamic proxies are never stored nor decoded";
    }
    if (ClassAllowList.isNeverAllowed(reported)) {
      return "class " + name + " is not allowed: it is behaviour, not data, and no setting allows "
          + "it to be stored or decoded; keep it out of the session";
    }
    String pkg = ClassAllowList.packageOf(reported);
    String prefix = "class " + name + " is outside the allow-list, so it is neither stored nor "
        + "decoded; to allow it, add its package: " + ClassAllowList.PROPERTY + "=" + pkg;
    if (ClassAllowList.isPlatformName(reported)) {
      // Audit mode never lets a platform class through: do not send the user there.
      return prefix + " (a comma-separated list; platform packages are refused in "
          + ClassAllowList.MODE_PROPERTY + "=audit too, so only this property allows it)";
    }
    return prefix + " (a comma-separated list; " + ClassAllowList.MODE_PROPERTY + "=audit lists "
        + "every class your sessions need without refusing them)";
  }

  /** The fully qualified (binary) name of the refused class; for an array, of its element class. */
  public String className() {
    return className;
  }

  /** The package to allow for this class. */
  public String packageName() {
    return ClassAllowList.packageOf(className);
  }

  /** The name to report when refusing a class: the element class of an array. */
  private static String reported(String className) {
    String element = ClassAllowList.elementName(className);
    return element == null || element.equals("int") ? className : element;
  }
}
