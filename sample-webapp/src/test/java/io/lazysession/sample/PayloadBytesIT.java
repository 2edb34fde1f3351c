package io.lazysession.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.sample.SampleNode.Browser;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The payload page's figures are what Redis holds, attribute by attribute: the envelope in the
 * attribute's own field, or in the pack ({@code #s} or its chunks) for small ones; the pack members'
 * shares add up to the pack's fields, and the total to the whole hash with its key.
 */
class PayloadBytesIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @Test
  void payloadPage_storedBytes_matchTheStoredEnvelopes() {
    Browser browser = new Browser();
    try (SampleNode node = SampleNode.start("spring.data.redis.url=" + redis.url())) {
      String page = browser.signIn(node, "grace").body();
      String csrf = SampleNode.find(page, "name=\"_csrf\" value=\"([^\"]+)\"");
      browser.post(node, "/cart", Map.of("productId", "P1003", "_csrf", csrf));
      browser.get(node, "/products/P1004");

      String payload = browser.get(node, "/payload").body();
      String sessionId = SampleNode.find(payload, "id=\"session-id\">([^<]+)<");
      Map<String, Integer> shown = new LinkedHashMap<>();
      long packShares = 0;
      Matcher rows = Pattern.compile("data-attribute=\"([^\"]+)\" data-place=\"(pack|own)\" "
          + "data-envelope=\"(\\d+)\" data-stored=\"(\\d+)\"").matcher(payload);
      while (rows.find()) {
        shown.put(rows.group(1), Integer.parseInt(rows.group(3)));
        if (rows.group(2).equals("pack")) {
          packShares += Long.parseLong(rows.group(4));
        }
      }

      assertThat(shown).containsKeys("user", "cart", "purchaseHistory", "recentlyViewed",
          "preferences", "flags", "SPRING_SECURITY_CONTEXT",
          "org.springframework.security.web.csrf.HttpSessionCsrfTokenRepository.CSRF_TOKEN");
      byte[] key = ("lazysession:s:{" + sessionId + "}").getBytes(StandardCharsets.UTF_8);
      Map<String, Long> inRedis = new LinkedHashMap<>();
      RedisClient client = RedisClient.create(redis.url());
      try (StatefulRedisConnection<byte[], byte[]> connection =
          client.connect(ByteArrayCodec.INSTANCE)) {
        RedisCommands<byte[], byte[]> raw = connection.sync();
        byte[] pack = pack(raw, key);
        long packFields = 0;
        long attributeFields = 0;
        for (byte[] field : raw.hkeys(key)) {
          String name = new String(field, StandardCharsets.UTF_8);
          long bytes = field.length + raw.hstrlen(key, field);
          // the whole pack, or one of its chunks (fields named by one byte, 0x80 and up)
          if (name.equals("#s") || (field.length == 1 && (field[0] & 0xFF) >= 0x80)) {
            packFields += bytes;
          }
          if (!name.equals("#") && !name.equals("#p")) {
            attributeFields += bytes;
          }
        }
        // The pack's members share its stored bytes (field names and values) exactly.
        assertThat(packShares).isEqualTo(packFields).isPositive();
        assertThat(SampleNode.find(payload, "id=\"payload-attributes\">(\\d+)<"))
            .isEqualTo(Long.toString(attributeFields));
        Map<String, byte[]> packed =
            pack == null ? Map.of() : AttributeSerializer.builder().build().unpack(pack);
        for (String field : shown.keySet()) {
          byte[] own = raw.hget(key, field.getBytes(StandardCharsets.UTF_8));
          byte[] envelope = own != null ? own : packed.get(field);
          inRedis.put(field, envelope == null ? 0L : (long) envelope.length);
        }
      } finally {
        client.shutdown();
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

  /** The session's pack: the field {@code #s}, or its chunks (fields 0x80, 0x81, ...) joined. */
  private static byte[] pack(RedisCommands<byte[], byte[]> raw, byte[] key) {
    byte[] whole = raw.hget(key, "#s".getBytes(StandardCharsets.UTF_8));
    if (whole != null) {
      return whole;
    }
    java.io.ByteArrayOutputStream joined = new java.io.ByteArrayOutputStream();
    for (int i = 0; ; i++) {
      byte[] chunk = raw.hget(key, new byte[] {(byte) (0x80 + i)});
      if (chunk == null) {
        return i == 0 ? null : joined.toByteArray();
      }
      joined.writeBytes(chunk);
    }
  }
}
