package io.lazysession.sample;

import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** One running instance of the sample application, started in this JVM on a free port. */
final class SampleNode implements AutoCloseable {
  private final ConfigurableApplicationContext context;
  private final int port;

  private SampleNode(ConfigurableApplicationContext context) {
    this.context = context;
    this.port = ((WebServerApplicationContext) context).getWebServer().getPort();
  }

  /** Starts the sample with these extra properties ({@code key=value}), on a random port. */
  static SampleNode start(String... properties) {
    List<String> args = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off"));
    for (String property : properties) {
      args.add("--" + property);
    }
    SpringApplicationBuilder builder = new SpringApplicationBuilder(SampleApplication.class)
        .listeners(new EmbeddedRedisStarter());
    return new SampleNode(builder.run(args.toArray(String[]::new)));
  }

  int port() {
    return port;
  }

  ConfigurableApplicationContext context() {
    return context;
  }

  URI uri(String path) {
    return URI.create("http://localhost:" + port + path);
  }

  @Override
  public void close() {
    context.close();
  }

  /** A browser-like client: one cookie jar, shared by whichever node it talks to. */
  static final class Browser {
    private final HttpClient client = HttpClient.newBuilder()
        .cookieHandler(new CookieManager())
        .followRedirects(HttpClient.Redirect.NORMAL)
        .connectTimeout(Duration.ofSeconds(5))
        .build();

    HttpResponse<String> get(SampleNode node, String path) {
      return send(HttpRequest.newBuilder(node.uri(path)).GET());
    }

    HttpResponse<String> post(SampleNode node, String path, Map<String, String> form) {
      String body = form.entrySet().stream()
          .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
              + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
          .collect(Collectors.joining("&"));
      return send(HttpRequest.newBuilder(node.uri(path))
          .header("Content-Type", "application/x-www-form-urlencoded")
          .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    /**
     * Signs in through Spring Security's form login, as a browser does: the sign-in page gives the
     * CSRF token, the form posts name, password and token. Returns the page it lands on.
     */
    HttpResponse<String> signIn(SampleNode node, String username) {
      String csrf = find(get(node, "/signin").body(), "name=\"_csrf\" value=\"([^\"]+)\"");
      return post(node, "/signin", Map.of("username", username, "password", "password", "_csrf", csrf));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
      try {
        return client.send(request.timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        throw new IllegalStateException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** The first group of the first match of {@code regex} in {@code html}. */
  static String find(String html, String regex) {
    Matcher matcher = Pattern.compile(regex, Pattern.DOTALL).matcher(html);
    if (!matcher.find()) {
      throw new AssertionError("no match for " + regex + " in page:\n" + html);
    }
    return matcher.group(1);
  }
}
