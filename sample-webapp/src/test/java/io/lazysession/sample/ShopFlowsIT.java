package io.lazysession.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
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
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shop's Spring flows over plain HTTP (what {@code BrowserIT} does in Chromium, for machines without
 * one): behind a {@link RoundRobinBalancer}, so each step runs on the other node of two on one Redis,
 * with lazysession's default settings — a flash message after adding to the cart, the language kept by
 * {@code SessionLocaleResolver}, the checkout's session-scoped bean, and an OpenID Connect sign-in the
 * provider refuses ({@code invalid_grant}), then one it accepts.
 */
class ShopFlowsIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private final HttpClient client = HttpClient.newBuilder()
      .cookieHandler(new CookieManager())
      .followRedirects(HttpClient.Redirect.NORMAL)
      .connectTimeout(Duration.ofSeconds(5))
      .build();

  @Test
  void flashLocaleAndCheckout_eachStepOnTheOtherNode_workWithDefaultSettings() throws Exception {
    try (TestIssuer issuer = TestIssuer.start(); Shop shop = Shop.start(issuer)) {
      String signIn = get(shop, "/signin").body();
      String signedIn = post(shop, "/signin", Map.of("username", "alan", "password", "password",
          "_csrf", csrf(signIn))).body();
      assertThat(signedIn).contains("id=\"signed-in-as\">Alan<");

      assertThat(get(shop, "/?lang=de").body()).contains("id=\"catalog-title\">Katalog<");
      HttpResponse<String> catalog = get(shop, "/");
      assertThat(catalog.body()).contains("id=\"catalog-title\">Katalog<");
      assertThat(shop.balancer.last("GET", "/").nodePort())
          .isNotEqualTo(shop.balancer.last("GET", "/?lang=de").nodePort());

      String cart = post(shop, "/cart", Map.of("productId", "P1001", "quantity", "3",
          "_csrf", csrf(catalog.body()))).body();
      assertThat(cart).contains("id=\"flash-added\" class=\"notice\">3 × Ethiopia Yirgacheffe beans 1kg in den "
          + "Warenkorb gelegt.<");
      assertThat(shop.balancer.last("GET", "/cart").nodePort())
          .isNotEqualTo(shop.balancer.last("POST", "/cart").nodePort());
      assertThat(get(shop, "/cart").body()).contains("data-product=\"P1001\"").doesNotContain("flash-added");

      String form = get(shop, "/checkout?lang=en").body();
      String review = post(shop, "/checkout", Map.of("recipient", "Alan Turing", "address", "2 Adlington Road",
          "delivery", "express", "_csrf", csrf(form))).body();
      assertThat(review).contains("id=\"review-recipient\">Alan Turing<")
          .contains("id=\"review-address\">2 Adlington Road<")
          .contains("data-delivery=\"express\"");
      assertThat(shop.balancer.last("GET", "/checkout/review").nodePort())
          .isNotEqualTo(shop.balancer.last("POST", "/checkout").nodePort());
      assertThat(get(shop, "/checkout").body()).contains("value=\"Alan Turing\"");
    }
  }

  @Test
  void oidcSignIn_providerRefusesTheCode_signInPageSaysSoOnTheOtherNode() throws Exception {
    try (TestIssuer issuer = TestIssuer.start(); Shop shop = Shop.start(issuer)) {
      issuer.refuseCodes(true);

      HttpResponse<String> refused = get(shop, "/oauth2/authorization/idp");

      assertThat(refused.statusCode()).isEqualTo(200);
      assertThat(refused.uri().getPath() + "?" + refused.uri().getQuery()).isEqualTo("/signin?error");
      assertThat(refused.body())
          .contains("id=\"signin-idp-error\" class=\"error\">Signing in with the identity provider failed "
              + "(invalid_grant). Try again, or sign in with your name and password.<")
          .doesNotContain("id=\"signed-in-as\"");
      assertThat(shop.balancer.last("GET", "/signin?error").nodePort())
          .isNotEqualTo(shop.balancer.last("GET", "/login/oauth2/code/idp").nodePort());

      issuer.refuseCodes(false);
      assertThat(get(shop, "/oauth2/authorization/idp").body()).contains("id=\"signed-in-as\">Ada<");
    }
  }

  private static String csrf(String page) {
    return SampleNode.find(page, "name=\"_csrf\" value=\"([^\"]+)\"");
  }

  private HttpResponse<String> get(Shop shop, String path) throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(URI.create(shop.balancer.uri() + path))
        .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(Shop shop, String path, Map<String, String> form)
      throws IOException, InterruptedException {
    String body = form.entrySet().stream()
        .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
            + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
        .collect(Collectors.joining("&"));
    return client.send(HttpRequest.newBuilder(URI.create(shop.balancer.uri() + path))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Two sample nodes on the test Redis, configured for the issuer, behind a round-robin balancer. */
  private record Shop(SampleNode first, SampleNode second, RoundRobinBalancer balancer) implements AutoCloseable {
    static Shop start(TestIssuer issuer) throws IOException {
      List<String> properties = new ArrayList<>(
          issuer.clientProperties("{baseUrl}/login/oauth2/code/{registrationId}"));
      properties.add("spring.data.redis.url=" + redis.url());
      properties.add("server.forward-headers-strategy=framework");
      SampleNode first = SampleNode.start(properties.toArray(String[]::new));
      SampleNode second = SampleNode.start(properties.toArray(String[]::new));
      return new Shop(first, second, RoundRobinBalancer.start(first, second));
    }

    @Override
    public void close() {
      balancer.close();
      first.close();
      second.close();
    }
  }
}
