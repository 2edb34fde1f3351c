package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.newuserapp.NewUserApplication;
import io.lazysession.testing.RedisServerExtension;
import java.net.CookieManager;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Spring Security's session fixation strategies other than the default, on two nodes. */
class NewUserFixationIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static ConfigurableApplicationContext start(String namespace, String fixation) {
    return new SpringApplicationBuilder(NewUserApplication.class).web(WebApplicationType.SERVLET)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "spring.data.redis.url=" + redis.url(), "lazysession.namespace=" + namespace,
            "newuser.fixation=" + fixation)
        .run();
  }

  @ParameterizedTest
  @ValueSource(strings = {"migrate", "new"})
  void signIn_withFixationStrategy_savedRequestAndContextSurvive(String fixation) throws Exception {
    String namespace = TestRedis.uniqueNamespace("fixation-" + fixation);
    try (ConfigurableApplicationContext node1 = start(namespace, fixation);
        ConfigurableApplicationContext node2 = start(namespace, fixation)) {
      HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
      String before = NewUserSecurityIT.get(browser, node1, "/public/session").body();
      HttpResponse<String> denied = NewUserSecurityIT.get(browser, node2, "/me");
      assertThat(denied.statusCode()).isEqualTo(302);

      HttpResponse<String> signedIn = NewUserSecurityIT.signIn(browser, node1, "");
      assertThat(signedIn.statusCode()).isEqualTo(302);
      assertThat(signedIn.headers().firstValue("Location")).hasValueSatisfying(
          location -> assertThat(location).contains("/me"));
      HttpResponse<String> me = NewUserSecurityIT.get(browser, node2, "/me");
      assertThat(me.statusCode()).isEqualTo(200);
      assertThat(me.body()).isEqualTo("ann");
      String after = NewUserSecurityIT.get(browser, node1, "/public/session").body();
      assertThat(after).isNotEqualTo(before);
      assertThat(NewUserSecurityIT.get(browser, node1, "/me").body()).isEqualTo("ann");
    }
  }
}
