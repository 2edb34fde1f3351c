package io.lazysession.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.sample.SampleNode.Browser;
import io.lazysession.testing.RedisServerExtension;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The payload page's stored-byte figures are what Redis holds, field by field. */
class PayloadBytesIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @Test
  void payloadPage_storedBytes_matchHstrlenOfEachField() {
    Browser browser = new Browser();
    try (SampleNode node = SampleNode.start("spring.data.redis.url=" + redis.url())) {
      String page = browser.signIn(node, "grace").body();
      String csrf = SampleNode.find(page, "name=\"_csrf\" value=\"([^\"]+)\"");
      browser.post(node, "/cart", Map.of("productId", "P1003", "_csrf", csrf));
      browser.get(node, "/products/P1004");

      String payload = browser.get(node, "/payload").body();
      String sessionId = SampleNode.find(payload, "id=\"session-id\">([^<]+)<");
      Map<String, Integer> shown = new LinkedHashMap<>();
      Matcher rows = Pattern.compile("data-attribute=\"([^\"]+)\" data-stored=\"(-?\\d+)\"")
          .matcher(payload);
      while (rows.find()) {
        shown.put(rows.group(1), Integer.parseInt(rows.group(2)));
      }

      assertThat(shown).containsKeys("user", "cart", "purchaseHistory", "recentlyViewed",
          "preferences", "flags", "SPRING_SECURITY_CONTEXT",
          "org.springframework.security.web.csrf.HttpSessionCsrfTokenRepository.CSRF_TOKEN");
      String key = "lazysession:s:{" + sessionId + "}";
      Map<String, Long> inRedis = new LinkedHashMap<>();
      for (String field : shown.keySet()) {
        inRedis.put(field, redis.sync(redis.primary(), redisCommands ->
            redisCommands.hstrlen(key, field)));
      }
      Map<String, Long> shownAsLong = new LinkedHashMap<>();
      shown.forEach((field, bytes) -> shownAsLong.put(field, (long) bytes));
      assertThat(shownAsLong).isEqualTo(inRedis);
      assertThat(inRedis.values()).allMatch(bytes -> bytes > 0);
      // This request's header reads the user and the cart; the large report stays compressed.
      assertThat(payload).containsPattern(
          "(?s)data-attribute=\"purchaseHistory\".*?class=\"tag no\"");
      assertThat(payload).containsPattern("(?s)data-attribute=\"user\".*?class=\"tag yes\"");
    }
  }
}
