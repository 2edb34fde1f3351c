package io.lazysession.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import redis.embedded.core.ExecutableProvider;

/**
 * Runs Redis as local processes from the binary inside the embedded-redis jar (Redis 6.2 for Linux and
 * macOS). Used when neither a URL nor a Docker engine is available. Processes are started directly (not
 * through embedded-redis' own wrapper) so the harness can pause, resume and kill them by pid.
 */
final class ProcessLauncher implements ServerLauncher {
  private final File executable;
  private final Path workDir;
  private final List<Process> processes = new CopyOnWriteArrayList<>();
  private final Thread shutdownHook = new Thread(this::close, "redis-process-cleanup");

  ProcessLauncher() {
    try {
      this.executable = ExecutableProvider.newJarResourceProvider().get();
      this.workDir = Files.createTempDirectory("lazysession-redis-");
    } catch (IOException e) {
      throw new IllegalStateException("cannot prepare the embedded Redis binary", e);
    }
    executable.setExecutable(true);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  @Override
  public RedisBackend backend() {
    return RedisBackend.EMBEDDED;
  }

  @Override
  public boolean sharesHostNetwork() {
    return true;
  }

  @Override
  public RedisNode startServer(int port, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(executable.getAbsolutePath());
    command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1",
        "--save", "", "--appendonly", "no"));
    command.addAll(args);
    return start(port, command);
  }

  @Override
  public RedisNode startSentinel(int port, String config) {
    Path file = workDir.resolve("sentinel-" + port + ".conf");
    try {
      Files.writeString(file, config, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write " + file, e);
    }
    return start(port, List.of(executable.getAbsolutePath(), file.toString(), "--sentinel"));
  }

  private RedisNode start(int port, List<String> command) {
    return new ProcessNode(launch(port, command), port, command);
  }

  private Process launch(int port, List<String> command) {
    Path dir = workDir.resolve("node-" + port);
    try {
      Files.createDirectories(dir);
      Process process = new ProcessBuilder(command)
          .directory(dir.toFile())
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
          .start();
      processes.add(process);
      ServerLauncher.awaitPong("127.0.0.1", port, Duration.ofSeconds(20));
      return process;
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + command, e);
    }
  }

  @Override
  public void close() {
    for (Process process : processes) {
      signal(process, "CONT");
      process.destroyForcibly();
      try {
        process.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    processes.clear();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // called from the hook itself
    }
  }

  private static void signal(Process process, String signal) {
    if (!process.isAlive()) {
      return;
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
          .inheritIO().start();
      if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot send SIG" + signal + " to " + process.pid(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private final class ProcessNode implements RedisNode {
    private final int port;
    private final List<String> command;
    private volatile Process process;

    ProcessNode(Process process, int port, List<String> command) {
      this.process = process;
      this.port = port;
      this.command = command;
    }

    @Override
    public String host() {
      return "127.0.0.1";
    }

    @Override
    public int port() {
      return port;
    }

    @Override
    public void pause() {
      signal(process, "STOP");
    }

    @Override
    public void unpause() {
      signal(process, "CONT");
    }

    @Override
    public void kill() {
      process.destroyForcibly();
    }

    @Override
    public boolean canRestart() {
      return true;
    }

    @Override
    public void stop() {
      process.destroyForcibly();
      try {
        process.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void startAgain() {
      process = launch(port, command);
    }

    @Override
    public String toString() {
      return "embedded redis pid " + process.pid() + " on 127.0.0.1:" + port;
    }
  }
}
