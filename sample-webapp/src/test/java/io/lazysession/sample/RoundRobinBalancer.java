package io.lazysession.sample;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A load balancer in front of sample nodes, without sticky sessions: each page or form request goes to
 * the node after the one that served the previous request, so every step of a flow (a post and the
 * redirect that follows it, a sign-in and the provider's callback) runs on a different node than the
 * step before. Static resources ({@code /shop.css}, {@code /favicon.ico}) do not take a turn. The nodes
 * learn the address the browser used from {@code X-Forwarded-*} headers (start them with
 * {@code server.forward-headers-strategy=framework}). Records which node served each request.
 * Thread-safe; only for tests.
 */
final class RoundRobinBalancer implements AutoCloseable {
  /** Headers Java's HTTP client sets itself and refuses from callers, or that describe one hop. */
  private static final Set<String> HOP_HEADERS = Set.of("host", "connection", "content-length", "expect",
      "upgrade", "keep-alive", "transfer-encoding", "te", "trailer", "proxy-connection");

  /** One request the balancer passed on: its method, path and query, and the port of the node. */
  record Hop(String method, String target, int nodePort) {}

  private final HttpServer server;
  private final List<SampleNode> nodes;
  private final AtomicInteger turn = new AtomicInteger();
  private final List<Hop> hops = new CopyOnWriteArrayList<>();
  private final HttpClient client = HttpClient.newBuilder()
      .followRedirects(HttpClient.Redirect.NEVER)
      .connectTimeout(Duration.ofSeconds(5))
      .build();

  private RoundRobinBalancer(HttpServer server, List<SampleNode> nodes) {
    this.server = server;
    this.nodes = List.copyOf(nodes);
  }

  static RoundRobinBalancer start(SampleNode... nodes) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    RoundRobinBalancer balancer = new RoundRobinBalancer(server, List.of(nodes));
    server.createContext("/", balancer::forward);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
    return balancer;
  }

  int port() {
    return server.getAddress().getPort();
  }

  /** The address the browser uses, without a trailing slash. */
  String uri() {
    return "http://localhost:" + port();
  }

  /** The requests passed on so far, oldest first. */
  List<Hop> hops() {
    return List.copyOf(hops);
  }

  /** The last request with this method whose target starts with {@code prefix}. */
  Hop last(String method, String prefix) {
    for (int i = hops.size() - 1; i >= 0; i--) {
      Hop hop = hops.get(i);
      if (hop.method().equals(method) && hop.target().startsWith(prefix)) {
        return hop;
      }
    }
    throw new AssertionError("no " + method + " " + prefix + " among " + hops);
  }

  private void forward(HttpExchange exchange) throws IOException {
    try (exchange) {
      URI requested = exchange.getRequestURI();
      String target = requested.getRawPath() + (requested.getRawQuery() == null ? "" : "?" + requested.getRawQuery());
      SampleNode node = isStatic(requested.getPath()) ? nodes.get(0)
          : nodes.get(Math.floorMod(turn.getAndIncrement(), nodes.size()));
      hops.add(new Hop(exchange.getRequestMethod(), target, node.port()));

      byte[] body = exchange.getRequestBody().readAllBytes();
      HttpRequest.Builder request = HttpRequest.newBuilder(node.uri(target))
          .timeout(Duration.ofSeconds(30))
          .method(exchange.getRequestMethod(), body.length == 0
              ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
      for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
        if (!HOP_HEADERS.contains(header.getKey().toLowerCase(Locale.ROOT))) {
          header.getValue().forEach(value -> request.header(header.getKey(), value));
        }
      }
      request.header("X-Forwarded-Host", "localhost:" + port())
          .header("X-Forwarded-Port", String.valueOf(port()))
          .header("X-Forwarded-Proto", "http");

      HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      response.headers().map().forEach((name, values) -> {
        if (!HOP_HEADERS.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
          exchange.getResponseHeaders().put(name, values);
        }
      });
      byte[] answer = response.body();
      boolean noBody = answer.length == 0 || response.statusCode() == 204 || response.statusCode() == 304
          || exchange.getRequestMethod().equals("HEAD");
      exchange.sendResponseHeaders(response.statusCode(), noBody ? -1 : answer.length);
      if (!noBody) {
        exchange.getResponseBody().write(answer);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static boolean isStatic(String path) {
    return path.equals("/favicon.ico") || path.endsWith(".css") || path.endsWith(".js")
        || path.endsWith(".png");
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
