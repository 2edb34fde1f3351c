package io.lazysession.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Starts single Redis servers and Sentinels for one backend. Topologies are assembled from these by
 * {@link RedisServerExtension}, so every backend gets the same primary/replica/Sentinel/Cluster code.
 */
interface ServerLauncher extends AutoCloseable {

  RedisBackend backend();

  /** Whether nodes can reach each other on 127.0.0.1 (needed for Sentinel and Cluster). */
  boolean sharesHostNetwork();

  /**
   * Starts {@code redis-server} listening on {@code port} with the extra arguments, and returns once it
   * accepts connections.
   */
  RedisNode startServer(int port, List<String> args);

  /** Starts a Sentinel with this configuration file content on {@code port}. */
  RedisNode startSentinel(int port, String config);

  @Override
  void close();

  /** A free port on 127.0.0.1; for Cluster nodes the bus port (port + 10000) is free too. */
  static int freePort(boolean withBusPort) {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(20_000, 40_000);
      if (isFree(port) && (!withBusPort || isFree(port + 10_000))) {
        return port;
      }
    }
    throw new IllegalStateException("no free port found on 127.0.0.1 between 20000 and 40000");
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress("127.0.0.1", port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Waits until a server answers PING on the port, or fails after the timeout. */
  static void awaitPong(String host, int port, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    IOException last = null;
    while (System.nanoTime() < deadline) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), 500);
        socket.setSoTimeout(500);
        OutputStream out = socket.getOutputStream();
        out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        byte[] reply = new byte[7];
        int read = in.read(reply);
        if (read > 0 && new String(reply, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG")) {
          return;
        }
      } catch (IOException e) {
        last = e;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for Redis on port " + port, e);
      }
    }
    throw new IllegalStateException(
        "Redis on " + host + ":" + port + " did not answer PING within " + timeout, last);
  }
}
