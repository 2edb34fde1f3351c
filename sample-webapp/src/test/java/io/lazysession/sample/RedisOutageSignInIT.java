package io.lazysession.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.lazysession.sample.SampleNode.Browser;
import io.lazysession.testing.RedisServerExtension;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shop (Spring Security form login, CSRF tokens in the session) while Redis is stopped: the
 * sign-in page answers 503 with {@code Retry-After}, not 500, and signing in works again soon after
 * Redis starts, with no restart. Polls are bounded by {@link #RECOVERY_FAIL_BOUND}, generous for a
 * shared two-core machine; the acceptance bound (2 s) is RedisOutageIT's, in redis-store.
 */
class RedisOutageSignInIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final Duration RECOVERY_FAIL_BOUND = Duration.ofSeconds(6);
  boolean stopped;

  @BeforeAll
  static void restartable() {
    redis.assumeFaultInjection();
    assumeThat(redis.primary().canRestart()).isTrue();
  }

  @AfterEach
  void startRedisAgain() {
    if (stopped) {
      redis.primary().startAgain();
    }
  }

  SampleNode shop() {
    return SampleNode.start("spring.data.redis.url=" + redis.url(),
        "spring.data.redis.timeout=500ms", "management.health.redis.enabled=false");
  }

  static void assertUnavailable(HttpResponse<String> response) {
    assertThat(response.statusCode()).as("%s", response.uri()).isEqualTo(503);
    assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
  }

  static HttpResponse<String> awaitServing(Browser browser, SampleNode shop, String path)
      throws InterruptedException {
    long deadline = System.nanoTime() + RECOVERY_FAIL_BOUND.toNanos();
    while (true) {
      HttpResponse<String> response = browser.get(shop, path);
      if (response.statusCode() == 200) {
        return response;
      }
      assertUnavailable(response);
      assertThat(System.nanoTime()).as("still 503 %s after Redis answered", RECOVERY_FAIL_BOUND)
          .isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  @Test
  void signIn_redisStoppedAtStartup_answers503ThenSignsInOnceRedisStarts() throws Exception {
    redis.primary().stop();
    stopped = true;
    try (SampleNode shop = shop()) {
      Browser browser = new Browser();
      assertUnavailable(browser.get(shop, "/signin")); // its CSRF token goes into a new session

      redis.primary().startAgain();
      stopped = false;
      awaitServing(browser, shop, "/signin");

      HttpResponse<String> signedIn = browser.signIn(shop, "ada");
      assertThat(signedIn.statusCode()).isEqualTo(200);
      assertThat(signedIn.body()).contains("id=\"signed-in-as\">Ada<");
    }
  }

  @Test
  void signedIn_redisStoppedWhileServing_answers503ThenSignsInAgainOnceRedisStarts()
      throws Exception {
    try (SampleNode shop = shop()) {
      Browser browser = new Browser();
      assertThat(browser.signIn(shop, "grace").body()).contains("id=\"signed-in-as\">Grace<");

      redis.primary().stop();
      stopped = true;
      assertUnavailable(browser.get(shop, "/cart")); // the security context is in the session
      assertUnavailable(browser.get(shop, "/signin"));
      assertUnavailable(new Browser().get(shop, "/signin"));

      redis.primary().startAgain(); // empty: the session is gone, so is the sign-in
      stopped = false;
      awaitServing(browser, shop, "/signin");
      HttpResponse<String> signedIn = browser.signIn(shop, "grace");
      assertThat(signedIn.statusCode()).isEqualTo(200);
      assertThat(signedIn.body()).contains("id=\"signed-in-as\">Grace<");
    }
  }
}
