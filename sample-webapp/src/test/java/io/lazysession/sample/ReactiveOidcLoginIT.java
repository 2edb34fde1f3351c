package io.lazysession.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.LazyReactiveRedisSessionRepository;
import io.lazysession.samplereactive.ReactiveSampleApplication;
import io.lazysession.testing.RedisServerExtension;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * OpenID Connect login of a WebFlux application across two nodes, with default lazysession
 * configuration: the login starts on one node (Spring Security's authorization request and the
 * saved request wait in the WebSession), the provider redirects back to the other (which reads both
 * from Redis and stores the signed-in user's security context), and the first node then serves the
 * signed-in user.
 */
class ReactiveOidcLoginIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private static ConfigurableApplicationContext start(TestIssuer issuer, String redirectUri) {
    List<String> args = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off",
        "--spring.data.redis.url=" + redis.url()));
    issuer.clientProperties(redirectUri).forEach(property -> args.add("--" + property));
    return new SpringApplicationBuilder(ReactiveSampleApplication.class)
        .web(WebApplicationType.REACTIVE)
        .run(args.toArray(String[]::new));
  }

  private static int port(ConfigurableApplicationContext node) {
    return ((WebServerApplicationContext) node).getWebServer().getPort();
  }

  /** A browser: one cookie jar for every node, following redirects. */
  private static final class Browser {
    private final HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager())
        .followRedirects(HttpClient.Redirect.NORMAL).connectTimeout(Duration.ofSeconds(5)).build();

    HttpResponse<String> get(int port, String path) throws Exception {
      return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
          // As a browser's: Spring Security saves only HTML page requests to return to them.
          .header("Accept", "text/html")
          .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  @Test
  void oidcLoginStartedOnFirst_completedOnSecond_signedInOnBoth() throws Exception {
    Browser browser = new Browser();
    try (TestIssuer issuer = TestIssuer.start();
        ConfigurableApplicationContext second =
            start(issuer, "{baseUrl}/login/oauth2/code/{registrationId}");
        ConfigurableApplicationContext first = start(issuer,
            "http://localhost:" + port(second) + "/login/oauth2/code/idp")) {
      assertThat(first.getBean(LazyReactiveRedisSessionRepository.class)).isNotNull();

      HttpResponse<String> landed = browser.get(port(first), "/me");

      assertThat(landed.statusCode()).as("%s %s", landed.uri(), landed.body()).isEqualTo(200);
      assertThat(landed.uri().getPort()).isEqualTo(port(second));
      assertThat(landed.body()).isEqualTo("Ada Lovelace 1");
      HttpResponse<String> onFirst = browser.get(port(first), "/me");
      assertThat(onFirst.uri().getPort()).isEqualTo(port(first));
      assertThat(onFirst.body()).isEqualTo("Ada Lovelace 2");
      assertThat(browser.get(port(second), "/me").body()).isEqualTo("Ada Lovelace 3");
    }
  }
}
