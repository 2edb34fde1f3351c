package io.lazysession.testing;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives a test class real Redis servers: standalone, primary + replica, primary + replica + three
 * Sentinels, or a Cluster of three primaries with a replica each.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension redis = RedisServerExtension.standalone();
 * }</pre>
 *
 * <p>Where the servers come from, in this order (see {@link HarnessConfig} for the settings): an explicit
 * URL ({@code lazysession.test.redis.url}, standalone only); else containers through Testcontainers when
 * a Docker engine answers; else Redis processes from the embedded-redis jar. The choice is logged, with
 * the version the server reports. The servers start before the first test of the class and are removed
 * after the last one.
 *
 * <p>The embedded binary is Redis 6.2, the containers 7.0 or later: a test of a feature some supported
 * versions lack decides by {@link #version()}, or skips through {@link #assumeAtLeast}, which logs why.
 *
 * <p>Register it on a static field. Not thread-safe during start and stop; the accessors are.
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {
  /** The master name that the Sentinels of {@link #sentinel()} monitor. */
  public static final String SENTINEL_MASTER = "mymaster";

  private static final Logger log = LoggerFactory.getLogger(RedisServerExtension.class);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private enum Topology { STANDALONE, PRIMARY_REPLICA, SENTINEL, CLUSTER }

  private final Topology topology;
  private @Nullable ServerLauncher launcher;
  private @Nullable RedisBackend backend;
  private volatile @Nullable RedisVersion version;
  private final List<RedisNode> primaries = new ArrayList<>();
  private final List<RedisNode> replicas = new ArrayList<>();
  private final List<RedisNode> sentinels = new ArrayList<>();
  private final List<String> serverArgs = new ArrayList<>();

  private RedisServerExtension(Topology topology) {
    this.topology = topology;
  }

  /**
   * Extra arguments for every data server of the standalone, primary + replica and Sentinel
   * topologies (not the Sentinels), e.g. {@code "--enable-debug-command", "local"} for a test that
   * sends {@code DEBUG} (Redis 7 refuses it by default). Call before the servers start.
   */
  public RedisServerExtension withServerArgs(String... args) {
    serverArgs.addAll(List.of(args));
    return this;
  }

  private List<String> serverArgs(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(serverArgs);
    return all;
  }

  /** One Redis server. */
  public static RedisServerExtension standalone() {
    return new RedisServerExtension(Topology.STANDALONE);
  }

  /** A primary and one replica of it. */
  public static RedisServerExtension primaryReplica() {
    return new RedisServerExtension(Topology.PRIMARY_REPLICA);
  }

  /** A primary, one replica and three Sentinels (quorum 2) monitoring {@link #SENTINEL_MASTER}. */
  public static RedisServerExtension sentinel() {
    return new RedisServerExtension(Topology.SENTINEL);
  }

  /** A Redis Cluster of three primaries, each with one replica. */
  public static RedisServerExtension cluster() {
    return new RedisServerExtension(Topology.CLUSTER);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    HarnessConfig config = HarnessConfig.load();
    String testClass = context.getRequiredTestClass().getSimpleName();
    if (config.url() != null && !config.mode().equals("container")
        && !config.mode().equals("embedded")) {
      backend = RedisBackend.URL;
      if (topology != Topology.STANDALONE) {
        skip(testClass, "the " + topology + " topology cannot be built on an explicit "
            + "lazysession.test.redis.url; use mode container or embedded");
      }
      RedisURI uri = RedisURI.create(config.url());
      primaries.add(new UrlNode(uri));
      log.info("lazysession test Redis for {}: explicit URL {} ({}), Redis {}", testClass,
          uri.getHost() + ":" + uri.getPort(), topology, version());
      return;
    }
    launcher = chooseLauncher(config);
    backend = launcher.backend();
    if (!launcher.sharesHostNetwork()
        && (topology == Topology.SENTINEL || topology == Topology.CLUSTER)) {
      skip(testClass, "the " + topology + " topology needs lazysession.test.redis.network=host "
          + "(containers on the bridge network announce addresses the host cannot reach)");
    }
    long started = System.nanoTime();
    switch (topology) {
      case STANDALONE -> primaries.add(launcher.startServer(ServerLauncher.freePort(false),
          serverArgs()));
      case PRIMARY_REPLICA -> startPrimaryAndReplica();
      case SENTINEL -> {
        startPrimaryAndReplica();
        startSentinels();
      }
      case CLUSTER -> startCluster();
    }
    log.info("lazysession test Redis for {}: {} via {}, Redis {}, in {} ms: {}", testClass, topology,
        backend, version(), (System.nanoTime() - started) / 1_000_000, allNodes());
  }

  private static ServerLauncher chooseLauncher(HarnessConfig config) {
    switch (config.mode()) {
      case "container" -> {
        if (!ContainerLauncher.dockerAvailable()) {
          throw new IllegalStateException("lazysession.test.redis.mode=container but no Docker "
              + "engine answers; start one or use mode auto/embedded");
        }
        if (!ContainerLauncher.imageAvailable(config.image())) {
          throw new IllegalStateException("lazysession.test.redis.mode=container but the image "
              + config.image() + " is not present and cannot be pulled; set "
              + "lazysession.test.redis.image to a local image or use mode auto/embedded");
        }
        return new ContainerLauncher(config.image(), config.hostNetwork());
      }
      case "embedded" -> {
        return new ProcessLauncher();
      }
      case "url" -> throw new IllegalStateException(
          "lazysession.test.redis.mode=url needs lazysession.test.redis.url");
      default -> {
        if (!ContainerLauncher.dockerAvailable()) {
          log.info("no Docker engine answers: falling back to the embedded Redis binary");
          return new ProcessLauncher();
        }
        if (!ContainerLauncher.imageAvailable(config.image())) {
          log.warn("the image {} is not present and cannot be pulled: falling back to the embedded "
              + "Redis binary (set lazysession.test.redis.image to a local image to use Docker)",
              config.image());
          return new ProcessLauncher();
        }
        return new ContainerLauncher(config.image(), config.hostNetwork());
      }
    }
  }

  private void startPrimaryAndReplica() {
    int primaryPort = ServerLauncher.freePort(false);
    RedisNode primary = launcher().startServer(primaryPort, serverArgs());
    primaries.add(primary);
    RedisNode replica = launcher().startServer(ServerLauncher.freePort(false),
        serverArgs("--replicaof", "127.0.0.1", Integer.toString(primaryPort)));
    replicas.add(replica);
    await("replica " + replica + " in sync", () -> info(replica, "replication"),
        info -> info.contains("master_link_status:up"));
  }

  private void startSentinels() {
    RedisNode primary = primaries.get(0);
    for (int i = 0; i < 3; i++) {
      int port = ServerLauncher.freePort(false);
      String config = String.join("\n",
          "port " + port,
          "bind 127.0.0.1",
          "sentinel monitor " + SENTINEL_MASTER + " 127.0.0.1 " + primary.port() + " 2",
          "sentinel down-after-milliseconds " + SENTINEL_MASTER + " 1000",
          "sentinel failover-timeout " + SENTINEL_MASTER + " 5000",
          "sentinel parallel-syncs " + SENTINEL_MASTER + " 1",
          "");
      sentinels.add(launcher().startSentinel(port, config));
    }
    for (RedisNode sentinel : sentinels) {
      await("sentinel " + sentinel + " sees its peers and the replica", () -> sentinelView(sentinel),
          master -> "2".equals(master.get("num-other-sentinels"))
              && "1".equals(master.get("num-slaves")));
    }
  }

  private void startCluster() {
    List<RedisNode> nodes = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      int port = ServerLauncher.freePort(true);
      nodes.add(launcher().startServer(port, List.of("--cluster-enabled", "yes",
          "--cluster-config-file", "nodes-" + port + ".conf", "--cluster-node-timeout", "2000")));
    }
    List<String> ids = nodes.stream().map(node -> sync(node, RedisCommands::clusterMyId)).toList();
    for (RedisNode node : nodes.subList(1, nodes.size())) {
      sync(nodes.get(0), redis -> redis.clusterMeet("127.0.0.1", node.port()));
    }
    for (int i = 0; i < 3; i++) {
      int from = i * 16384 / 3;
      int to = (i + 1) * 16384 / 3;
      int[] slots = IntStream.range(from, to).toArray();
      sync(nodes.get(i), redis -> redis.clusterAddSlots(slots));
      primaries.add(nodes.get(i));
    }
    for (RedisNode node : nodes) {
      await("node " + node + " knows all six nodes", () -> sync(node, RedisCommands::clusterNodes),
          view -> view.lines().count() == 6 && !view.contains("handshake"));
    }
    for (int i = 3; i < 6; i++) {
      String primaryId = ids.get(i - 3);
      RedisNode replica = nodes.get(i);
      sync(replica, redis -> redis.clusterReplicate(primaryId));
      replicas.add(replica);
    }
    for (RedisNode node : nodes) {
      await("node " + node + " sees cluster_state:ok with three replicas",
          () -> sync(node, RedisCommands::clusterInfo) + sync(node, RedisCommands::clusterNodes),
          view -> view.contains("cluster_state:ok")
              && view.lines().filter(line -> line.contains("slave")).count() == 3);
    }
    for (RedisNode replica : replicas) {
      await("replica " + replica + " in sync", () -> info(replica, "replication"),
          info -> info.contains("master_link_status:up"));
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (launcher != null) {
      launcher.close();
    }
    primaries.clear();
    replicas.clear();
    sentinels.clear();
    version = null;
  }

  /** Where the servers came from. */
  public RedisBackend backend() {
    return requireStarted(backend);
  }

  /** The primary (for a Cluster: the first of the three primaries). */
  public RedisNode primary() {
    return requireStarted(primaries.isEmpty() ? null : primaries.get(0));
  }

  /** The primaries: one, or three for a Cluster. */
  public List<RedisNode> primaries() {
    return List.copyOf(primaries);
  }

  public List<RedisNode> replicas() {
    return List.copyOf(replicas);
  }

  public List<RedisNode> sentinels() {
    return List.copyOf(sentinels);
  }

  /**
   * The data node the first Sentinel names as primary now: after a failover, the replica (of the
   * Sentinel topology, whose primary and replica swap roles).
   */
  public RedisNode namedPrimary() {
    RedisClient client = RedisClient.create();
    try (StatefulRedisSentinelConnection<String, String> connection =
        client.connectSentinel(sentinels().get(0).uri())) {
      java.net.InetSocketAddress address = (java.net.InetSocketAddress) connection.sync()
          .getMasterAddrByName(SENTINEL_MASTER);
      for (RedisNode node : replicas) {
        if (node.port() == address.getPort()) {
          return node;
        }
      }
      return primary();
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(10));
    }
  }

  /** Every data node of a Cluster (primaries, then replicas); empty for other topologies. */
  public List<RedisNode> clusterNodes() {
    if (topology != Topology.CLUSTER) {
      return List.of();
    }
    List<RedisNode> nodes = new ArrayList<>(primaries);
    nodes.addAll(replicas);
    return nodes;
  }

  /** A URI of the primary. */
  public RedisURI uri() {
    return primary().uri();
  }

  /** {@code redis://host:port} of the primary, as {@code spring.data.redis.url} takes it. */
  public String url() {
    RedisNode primary = primary();
    return "redis://" + primary.host() + ":" + primary.port();
  }

  /** A Sentinel URI naming every Sentinel and {@link #SENTINEL_MASTER}. */
  public RedisURI sentinelUri() {
    if (sentinels.isEmpty()) {
      throw new IllegalStateException("this extension has no Sentinels; use sentinel()");
    }
    RedisURI.Builder builder = RedisURI.Builder.sentinel(sentinels.get(0).host(),
        sentinels.get(0).port(), SENTINEL_MASTER);
    for (RedisNode sentinel : sentinels.subList(1, sentinels.size())) {
      builder.withSentinel(sentinel.host(), sentinel.port());
    }
    return builder.build();
  }

  /**
   * The version the primary reports ({@code redis_version} in {@code INFO server}): what a test asks
   * before it uses a feature some supported versions lack, rather than where the server came from.
   */
  public RedisVersion version() {
    RedisVersion known = version;
    if (known == null) {
      known = RedisVersion.parse(info(primary(), "server"));
      version = known;
    }
    return known;
  }

  /**
   * Skips the calling test when the primary is older than {@code major.minor}, the version that
   * brought {@code feature} (e.g. "Redis functions (FCALL)"); the reason is logged and given to JUnit,
   * so that the skip shows in the log and the test report.
   */
  public void assumeAtLeast(int major, int minor, String feature) {
    RedisVersion server = version();
    if (!server.atLeast(major, minor)) {
      skip(feature + " need Redis " + major + "." + minor + " or later; the server reports "
          + server);
    }
  }

  /**
   * Skips the calling test when the primary is {@code major.minor} or later: for a test of how the
   * store works where a feature is missing ({@code missing}, e.g. "Redis functions (FCALL)").
   */
  public void assumeBefore(int major, int minor, String missing) {
    RedisVersion server = version();
    if (server.atLeast(major, minor)) {
      skip("tests a server without " + missing + ", which Redis " + major + "." + minor
          + " and later have; the server reports " + server);
    }
  }

  /** Skips the calling test when the servers cannot be paused or killed (an explicit URL). */
  public void assumeFaultInjection() {
    if (backend() == RedisBackend.URL) {
      skip("fault injection needs servers the harness started (not lazysession.test.redis.url)");
    }
  }

  /** Skips the test that called into this class, logging the reason. */
  private static void skip(String reason) {
    skip(StackWalker.getInstance().walk(frames -> frames
        .filter(frame -> !frame.getClassName().equals(RedisServerExtension.class.getName()))
        .findFirst()
        .map(frame -> frame.getClassName().substring(frame.getClassName().lastIndexOf('.') + 1)
            + "." + frame.getMethodName().replaceAll("^lambda\\$(.*)\\$\\d+$", "$1"))
        .orElse("a test")), reason);
  }

  /**
   * Skips {@code test} (a test, or a whole class from {@link #beforeAll}): logged, and the reason
   * given to JUnit, so that a skip shows both in the build log and in the test report.
   */
  private static void skip(String test, String reason) {
    log.info("skipping {}: {}", test, reason);
    Assumptions.abort(reason);
  }

  /** Runs a command on one node through a short-lived connection. */
  public <T> T sync(RedisNode node, Function<RedisCommands<String, String>, T> command) {
    RedisClient client = RedisClient.create();
    try (StatefulRedisConnection<String, String> connection = client.connect(node.uri())) {
      connection.setTimeout(Duration.ofSeconds(5));
      return command.apply(connection.sync());
    } finally {
      shutdownBounded(client);
    }
  }

  /**
   * Shuts a short-lived client down, waiting at most 10 s: Lettuce's own {@code shutdown} waits
   * without a bound for its termination future, which was seen never to complete once every event
   * loop thread had ended, hanging a whole build in a cluster's start.
   */
  private static void shutdownBounded(RedisClient client) {
    try {
      client.shutdownAsync(0, 2, java.util.concurrent.TimeUnit.SECONDS)
          .get(10, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
      log.warn("a test client did not shut down in time; going on: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private String info(RedisNode node, String section) {
    return sync(node, redis -> redis.info(section));
  }

  private Map<String, String> sentinelView(RedisNode sentinel) {
    RedisClient client = RedisClient.create();
    try (StatefulRedisSentinelConnection<String, String> connection =
        client.connectSentinel(sentinel.uri())) {
      return connection.sync().master(SENTINEL_MASTER);
    } finally {
      shutdownBounded(client);
    }
  }

  private static <T> void await(String what, java.util.function.Supplier<T> probe,
      Predicate<T> ready) {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (ready.test(probe.get())) {
          return;
        }
      } catch (RuntimeException e) {
        last = e;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + what, e);
      }
    }
    throw new IllegalStateException("timed out after " + READY_TIMEOUT + " waiting for " + what, last);
  }

  private ServerLauncher launcher() {
    return requireStarted(launcher);
  }

  private static <T> T requireStarted(@Nullable T value) {
    if (value == null) {
      throw new IllegalStateException("the Redis servers are not started: register "
          + "RedisServerExtension on a static field with @RegisterExtension");
    }
    return value;
  }

  private record UrlNode(RedisURI uri) implements RedisNode {
    @Override
    public String host() {
      return uri.getHost();
    }

    @Override
    public int port() {
      return uri.getPort();
    }

    @Override
    public void pause() {
      throw new UnsupportedOperationException("cannot pause a server given by URL");
    }

    @Override
    public void unpause() {
      throw new UnsupportedOperationException("cannot unpause a server given by URL");
    }

    @Override
    public void kill() {
      throw new UnsupportedOperationException("cannot kill a server given by URL");
    }
  }

  private List<RedisNode> allNodes() {
    List<RedisNode> all = new ArrayList<>(primaries);
    all.addAll(replicas);
    all.addAll(sentinels);
    return all;
  }
}
