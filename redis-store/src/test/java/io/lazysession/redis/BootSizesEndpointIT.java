package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.bootapp.ShopApplication;
import io.lazysession.testing.RedisServerExtension;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * With Micrometer and the actuator, the {@code lazysessionsizes} endpoint lists the largest
 * attributes saved on this node; {@code lazysession.session-budget.*} reach the repository. The
 * {@code lazysessionformat} endpoint shows the namespace's Redis format and finalizes it.
 */
class BootSizesEndpointIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static String get(HttpClient http, int port, String path) throws Exception {
    HttpResponse<String> response = http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path).isEqualTo(200);
    return response.body();
  }

  @Test
  void endpoint_afterSaves_listsTheLargestAttributes() throws Exception {
    String namespace = TestRedis.uniqueNamespace("sizes");
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
        ShopApplication.class).web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(), "lazysession.namespace=" + namespace,
            "management.endpoints.web.exposure.include=lazysessionsizes",
            "lazysession.session-budget.warn-bytes=100KB")
        .run()) {
      int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
      HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
      get(browser, port, "/basket/add/book");
      get(browser, port, "/visits");

      String body = get(browser, port, "/actuator/lazysessionsizes");

      assertThat(body).contains("\"namespace\":\"" + namespace + "\"", "\"name\":\"basket\"",
          "\"name\":\"visits\"", "\"largestBytes\":");
    }
  }

  @Test
  void formatEndpoint_listsThisNodeAndFinalizesOnPost() throws Exception {
    String namespace = TestRedis.uniqueNamespace("format");
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
        ShopApplication.class).web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(), "lazysession.namespace=" + namespace,
            "management.endpoints.web.exposure.include=lazysessionformat")
        .run()) {
      int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
      HttpClient http = HttpClient.newHttpClient();

      String body = get(http, port, "/actuator/lazysessionformat");
      HttpResponse<String> finalized = http.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + port + "/actuator/lazysessionformat"))
          .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());

      assertThat(body).contains("\"reads\":2", "\"writes\":1", "\"finalized\":1",
          "\"self\":true", "\"live\":true");
      assertThat(finalized.statusCode()).isEqualTo(200);
      assertThat(finalized.body()).contains("\"finalized\":2", "\"writes\":2");
    }
  }
}
