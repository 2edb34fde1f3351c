package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Scripts read from the class path. */
class RedisScriptTest {
  @Test
  void load_scriptIncludingAnother_holdsItsSourceVerbatimOnce() {
    String find = new String(RedisScript.FIND.source(), UTF_8);
    String findSsdr = new String(RedisScript.FIND_SSDR.source(), UTF_8);

    assertThat(findSsdr).contains("local function find()\n" + find)
        .doesNotContain("#include");
    assertThat(findSsdr.indexOf(find)).isEqualTo(findSsdr.lastIndexOf(find));
    assertThat(RedisScript.FIND_SSDR.sha()).isNotEqualTo(RedisScript.FIND.sha());
  }

  @Test
  void load_scriptWithoutInclude_sourceUnchanged() throws Exception {
    try (var in = RedisScript.class.getResourceAsStream("migrate.lua")) {
      assertThat(RedisScript.MIGRATE.source()).isEqualTo(in.readAllBytes());
    }
  }

  @Test
  void sha1Hex_manyInputs_equalsHexFormatOfTheDigest() throws Exception {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 2000; i++) {
      byte[] input = new byte[random.nextInt(i < 100 ? 3 : 3000)];
      random.nextBytes(input);
      String expected =
          HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(input));

      assertThat(RedisScript.sha1Hex(input)).isEqualTo(expected);
      assertThat(new String(RedisScript.prefixedSha1Hex((byte) '=', input), UTF_8))
          .isEqualTo("=" + expected);
    }
  }

  @Test
  void sha1Hex_emptyInput_isTheKnownDigest() {
    assertThat(RedisScript.sha1Hex(new byte[0]))
        .isEqualTo("da39a3ee5e6b4b0d3255bfef95601890afd80709");
  }
}
