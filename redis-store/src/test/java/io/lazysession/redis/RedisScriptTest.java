package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

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
}
