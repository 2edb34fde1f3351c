package io.lazysession.it.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The jars of the previous release (releases/&lt;version&gt;/ at the root of the repository, named by
 * releases/previous.properties), checked against the checksums recorded with them, loaded in a class
 * loader of their own: classes and resources of {@code io.lazysession} come from those jars only,
 * everything else (Lettuce, Spring, Kryo, the application's classes) is shared with the current
 * code, as two nodes of one application share their dependencies' behaviour on the wire.
 */
final class PreviousRelease {
  /** The packages of lazysession's published modules: the release's, not the current code's. */
  private static final List<String> OWN = List.of("io.lazysession.redis.",
      "io.lazysession.serializer.", "PreviousReleaseNode");

  final String version;
  final ClassLoader loader;

  private PreviousRelease(String version, ClassLoader loader) {
    this.version = version;
    this.loader = loader;
  }

  /**
   * Loads the previous release and compiles {@code PreviousReleaseNode} against it into {@code work}.
   * Fails, never skips, when the jars are missing or differ from their recorded checksums.
   */
  static PreviousRelease load(Path work) throws IOException {
    Path releases = Path.of("..", "releases").toAbsolutePath().normalize();
    Properties previous = new Properties();
    try (InputStream in = Files.newInputStream(releases.resolve("previous.properties"))) {
      previous.load(in);
    }
    String version = previous.getProperty("version");
    assertThat(version).as("version in releases/previous.properties").isNotBlank();
    Path folder = releases.resolve(version);
    List<String> sums = Files.readAllLines(folder.resolve("SHA256SUMS"));
    List<Path> jars = new ArrayList<>();
    for (String line : sums) {
      if (line.isBlank()) {
        continue;
      }
      String[] parts = line.trim().split("\\s+\\*?");
      Path jar = folder.resolve(parts[1]);
      assertThat(jar).as("jar of release " + version + " (releases/README.md)").isRegularFile();
      assertThat(sha256(jar)).as("SHA-256 of " + jar.getFileName()).isEqualTo(parts[0]);
      jars.add(jar);
    }
    assertThat(jars).as("jars listed in releases/" + version + "/SHA256SUMS").hasSize(2);

    Path classes = Files.createDirectories(work.resolve("previous-release-node"));
    StringBuilder classPath = new StringBuilder();
    for (Path jar : jars) {
      classPath.append(jar).append(File.pathSeparator);
    }
    classPath.append(System.getProperty("java.class.path"));
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    Path source = Path.of("src", "test", "previous-release", "PreviousReleaseNode.java");
    int status = compiler.run(null, null, null, "-proc:none", "-d", classes.toString(), "-cp",
        classPath.toString(), source.toString());
    assertThat(status).as("javac of " + source + " against release " + version).isZero();
    jars.add(classes);
    List<URL> urls = new ArrayList<>();
    for (Path path : jars) {
      urls.add(path.toUri().toURL());
    }
    ClassLoader shared = new WithoutOwnClasses(PreviousRelease.class.getClassLoader());
    return new PreviousRelease(version, new URLClassLoader("lazysession-" + version,
        urls.toArray(URL[]::new), shared));
  }

  /** {@code PreviousReleaseNode.open}: the release's servlet repository and its reactive face. */
  Object[] open(Object... arguments) throws ReflectiveOperationException {
    Class<?> node = loader.loadClass("PreviousReleaseNode");
    for (var method : node.getMethods()) {
      if (method.getName().equals("open")) {
        return (Object[]) method.invoke(null, arguments);
      }
    }
    throw new NoSuchMethodException("PreviousReleaseNode.open");
  }

  private static String sha256(Path file) {
    try {
      return HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The test's class loader without lazysession's own classes and resources. */
  private static final class WithoutOwnClasses extends ClassLoader {
    WithoutOwnClasses(ClassLoader parent) {
      super("without-lazysession", parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (OWN.stream().anyMatch(name::startsWith)) {
        throw new ClassNotFoundException(name);
      }
      return super.loadClass(name, resolve);
    }

    @Override
    public URL getResource(String name) {
      return own(name) ? null : super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
      return own(name) ? Collections.emptyEnumeration() : super.getResources(name);
    }

    private static boolean own(String name) {
      String asClass = name.replace('/', '.');
      return OWN.stream().anyMatch(asClass::startsWith);
    }
  }
}
