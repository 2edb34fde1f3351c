package io.lazysession.serializer.codec;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Which classes may be named in encoded bytes. JDK value types (java.lang, java.util, java.time,
 * java.math, and their array types) are always allowed; other classes only if their package (or a
 * parent package) was allowed. Immutable and thread-safe.
 *
 * <p>The JDK part is deliberately narrow: exactly the packages {@code java.lang}, {@code java.util},
 * {@code java.util.concurrent}, {@code java.util.concurrent.atomic}, {@code java.util.concurrent.locks} (a serialized
 * {@code ConcurrentHashMap} names {@code ReentrantLock}), {@code java.math} and
 * {@code java.time} with its sub-packages, not their other sub-packages ({@code java.lang.reflect},
 * {@code java.lang.invoke}, {@code java.util.logging}, ... are refused), and within them the classes
 * that carry behaviour rather than data are refused too ({@code Thread}, {@code ClassLoader},
 * {@code ProcessBuilder}, {@code Runtime}, executors, {@code ServiceLoader}, {@code Timer}). Known
 * gadget chains need a class outside these packages (a {@code TemplatesImpl}, an
 * {@code InvocationHandler}, a commons-collections transformer, a {@code java.net.URL}), so refusing
 * that class breaks the chain before anything is constructed.
 */
public final class ClassAllowList {
  private static final Set<String> JDK_PACKAGES = Set.of(
      "java.lang", "java.util", "java.util.concurrent", "java.util.concurrent.atomic",
      "java.util.concurrent.locks", "java.math",
      "java.time", "java.time.chrono", "java.time.format", "java.time.temporal", "java.time.zone");

  /** Top-level classes inside the JDK packages that are behaviour, not data. */
  private static final Set<String> JDK_DENIED = Set.of(
      "java.lang.Thread", "java.lang.ThreadGroup", "java.lang.ThreadLocal",
      "java.lang.InheritableThreadLocal", "java.lang.ClassLoader", "java.lang.Process",
      "java.lang.ProcessBuilder", "java.lang.ProcessHandle", "java.lang.Runtime", "java.lang.System",
      "java.lang.Module", "java.lang.ModuleLayer", "java.lang.Package", "java.lang.SecurityManager",
      "java.lang.StackWalker", "java.util.ServiceLoader", "java.util.Timer", "java.util.TimerTask",
      "java.util.concurrent.Executors", "java.util.concurrent.ThreadPoolExecutor",
      "java.util.concurrent.ScheduledThreadPoolExecutor", "java.util.concurrent.ForkJoinPool",
      "java.util.concurrent.ForkJoinTask", "java.util.concurrent.FutureTask",
      "java.util.concurrent.CompletableFuture");

  private static final Set<String> PRIMITIVES = Set.of(
      "boolean", "byte", "char", "short", "int", "long", "float", "double", "void");

  private static final ClassAllowList JDK_ONLY = new ClassAllowList(Set.of());

  private final Set<String> packages;
  private final String[] prefixes;

  private ClassAllowList(Set<String> packages) {
    this.packages = packages;
    this.prefixes = packages.stream().map(p -> p + ".").toArray(String[]::new);
  }

  /** Only JDK value types. */
  public static ClassAllowList jdkOnly() {
    return JDK_ONLY;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Whether a class of this binary name may be loaded and constructed while decoding. */
  public boolean isAllowed(String className) {
    String name = elementName(className);
    if (name == null) {
      return false;
    }
    if (PRIMITIVES.contains(name)) {
      return true;
    }
    int dot = name.lastIndexOf('.');
    if (dot > 0 && JDK_PACKAGES.contains(name.substring(0, dot))) {
      int dollar = name.indexOf('$', dot);
      String topLevel = dollar < 0 ? name : name.substring(0, dollar);
      return !JDK_DENIED.contains(topLevel);
    }
    for (String prefix : prefixes) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /** Whether this class (or, for an array, its element class) may be decoded. */
  public boolean isAllowed(Class<?> type) {
    Class<?> element = type;
    while (element.isArray()) {
      element = element.getComponentType();
    }
    return element.isPrimitive() || isAllowed(element.getName());
  }

  /** The packages allowed on top of the JDK types. */
  public Set<String> packages() {
    return packages;
  }

  /** The name to report when refusing a class: the element class of an array. */
  static String refusedName(String className) {
    String element = elementName(className);
    return element == null || element.equals("int") ? className : element;
  }

  /** The element class name of a binary or descriptor array name, or null if it is malformed. */
  private static @org.jspecify.annotations.Nullable String elementName(String className) {
    int dims = 0;
    while (dims < className.length() && className.charAt(dims) == '[') {
      dims++;
    }
    if (dims == 0) {
      return className;
    }
    String rest = className.substring(dims);
    if (rest.length() == 1) {
      return "ZBCSIJFD".indexOf(rest.charAt(0)) >= 0 ? "int" : null;
    }
    if (rest.length() > 2 && rest.charAt(0) == 'L' && rest.endsWith(";")) {
      return rest.substring(1, rest.length() - 1);
    }
    return null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClassAllowList other && packages.equals(other.packages);
  }

  @Override
  public int hashCode() {
    return packages.hashCode();
  }

  @Override
  public String toString() {
    return "ClassAllowList{jdk + " + packages + "}";
  }

  /** Not thread-safe. */
  public static final class Builder {
    private final Set<String> packages = new LinkedHashSet<>();

    private Builder() {}

    /** Allows every class in this package and its sub-packages. */
    public Builder allowPackage(String packageName) {
      String name = packageName == null ? "" : packageName.trim();
      if (name.endsWith(".*")) {
        name = name.substring(0, name.length() - 2);
      }
      if (name.isEmpty() || name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
        throw new IllegalArgumentException(
            "packageName must be a package name such as com.example.shop, was '" + packageName + "'");
      }
      packages.add(name);
      return this;
    }

    public Builder allowPackages(Iterable<String> packageNames) {
      for (String packageName : packageNames) {
        allowPackage(packageName);
      }
      return this;
    }

    public ClassAllowList build() {
      return packages.isEmpty() ? JDK_ONLY
          : new ClassAllowList(Collections.unmodifiableSet(new LinkedHashSet<>(packages)));
    }
  }
}
