package io.lazysession.serializer;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which classes may be named in encoded bytes. JDK value types (java.lang, java.util, java.time,
 * java.math, and their array types) are always allowed; other classes only if their package (or a
 * parent package) was allowed. Immutable and thread-safe (an audit-mode list records, in a
 * concurrent set, the classes it let through).
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
 * <p>Also always allowed, so that an application needs no setting for what Spring keeps in its
 * sessions: from {@code java.net} only {@code URI}, and {@code URL} in the forms the codecs write
 * (see {@code JavaNetSerializers}: rebuilt from its string, never resolving its host); and the
 * Spring portfolio's session classes ({@link SpringSessionTypes}: flash maps, session-scope
 * destruction callbacks, the security context and every authentication, failure exceptions, saved
 * requests, CSRF tokens, OAuth 2.0 and OIDC, SAML 2.0, WebAuthn, one-time tokens). These are data
 * classes; the rest of Spring (filters, configuration, bean factories, crypto) stays refused.
 * Likewise the Kotlin standard library's value classes ({@link KotlinTypes}: the empty collections,
 * the collection builders, {@code Pair}, {@code Triple}...), by exact name: no {@code kotlin}
 * package is opened, as some of its classes hold code.
 *
 * <p>{@linkplain Mode#AUDIT Audit mode}, for adopting the list: a class outside it is allowed all
 * the same, recorded ({@link #outsideClasses()}) and logged once with the property line that would
 * allow it, so that a team can collect a complete list before enforcing it. Even then, what no
 * session needs stays refused: the JDK outside the packages above (and its {@code javax.},
 * {@code jdk.}, {@code sun.}, {@code com.sun.} internals), the denied JDK classes and
 * {@code java.net.URL} by name.
 */
public final class ClassAllowList {
  /** The property that lists extra packages, named in refusals. */
  public static final String PROPERTY = "lazysession.allowed-packages";
  /** The property that selects the mode, named in refusals. */
  public static final String MODE_PROPERTY = "lazysession.allow-list-mode";

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ClassAllowList.class);

  /** Whether a class outside the list is refused, or let through and reported. */
  public enum Mode {
    /** Refuse classes outside the list (the default). */
    ENFORCE,
    /** Decode and encode them, reporting each class once. */
    AUDIT;

    /**
     * Parses a {@code lazysession.allow-list-mode} value.
     *
     * @throws IllegalArgumentException naming the property and the accepted values
     */
    public static Mode fromProperty(String value) {
      for (Mode mode : values()) {
        if (mode.name().equalsIgnoreCase(value.trim())) {
          return mode;
        }
      }
      throw new IllegalArgumentException(MODE_PROPERTY + " must be 'enforce' or 'audit', was '"
          + value + "'");
    }
  }

  private static final Set<String> JDK_PACKAGES = Set.of(
      "java.lang", "java.util", "java.util.concurrent", "java.util.concurrent.atomic",
      "java.util.concurrent.locks", "java.math",
      "java.time", "java.time.chrono", "java.time.format", "java.time.temporal", "java.time.zone");

  /** Namespaces of the platform: outside the JDK packages above, never let through by audit. */
  private static final String[] PLATFORM_PREFIXES = {"java.", "javax.", "jdk.", "sun.", "com.sun."};

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
   * what {@link JdkCodec} writes for a {@code java.net.URL}, {@link SpringSessionTypes#CLASSES} and
   * {@link KotlinTypes#CLASSES}.
   * {@code java.net.URL} itself is not here: Kryo writes it by id with its own serializer, and JDK
   * bytes that name it are refused.
   */
  private static final Set<String> SINGLE_CLASSES = singleClasses();

  private static final String URL_CLASS = "java.net.URL";

  /** Spring Security packages (and their sub-packages) whose classes live in HTTP sessions. */
  private static final List<String> SPRING_SECURITY_PACKAGES = SpringSessionTypes.SECURITY_PACKAGES;

  private static final String[] BUILT_IN_PREFIXES =
      SPRING_SECURITY_PACKAGES.stream().map(p -> p + ".").toArray(String[]::new);

  private static final Set<String> PRIMITIVES = Set.of(
      "boolean", "byte", "char", "short", "int", "long", "float", "double", "void");

  private static final ClassAllowList JDK_ONLY = new ClassAllowList(Set.of(), Mode.ENFORCE);

  /** Classes an audit-mode list let through, reported once each; bounded. */
  private static final int MAX_OUTSIDE = 1024;

  private final Set<String> packages;
  private final String[] prefixes;
  private final Mode mode;
  private final Set<String> outside = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private ClassAllowList(Set<String> packages, Mode mode) {
    this.packages = packages;
    this.prefixes = packages.stream().map(p -> p + ".").toArray(String[]::new);
    this.mode = mode;
  }

  private static Set<String> singleClasses() {
    Set<String> all = new java.util.HashSet<>(SpringSessionTypes.CLASSES);
    all.addAll(KotlinTypes.CLASSES);
    all.add("java.net.URI");
    // What a java.util.Date field holds once loaded from a database (JDBC, Hibernate, JdbcTemplate):
    // value types whose serial forms are a long and an int, like java.util.Date's.
    all.add("java.sql.Timestamp");
    all.add("java.sql.Date");
    all.add("java.sql.Time");
    // A certificate's serial form (Certificate.writeReplace), rebuilt by CertificateFactory: what
    // Spring Security keeps as the credentials of a client-certificate (x509) sign-in.
    all.add("java.security.cert.Certificate$CertificateRep");
    all.add("io.lazysession.serializer.codec.SerializedUrl");
    return Set.copyOf(all);
  }

  /** Only what is always allowed: JDK value types, URL and URI, the Spring portfolio's session classes. */
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

  /**
   * The package to allow so that an application in {@code applicationPackage} also decodes the
   * classes of its organisation's shared libraries: its organisation prefix ({@code org.acme} for
   * {@code org.acme.shop}; {@code io.github.alice} for {@code io.github.alice.shop}), or the package
   * itself when that prefix would be a platform or well-known third-party root
   * ({@code org.springframework}, {@code org.apache}, {@code com.fasterxml}, {@code jakarta}...)
   * or the package has two segments or fewer.
   */
  public static String organizationPackage(String applicationPackage) {
    return OrganizationPackages.of(applicationPackage);
  }

  /**
   * Whether a class of this binary name may be loaded and constructed while decoding. In audit mode,
   * a class outside the list is allowed and recorded (logged once), unless it is one that no session
   * needs (see the class comment).
   */
  public boolean isAllowed(String className) {
    String name = elementName(className);
    if (name == null) {
      return false;
    }
    Boolean listed = listed(name);
    if (listed != null) {
      return listed;
    }
    if (mode == Mode.AUDIT) {
      audited(name);
      return true;
    }
    return false;
  }

  /** Whether the list allows {@code name}: true, false when refused in any mode, null when outside. */
  private @org.jspecify.annotations.Nullable Boolean listed(String name) {
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
    if (KotlinTypes.isDenied(name)) {
      return false;
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
    for (String prefix : PLATFORM_PREFIXES) {
      if (name.startsWith(prefix)) {
        return false;
      }
    }
    return null;
  }

  /**
   * Whether no setting allows {@code name}: a denied JDK class, java.net.URL by name, or a Kotlin
   * class that holds code ({@link KotlinTypes#isDenied}).
   */
  static boolean isNeverAllowed(String name) {
    if (name.equals(URL_CLASS) || KotlinTypes.isDenied(name)) {
      return true;
    }
    int dot = name.lastIndexOf('.');
    if (dot > 0 && JDK_PACKAGES.contains(name.substring(0, dot))) {
      int dollar = name.indexOf('$', dot);
      return JDK_DENIED.contains(dollar < 0 ? name : name.substring(0, dollar));
    }
    return false;
  }

  /** Whether {@code name} is in a platform namespace, which audit mode never lets through. */
  static boolean isPlatformName(String name) {
    for (String prefix : PLATFORM_PREFIXES) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  private void audited(String name) {
    if (outside.size() < MAX_OUTSIDE && outside.add(name)) {
      log.warn("{}=audit let {} through, which is outside the allow-list; to enforce the list "
          + "later, add its package: {}={} (logged once per class)", MODE_PROPERTY,
          TypeNames.ofBinaryName(name), PROPERTY, packageOf(name));
    }
  }

  /**
   * Whether this class (or, for an array, its element class) may be decoded. Unlike their names,
   * {@code java.net.URL} and the certificate classes of the JDK's providers are allowed as classes:
   * a codec builds a URL from a string without looking its host up, and a certificate from its
   * encoded form with {@code CertificateFactory} (the JDK's stream filter sees them as what a
   * {@code SerializedUrl} or a {@code Certificate.CertificateRep} resolves to), while bytes that name
   * them are refused.
   */
  public boolean isAllowed(Class<?> type) {
    Class<?> element = type;
    while (element.isArray()) {
      element = element.getComponentType();
    }
    return element.isPrimitive() || element == java.net.URL.class
        || (element == type && java.security.cert.Certificate.class.isAssignableFrom(type)
            && type.getClassLoader() == null)
        || isAllowed(element.getName());
  }

  /** The packages allowed on top of what is always allowed. */
  public Set<String> packages() {
    return packages;
  }

  /** Whether classes outside the list are refused or let through and reported. */
  public Mode mode() {
    return mode;
  }

  /**
   * The classes outside the list that an audit-mode list let through so far, sorted; empty in
   * enforce mode. At most 1024 are kept.
   */
  public java.util.SortedSet<String> outsideClasses() {
    java.util.SortedSet<String> sorted = new java.util.TreeSet<>();
    outside.forEach(name -> sorted.add(TypeNames.ofBinaryName(name)));
    return java.util.Collections.unmodifiableSortedSet(sorted);
  }

  /**
   * The property line that allows every class {@link #outsideClasses()} holds, on top of the
   * packages this list was built with, such as
   * {@code lazysession.allowed-packages=org.acme.shared,com.partner.model}; null when none was
   * let through.
   */
  public @org.jspecify.annotations.Nullable String outsidePropertyLine() {
    java.util.SortedSet<String> missing = new java.util.TreeSet<>();
    outside.forEach(name -> missing.add(packageOf(name)));
    return missing.isEmpty() ? null : PROPERTY + "=" + String.join(",", missing);
  }

  /** The package of a binary class name (of the top-level class for a nested one). */
  static String packageOf(String binaryName) {
    String name = elementName(binaryName);
    String of = name == null ? binaryName : name;
    int dot = of.lastIndexOf('.');
    return dot < 0 ? of : of.substring(0, dot);
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
    return o instanceof ClassAllowList other && packages.equals(other.packages) && mode == other.mode;
  }

  @Override
  public int hashCode() {
    return packages.hashCode() * 31 + mode.hashCode();
  }

  @Override
  public String toString() {
    return "ClassAllowList{jdk + spring + " + packages
        + (mode == Mode.AUDIT ? ", audit" : "") + "}";
  }

  /** Not thread-safe. */
  public static final class Builder {
    private final Set<String> packages = new LinkedHashSet<>();
    private Mode mode = Mode.ENFORCE;

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

    /** Enforce the list (the default), or audit it: see {@link Mode}. */
    public Builder mode(Mode mode) {
      this.mode = java.util.Objects.requireNonNull(mode, "mode must not be null");
      return this;
    }

    public ClassAllowList build() {
      return packages.isEmpty() && mode == Mode.ENFORCE ? JDK_ONLY
          : new ClassAllowList(Collections.unmodifiableSet(new LinkedHashSet<>(packages)), mode);
    }
  }
}
