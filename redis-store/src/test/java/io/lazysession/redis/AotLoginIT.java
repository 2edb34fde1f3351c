package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lazysession.redis.loginapp.LoginApplication;
import io.lazysession.testing.RedisServerExtension;
import java.io.File;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplicationAotProcessor;

/**
 * The Spring Security login app built for Spring AOT as a user builds it (Boot's AOT processing of
 * its main class, with none of lazysession's settings, then the generated sources compiled), and run
 * as two processes with {@code spring.aot.enabled=true}, lazysession's settings given at run time
 * only: the limit of sessions per principal with refuse-new sends the refused sign-in to the login
 * failure page, as without AOT; {@code lazysession.enabled=false}, which Spring AOT fixed at build
 * time, stops startup naming the property instead of being ignored.
 */
class AotLoginIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  /** Bounds each node's start; a node that does not serve by then fails the test. */
  private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

  @TempDir
  static Path build;

  @BeforeAll
  static void buildForSpringAot() throws IOException {
    Path sources = build.resolve("sources");
    // In a JVM of its own, as a build runs it: in this one, a test that started LoginApplication
    // before made its configuration proxy already, and Spring AOT would not write that class.
    List<String> command = List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"),
        SpringApplicationAotProcessor.class.getName(), LoginApplication.class.getName(),
        sources.toString(), build.resolve("resources").toString(),
        build.resolve("classes").toString(), "io.lazysession", "aot-login");
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(build.resolve("aot-processor.log").toFile()).start();
    try {
      assertThat(process.waitFor(3, java.util.concurrent.TimeUnit.MINUTES))
          .as("Spring AOT processing ends").isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    } finally {
      process.destroyForcibly();
    }
    assertThat(process.exitValue()).as("Spring AOT processing: "
        + Files.readString(build.resolve("aot-processor.log"))).isZero();
    compile(sources, build.resolve("classes"));
  }

  /** Compiles the generated sources against the test class path, as the build of an app does. */
  private static void compile(Path sources, Path classes) throws IOException {
    List<File> files;
    try (Stream<Path> walk = Files.walk(sources)) {
      files = walk.filter(path -> path.toString().endsWith(".java")).map(Path::toFile).toList();
    }
    assertThat(files).as("generated sources").isNotEmpty();
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    try (StandardJavaFileManager fileManager = compiler.getStandardFileManager(null, null,
        StandardCharsets.UTF_8)) {
      // The classes Spring AOT wrote (configuration class proxies) are referenced by the sources.
      List<String> options = List.of("-proc:none", "-parameters", "-nowarn", "-classpath",
          classes + File.pathSeparator + System.getProperty("java.class.path"),
          "-d", classes.toString());
      boolean compiled = compiler.getTask(null, fileManager, null, options, null,
          fileManager.getJavaFileObjectsFromFiles(files)).call();
      assertThat(compiled).as("the generated sources compile").isTrue();
    }
  }

  @Test
  void login_refuseNewGivenAtRunTime_landsOnTheLoginFailurePage() throws Exception {
    String namespace = TestRedis.uniqueNamespace("aot-refuse");
    try (Node node1 = Node.start("node1", namespace, "--lazysession.max-sessions-per-principal=1",
            "--lazysession.max-sessions-action=refuse-new");
        Node node2 = Node.start("node2", namespace, "--lazysession.max-sessions-per-principal=1",
            "--lazysession.max-sessions-action=refuse-new")) {
      node1.awaitServing();
      node2.awaitServing();
      assertThat(node1.log()).contains("Starting AOT-processed LoginApplication");
      HttpClient laptop = SessionLimitLoginIT.browser();
      HttpClient phone = SessionLimitLoginIT.browser();
      HttpResponse<String> first = SessionLimitLoginIT.signIn(laptop, node1.base());
      assertThat(first.statusCode()).isEqualTo(302);
      assertThat(first.headers().firstValue("Location")).hasValueSatisfying(
          location -> assertThat(location).doesNotContain("error"));

      HttpResponse<String> second = SessionLimitLoginIT.signIn(phone, node2.base());

      assertThat(second.statusCode()).as("a failed login, not an error").isEqualTo(302);
      assertThat(second.headers().firstValue("Location")).hasValueSatisfying(
          location -> assertThat(location).endsWith("/login?error"));
      assertThat(SessionLimitLoginIT.me(phone, node2.base()).statusCode()).as("not signed in")
          .isEqualTo(302);
      assertThat(SessionLimitLoginIT.me(laptop, node2.base()).body()).isEqualTo("ann");
      assertThat(SessionLimitLoginIT.me(laptop, node1.base()).body()).isEqualTo("ann");
    }
  }

  @Test
  void start_disabledAtRunTimeOfABuildThatEnabledIt_failsNamingThePropertyAndTheRule()
      throws Exception {
    try (Node node = Node.start("disabled", TestRedis.uniqueNamespace("aot-disabled"),
        "--lazysession.enabled=false")) {
      int exit = node.awaitExit();

      assertThat(exit).as("startup fails").isNotZero();
      assertThat(node.log()).contains("APPLICATION FAILED TO START")
          .contains("lazysession.enabled differs from its value when the application was built "
              + "for Spring AOT (not set): Spring AOT decides at build time")
          .contains("Value: false")
          .contains("Build the application with lazysession.enabled=false");
    }
  }

  /** A node of the AOT-built app: a JVM of its own, its output in a file. */
  private static final class Node implements AutoCloseable {
    private final Process process;
    private final Path portFile;
    private final Path log;

    private Node(Process process, Path portFile, Path log) {
      this.process = process;
      this.portFile = portFile;
      this.log = log;
    }

    static Node start(String name, String namespace, String... settings) throws IOException {
      Path portFile = build.resolve(name + ".port");
      Path log = build.resolve(name + ".log");
      String classPath = build.resolve("classes") + File.pathSeparator + build.resolve("resources")
          + File.pathSeparator + System.getProperty("java.class.path");
      List<String> command = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx384m", "-XX:TieredStopAtLevel=1", "-Dspring.aot.enabled=true",
          "-D" + LoginApplication.PORT_FILE + "=" + portFile, "-cp", classPath,
          LoginApplication.class.getName(), "--server.port=0", "--spring.main.banner-mode=off",
          "--spring.data.redis.url=" + redis.url(), "--lazysession.namespace=" + namespace));
      command.addAll(List.of(settings));
      Process process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(log.toFile()).start();
      return new Node(process, portFile, log);
    }

    /** Waits until the node serves (it wrote its port); fails if it stopped instead. */
    void awaitServing() throws IOException {
      await().atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(200))
          .until(() -> !process.isAlive() || hasPort());
      assertThat(hasPort()).as("node serving; its output:\n%s", log()).isTrue();
    }

    int awaitExit() throws IOException {
      await().atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(200))
          .until(() -> !process.isAlive() || hasPort());
      assertThat(process.isAlive()).as("node stopped; its output:\n%s", log()).isFalse();
      return process.exitValue();
    }

    private boolean hasPort() throws IOException {
      return Files.exists(portFile) && !Files.readString(portFile).isBlank();
    }

    String base() throws IOException {
      return "http://127.0.0.1:" + Files.readString(portFile).trim();
    }

    String log() throws IOException {
      return Files.readString(log);
    }

    @Override
    public void close() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }
}
