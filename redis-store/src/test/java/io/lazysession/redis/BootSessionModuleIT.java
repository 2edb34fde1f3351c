package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.bootapp.ShopApplication;
import io.lazysession.testing.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.DispatcherType;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Spring Boot's session module (spring-boot-session) applied to lazysession's repository, as it is
 * to Spring Session Data Redis: cookie settings, the filter's order and dispatcher types, and the
 * {@code sessions} actuator endpoint; plus lazysession's own health contribution and timers.
 */
class BootSessionModuleIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static ConfigurableApplicationContext start(String... properties) {
    return new SpringApplicationBuilder(ShopApplication.class)
        .web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(),
            "lazysession.namespace=" + TestRedis.uniqueNamespace("module"))
        .properties(properties)
        .run();
  }

  static HttpResponse<String> send(HttpClient http, ConfigurableApplicationContext context,
      String method, String path) throws Exception {
    int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void cookie_serverServletSessionCookieProperties_areApplied() throws Exception {
    try (ConfigurableApplicationContext context = start(
        "server.servlet.session.cookie.name=SHOPSESSION",
        "server.servlet.session.cookie.path=/shop",
        "server.servlet.session.cookie.same-site=strict",
        "server.servlet.session.cookie.max-age=10m",
        "server.servlet.session.cookie.http-only=true")) {
      HttpResponse<String> response = send(HttpClient.newHttpClient(), context, "GET", "/visits");

      String cookie = response.headers().firstValue("Set-Cookie").orElseThrow();
      assertThat(cookie).startsWith("SHOPSESSION=").contains("Path=/shop")
          .contains("SameSite=Strict").contains("Max-Age=600").contains("HttpOnly");
    }
  }

  @Test
  void filter_springSessionServletProperties_setOrderAndDispatcherTypes() {
    try (ConfigurableApplicationContext context = start(
        "spring.session.servlet.filter-order=-42",
        "spring.session.servlet.filter-dispatcher-types=request,error")) {
      DelegatingFilterProxyRegistrationBean registration =
          context.getBean(DelegatingFilterProxyRegistrationBean.class);

      assertThat(registration.getOrder()).isEqualTo(-42);
      assertThat(registration.determineDispatcherTypes())
          .isEqualTo(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ERROR));
    }
  }

  @Test
  void sessionsEndpoint_listsAndDeletesAUsersSessions() throws Exception {
    try (ConfigurableApplicationContext context = start(
        "management.endpoints.web.exposure.include=sessions")) {
      HttpClient alicesLaptop = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
      HttpClient alicesPhone = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
      HttpClient bob = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
      String laptop = send(alicesLaptop, context, "GET", "/login/alice").body();
      String phone = send(alicesPhone, context, "GET", "/login/alice").body();
      String bobs = send(bob, context, "GET", "/login/bob").body();
      assertThat(send(alicesLaptop, context, "GET", "/visits").body()).isEqualTo("1");

      HttpResponse<String> list = send(HttpClient.newHttpClient(), context, "GET",
          "/actuator/sessions?username=alice");
      assertThat(list.statusCode()).isEqualTo(200);
      assertThat(list.body()).contains(laptop).contains(phone).doesNotContain(bobs);

      HttpResponse<String> one = send(HttpClient.newHttpClient(), context, "GET",
          "/actuator/sessions/" + laptop);
      assertThat(one.statusCode()).isEqualTo(200);
      assertThat(one.body()).contains(laptop).contains("attributeNames");

      HttpResponse<String> delete = send(HttpClient.newHttpClient(), context, "DELETE",
          "/actuator/sessions/" + laptop);
      assertThat(delete.statusCode()).isEqualTo(204);
      assertThat(send(HttpClient.newHttpClient(), context, "GET",
          "/actuator/sessions?username=alice").body()).doesNotContain(laptop).contains(phone);
      assertThat(send(alicesLaptop, context, "GET", "/visits").body())
          .as("the deleted session is gone: a new one starts").isEqualTo("1");
    }
  }

  @Test
  void health_storeConnection_isReportedUp() throws Exception {
    try (ConfigurableApplicationContext context = start(
        "management.endpoints.web.exposure.include=health",
        "management.endpoint.health.show-components=always",
        "management.endpoint.health.show-details=always")) {
      HttpResponse<String> health = send(HttpClient.newHttpClient(), context, "GET",
          "/actuator/health/lazysession");

      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).contains("\"status\":\"UP\"").contains("namespace")
          .contains("\"encryption\":\"off\"");
    }
  }

  @Test
  void healthAndGauge_keysAcceptingUnprotectedValues_sayItWhileItLasts() throws Exception {
    String key = "k1:" + java.util.Base64.getEncoder().encodeToString(new byte[32]);
    try (ConfigurableApplicationContext context = start(
        "management.endpoints.web.exposure.include=health",
        "management.endpoint.health.show-components=always",
        "management.endpoint.health.show-details=always",
        "lazysession.encryption.keys=" + key,
        "lazysession.encryption.accept-unprotected=true")) {
      HttpResponse<String> health = send(HttpClient.newHttpClient(), context, "GET",
          "/actuator/health/lazysession");

      assertThat(health.body()).contains("\"encryption\":\"on, accepting unprotected values\"");
      assertThat(context.getBean(MeterRegistry.class)
          .get("lazysession.encryption.accepts.unprotected").gauge().value()).isEqualTo(1.0);
    }
    try (ConfigurableApplicationContext context = start(
        "management.endpoints.web.exposure.include=health",
        "management.endpoint.health.show-components=always",
        "management.endpoint.health.show-details=always",
        "lazysession.encryption.keys=" + key)) {
      assertThat(send(HttpClient.newHttpClient(), context, "GET", "/actuator/health/lazysession")
          .body()).contains("\"encryption\":\"on\"");
      assertThat(context.getBean(MeterRegistry.class)
          .get("lazysession.encryption.accepts.unprotected").gauge().value()).isZero();
    }
  }

  @Test
  void metrics_findAndSave_areTimed() throws Exception {
    try (ConfigurableApplicationContext context = start()) {
      HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
      send(browser, context, "GET", "/visits");
      send(browser, context, "GET", "/visits");

      MeterRegistry registry = context.getBean(MeterRegistry.class);
      assertThat(registry.get("lazysession.find").tag("outcome", "success").timer().count())
          .isPositive();
      assertThat(registry.get("lazysession.save").tag("outcome", "success").timer().count())
          .isPositive();
      assertThat(registry.get("lazysession.save.bytes").gauge().value()).isPositive();
    }
  }
}
