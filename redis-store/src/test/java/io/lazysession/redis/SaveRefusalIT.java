package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.refusalapp.RefusalApplication;
import io.lazysession.testing.RedisServerExtension;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A save refused because a value's class is outside the allow-list, in a Spring Boot servlet app
 * with an error page of its own: the refusal is logged once, one WARN line naming the attribute,
 * the class and the property to set (the stack trace only at DEBUG), and the user gets the app's
 * error page, not the container's bare 500 (the error dispatch does not save the session again).
 */
@ExtendWith(OutputCaptureExtension.class)
class SaveRefusalIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static ConfigurableApplicationContext start() {
    return new SpringApplicationBuilder(RefusalApplication.class).web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(),
            "lazysession.namespace=" + TestRedis.uniqueNamespace("refusal"),
            "spring.web.resources.static-locations=classpath:/refusalapp/")
        .run();
  }

  static HttpResponse<String> get(HttpClient browser, ConfigurableApplicationContext node,
      String path) throws Exception {
    return browser.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + node.getEnvironment().getProperty("local.server.port") + path))
        .header("Accept", "text/html").build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void save_classOutsideTheAllowList_logsOneWarningAndRendersTheErrorPage(CapturedOutput output)
      throws Exception {
    try (ConfigurableApplicationContext node = start()) {
      HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
      int before = output.getAll().length();

      HttpResponse<String> refused = get(browser, node, "/refused");

      assertThat(refused.statusCode()).isEqualTo(500);
      assertThat(refused.body()).as("the app's error page").contains(RefusalApplication.ERROR_PAGE)
          .doesNotContain("HTTP Status 500");
      String logged = output.getAll().substring(before);
      List<String> lines = logged.lines()
          .filter(line -> line.contains("ch.qos.logback.classic.Level")).toList();
      assertThat(lines).as("one line for one refusal, in:\n%s", logged).hasSize(1);
      assertThat(lines.get(0)).contains("WARN").contains("attribute 'level'")
          .contains("class ch.qos.logback.classic.Level is outside the allow-list")
          .contains("lazysession.allowed-packages=ch.qos.logback.classic");
      assertThat(logged).as("no stack trace above DEBUG").doesNotContain("\tat ");
      assertThat(get(browser, node, "/visits").body()).as("the next request is served").isEqualTo("1");
    }
  }
}
