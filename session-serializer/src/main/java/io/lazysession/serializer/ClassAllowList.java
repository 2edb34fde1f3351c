package io.lazysession.serializer;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
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
 * {@code InvocationHandler}, a commons-collections transformer, a {@code java.net.URL} read by JDK
 * serialization), so refusing that class breaks the chain before anything is constructed.
 *
 * <p>Also always allowed, so that an application using Spring Security needs no setting: from
 * {@code java.net} only {@code URI}, and {@code URL} in the forms the codecs write (see
 * {@link JavaNetSerializers}: rebuilt from its string, never resolving its host); and the Spring
 * Security packages whose classes its filters keep in the HTTP session (the security context and its
 * authentications, user details and authorities, OAuth 2.0 and OIDC clients, users and tokens, the
 * saved request, the CSRF token, WebAuthn options). These are data classes; the rest of Spring
 * Security (filters, configuration, crypto) stays refused.
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

  /**
   * Single classes outside the JDK packages: {@code java.net.URI} (parsed from its string, no lookup),
   * and what {@link JdkCodec} writes for a {@code java.net.URL}. {@code java.net.URL} itself is not
   * here: Kryo writes it by id with its own serializer, and JDK bytes that name it are refused.
   */
  private static final Set<String> SINGLE_CLASSES = Set.of(
      "java.net.URI", "io.lazysession.serializer.codec.SerializedUrl");

  private static final String URL_CLASS = "java.net.URL";

  /** Spring Security packages (and their sub-packages) whose classes live in HTTP sessions. */
  private static final List<String> SPRING_SECURITY_PACKAGES = List.of(
      "org.springframework.security.core",
      "org.springframework.security.authentication",
      "org.springframework.security.web.authentication",
      "org.springframework.security.web.savedrequest",
      "org.springframework.security.web.csrf",
      "org.springframework.security.web.webauthn.api",
      "org.springframework.security.web.webauthn.authentication",
      "org.springframework.security.oauth2.core",
      "org.springframework.security.oauth2.client");

  private static final String[] BUILT_IN_PREFIXES =
      SPRING_SECURITY_PACKAGES.stream().map(p -> p + ".").toArray(String[]::new);

  private static final Set<String> PRIMITIVES = Set.of(
      "boolean", "byte", "char", "short", "int", "long", "float", "double", "void");

  private static final ClassAllowList JDK_ONLY = new ClassAllowList(Set.of());

  private final Set<String> packages;
  private final String[] prefixes;

  private ClassAllowList(Set<String> packages) {
    this.packages = packages;
    this.prefixes = packages.stream().map(p -> p + ".").toArray(String[]::new);
  }

  /** Only what is always allowed: JDK value types, URL and URI, Spring Security's session classes. */
  public static ClassAllowList jdkOnly() {
    return JDK_ONLY;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The Spring Security packages always allowed (with their sub-packages), whatever was configured.
   */
  public static List<String> springSecurityPackages() {
    return SPRING_SECURITY_PACKAGES;
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
    if (SINGLE_CLASSES.contains(name)) {
      return true;
    }
    if (name.equals(URL_CLASS)) {
      // Never by name, even with java.net allowed: the codecs write a URL in their own form, and a
      // JDK stream naming it is the URLDNS gadget (URL.readObject then HashMap's hashCode: DNS).
      return false;
    }
    for (String prefix : BUILT_IN_PREFIXES) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    for (String prefix : prefixes) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether this class (or, for an array, its element class) may be decoded. Unlike its name,
   * {@code java.net.URL} as a class is allowed: a codec builds it from a string without looking its
   * host up (the JDK's stream filter sees it as what a {@link SerializedUrl} resolves to), while bytes
   * that name it are refused.
   */
  public boolean isAllowed(Class<?> type) {
    Class<?> element = type;
    while (element.isArray()) {
      element = element.getComponentType();
    }
    return element.isPrimitive() || element == java.net.URL.class || isAllowed(element.getName());
  }

  /** The packages allowed on top of what is always allowed. */
  public Set<String> packages() {
    return packages;
  }

  /** The element class name of a binary or descriptor array name, or null if it is malformed. */
  static @org.jspecify.annotations.Nullable String elementName(String className) {
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
    return "ClassAllowList{jdk + spring security + " + packages + "}";
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
