package io.lazysession.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.sample.SampleNode.Browser;
import io.lazysession.testing.RedisServerExtension;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * OpenID Connect login against an in-process provider ({@link TestIssuer}), across two nodes: the
 * login starts on one node (Spring Security's authorization request waits in the session), the
 * provider redirects back to the other (which reads that request from Redis, and stores the
 * authentication: an OIDC user whose ID token holds {@code iss} as a {@code java.net.URL}), and the
 * first node then serves the signed-in user. Default lazysession configuration.
 */
class OidcLoginIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private static SampleNode start(TestIssuer issuer, String redirectUri) {
    List<String> properties = new ArrayList<>(issuer.clientProperties(redirectUri));
    properties.add("spring.data.redis.url=" + redis.url());
    return SampleNode.start(properties.toArray(String[]::new));
  }

  @Test
  void oidcLoginStartedOnFirst_completedOnSecond_signedInOnBoth() throws Exception {
    Browser browser = new Browser();
    try (TestIssuer issuer = TestIssuer.start();
        SampleNode second = start(issuer, "{baseUrl}/login/oauth2/code/{registrationId}");
        SampleNode first = start(issuer, "http://localhost:" + second.port() + "/login/oauth2/code/idp")) {
      String signInPage = browser.get(first, "/signin").body();
      assertThat(signInPage).contains("id=\"signin-with-idp\"");

      HttpResponse<String> landed = browser.get(first, "/oauth2/authorization/idp");

      assertThat(landed.statusCode()).isEqualTo(200);
      assertThat(landed.uri().getPort()).isEqualTo(second.port());
      assertThat(landed.body()).contains("id=\"signed-in-as\">Ada<");
      HttpResponse<String> onFirst = browser.get(first, "/cart");
      assertThat(onFirst.uri().getPath()).isEqualTo("/cart");
      assertThat(onFirst.body()).contains("id=\"signed-in-as\">Ada<");
      String csrf = SampleNode.find(browser.get(first, "/").body(), "name=\"_csrf\" value=\"([^\"]+)\"");
      HttpResponse<String> added = browser.post(first, "/cart",
          Map.of("productId", "P1001", "quantity", "1", "_csrf", csrf));
      assertThat(added.body()).contains("data-product=\"P1001\"");
      String payload = browser.get(second, "/payload").body();
      assertThat(payload).contains("data-attribute=\"SPRING_SECURITY_CONTEXT\"");
    }
  }
}
