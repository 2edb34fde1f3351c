package io.lazysession.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

/**
 * Runs Redis in containers through Testcontainers.
 *
 * <p>With host networking each container binds its own port on 127.0.0.1, so replicas, Sentinels and
 * Cluster nodes reach each other exactly as local processes would. With the default bridge network
 * (Docker Desktop) each container listens on 6379 behind a mapped port; nodes share a Docker network
 * where the node started for logical port {@code P} answers as {@code redis-P:6379}, which is enough for
 * a replica but not for Sentinel or Cluster (they announce addresses the host cannot reach).
 */
final class ContainerLauncher implements ServerLauncher {
  private static final int REDIS_PORT = 6379;

  private final DockerImageName image;
  private final boolean hostNetwork;
  private final List<GenericContainer<?>> containers = new CopyOnWriteArrayList<>();
  private Network network;

  ContainerLauncher(String image, boolean hostNetwork) {
    this.image = DockerImageName.parse(image).asCompatibleSubstituteFor("redis");
    this.hostNetwork = hostNetwork;
  }

  private static final java.util.Map<String, Boolean> IMAGES = new java.util.concurrent.ConcurrentHashMap<>();

  static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Whether the image is present or can be pulled within a minute; asked once per image and JVM, so a
   * machine that cannot reach a registry does not wait for a pull in every test class.
   */
  static boolean imageAvailable(String image) {
    return IMAGES.computeIfAbsent(image, name -> {
      if (imagePresent(name)) {
        return true;
      }
      try {
        return DockerClientFactory.instance().client().pullImageCmd(name)
            .exec(new com.github.dockerjava.api.async.ResultCallback.Adapter<>())
            .awaitCompletion(60, java.util.concurrent.TimeUnit.SECONDS)
            && imagePresent(name);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      } catch (RuntimeException e) {
        return false;
      }
    });
  }

  private static boolean imagePresent(String name) {
    try {
      DockerClientFactory.instance().client().inspectImageCmd(name).exec();
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  @Override
  public RedisBackend backend() {
    return RedisBackend.TESTCONTAINERS;
  }

  @Override
  public boolean sharesHostNetwork() {
    return hostNetwork;
  }

  @Override
  public RedisNode startServer(int port, List<String> args) {
    List<String> command = new ArrayList<>(List.of("redis-server"));
    if (hostNetwork) {
      command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1"));
      command.addAll(List.of("--save", "", "--appendonly", "no"));
      command.addAll(args);
    } else {
      command.addAll(List.of("--save", "", "--appendonly", "no"));
      command.addAll(bridgeArgs(args));
    }
    GenericContainer<?> container = newContainer(port)
        .withCommand(command.toArray(String[]::new))
        .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*", 1)
            .withStartupTimeout(Duration.ofSeconds(60)));
    return start(container, port);
  }

  @Override
  public RedisNode startSentinel(int port, String config) {
    if (!hostNetwork) {
      throw new IllegalStateException("Sentinel needs lazysession.test.redis.network=host");
    }
    String path = "/tmp/sentinel-" + port + ".conf";
    GenericContainer<?> container = newContainer(port)
        .withCopyToContainer(Transferable.of(config, 0666), path)
        .withCommand("redis-server", path, "--sentinel")
        .waitingFor(Wait.forLogMessage(".*\\+monitor master.*", 1)
            .withStartupTimeout(Duration.ofSeconds(60)));
    return start(container, port);
  }

  @SuppressWarnings("resource")
  private GenericContainer<?> newContainer(int port) {
    GenericContainer<?> container = new GenericContainer<>(image);
    if (hostNetwork) {
      container.withNetworkMode("host");
    } else {
      synchronized (this) {
        if (network == null) {
          network = Network.newNetwork();
        }
      }
      container.withNetwork(network).withNetworkAliases("redis-" + port).withExposedPorts(REDIS_PORT);
    }
    return container;
  }

  private RedisNode start(GenericContainer<?> container, int port) {
    container.start();
    containers.add(container);
    ContainerNode node = hostNetwork
        ? new ContainerNode(container, "127.0.0.1", port, true)
        : new ContainerNode(container, container.getHost(), container.getMappedPort(REDIS_PORT),
            false);
    ServerLauncher.awaitPong(node.host(), node.port(), Duration.ofSeconds(20));
    return node;
  }

  /** Rewrites {@code --replicaof 127.0.0.1 P} to the container alias of the node for port P. */
  private static List<String> bridgeArgs(List<String> args) {
    List<String> rewritten = new ArrayList<>(args);
    int i = rewritten.indexOf("--replicaof");
    if (i >= 0 && i + 2 < rewritten.size()) {
      rewritten.set(i + 1, "redis-" + rewritten.get(i + 2));
      rewritten.set(i + 2, Integer.toString(REDIS_PORT));
    }
    return rewritten;
  }

  @Override
  public void close() {
    for (GenericContainer<?> container : containers) {
      try {
        container.stop();
      } catch (RuntimeException e) {
        // already killed by a fault-injection test
      }
    }
    containers.clear();
    if (network != null) {
      network.close();
      network = null;
    }
  }

  /** @param samePortAfterRestart whether a restarted container listens where it did (host network) */
  private record ContainerNode(GenericContainer<?> container, String host, int port,
      boolean samePortAfterRestart) implements RedisNode {
    @Override
    public boolean canRestart() {
      return samePortAfterRestart;
    }

    @Override
    public void stop() {
      DockerClientFactory.instance().client().stopContainerCmd(container.getContainerId())
          .withTimeout(0).exec();
    }

    @Override
    public void startAgain() {
      DockerClientFactory.instance().client().startContainerCmd(container.getContainerId()).exec();
      ServerLauncher.awaitPong(host, port, Duration.ofSeconds(20));
    }

    @Override
    public void pause() {
      DockerClientFactory.instance().client().pauseContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public void unpause() {
      DockerClientFactory.instance().client().unpauseContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public void kill() {
      DockerClientFactory.instance().client().killContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public String toString() {
      return "container " + container.getDockerImageName() + " "
          + container.getContainerId().substring(0, 12) + " on " + host + ":" + port;
    }
  }
}
