package io.lazysession.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.sample.SampleNode.Browser;
import io.lazysession.testing.RedisServerExtension;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Two instances of the shop on one Redis, one browser cookie: the session follows the user. */
class TwoNodesIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @Test
  void signInOnFirst_cartOnSecond_survivesStoppingTheFirst() {
    Browser browser = new Browser();
    try (SampleNode second = SampleNode.start("spring.data.redis.url=" + redis.url())) {
      String csrf;
      try (SampleNode first = SampleNode.start("spring.data.redis.url=" + redis.url())) {
        HttpResponse<String> signedIn = browser.signIn(first, "ada");
        assertThat(signedIn.statusCode()).isEqualTo(200);
        assertThat(signedIn.body()).contains("id=\"signed-in-as\">Ada<");
        csrf = SampleNode.find(signedIn.body(), "name=\"_csrf\" value=\"([^\"]+)\"");

        HttpResponse<String> cart = browser.post(first, "/cart",
            Map.of("productId", "P1001", "quantity", "2", "_csrf", csrf));
        assertThat(cart.statusCode()).isEqualTo(200);
        assertThat(cart.body()).contains("data-product=\"P1001\"");

        HttpResponse<String> onSecond = browser.get(second, "/cart");
        assertThat(onSecond.statusCode()).isEqualTo(200);
        assertThat(onSecond.body()).contains("id=\"signed-in-as\">Ada<");
        assertThat(SampleNode.find(onSecond.body(),
            "data-product=\"P1001\">.*?class=\"num quantity\">(\\d+)<")).isEqualTo("2");
      }

      HttpResponse<String> added = browser.post(second, "/cart",
          Map.of("productId", "P1002", "quantity", "1", "_csrf", csrf));
      assertThat(added.statusCode()).isEqualTo(200);
      assertThat(added.body())
          .contains("id=\"signed-in-as\">Ada<")
          .contains("data-product=\"P1001\"")
          .contains("data-product=\"P1002\"");
    }
  }

  @Test
  void cartAskedOnFirst_signInOnSecond_landsOnTheSavedRequest() {
    Browser browser = new Browser();
    try (SampleNode first = SampleNode.start("spring.data.redis.url=" + redis.url());
        SampleNode second = SampleNode.start("spring.data.redis.url=" + redis.url())) {
      HttpResponse<String> asked = browser.get(first, "/cart");
      assertThat(asked.uri().getPath()).isEqualTo("/signin");

      // Spring Security's saved request (DefaultSavedRequest) and CSRF token, read on the other node
      HttpResponse<String> signedIn = browser.signIn(second, "grace");

      assertThat(signedIn.statusCode()).isEqualTo(200);
      assertThat(signedIn.uri().getPath()).isEqualTo("/cart");
      assertThat(signedIn.body()).contains("id=\"signed-in-as\">Grace<").contains("id=\"cart-empty\"");
    }
  }

  @Test
  void wrongPassword_staysSignedOut() {
    Browser browser = new Browser();
    try (SampleNode node = SampleNode.start("spring.data.redis.url=" + redis.url())) {
      String csrf = SampleNode.find(browser.get(node, "/signin").body(), "name=\"_csrf\" value=\"([^\"]+)\"");

      HttpResponse<String> refused = browser.post(node, "/signin",
          Map.of("username", "ada", "password", "wrong", "_csrf", csrf));

      assertThat(refused.uri().getPath()).isEqualTo("/signin");
      assertThat(refused.body()).contains("id=\"signin-error\"").doesNotContain("id=\"signed-in-as\"");
    }
  }
}
