package io.lazysession.serializer;

/**
 * Type names as Java source writes them, for messages: {@code byte[]} rather than {@code [B},
 * {@code java.lang.String[][]} rather than {@code [[Ljava.lang.String;}. Nested classes keep their
 * binary {@code $} (what a stack trace and a class loader show). Stateless.
 *
 * <p>Internal: public for lazysession's own packages; not part of the supported API (docs/api.md).
 */
public final class TypeNames {
  private TypeNames() {}

  /** The name of {@code type} as source writes it. */
  public static String of(Class<?> type) {
    return type.getTypeName();
  }

  /** The class of {@code value}, named as source writes it. */
  public static String ofValue(Object value) {
    return value.getClass().getTypeName();
  }

  /**
   * A binary name ({@code java.lang.String}) or array descriptor ({@code [B},
   * {@code [[Ljava.lang.String;}), as source writes it; a malformed descriptor is returned as is.
   */
  public static String ofBinaryName(String binaryName) {
    int dims = 0;
    while (dims < binaryName.length() && binaryName.charAt(dims) == '[') {
      dims++;
    }
    if (dims == 0) {
      return binaryName;
    }
    String rest = binaryName.substring(dims);
    String element;
    if (rest.length() == 1) {
      element = switch (rest.charAt(0)) {
        case 'Z' -> "boolean";
        case 'B' -> "byte";
        case 'C' -> "char";
        case 'S' -> "short";
        case 'I' -> "int";
        case 'J' -> "long";
        case 'F' -> "float";
        case 'D' -> "double";
        default -> null;
      };
    } else if (rest.length() > 2 && rest.charAt(0) == 'L' && rest.endsWith(";")) {
      element = rest.substring(1, rest.length() - 1);
    } else {
      element = null;
    }
    return element == null ? binaryName : element + "[]".repeat(dims);
  }
}
