package io.lazysession.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisVersionTest {
  @Test
  void parse_infoServerOfTheEmbeddedBinary_readsRedisVersion() {
    String info = "# Server\r\nredis_version:6.2.11\r\nredis_git_sha1:00000000\r\nredis_mode:standalone"
        + "\r\n";

    assertThat(RedisVersion.parse(info)).isEqualTo(new RedisVersion(6, 2, 11))
        .hasToString("6.2.11");
  }

  @Test
  void parse_versionWithoutPatch_readsPatchZero() {
    assertThat(RedisVersion.parse("redis_version:8.0\r\n")).isEqualTo(new RedisVersion(8, 0, 0));
  }

  @Test
  void parse_noRedisVersion_refusedShowingTheAnswer() {
    assertThatThrownBy(() -> RedisVersion.parse("# Server\r\nredis_mode:standalone\r\n"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("INFO server names no redis_version")
        .hasMessageContaining("redis_mode:standalone");
  }

  @Test
  void atLeast_comparesMajorThenMinor() {
    RedisVersion embedded = new RedisVersion(6, 2, 11);
    RedisVersion container = new RedisVersion(7, 0, 15);

    assertThat(embedded.atLeast(6, 2)).isTrue();
    assertThat(embedded.atLeast(7, 0)).isFalse();
    assertThat(container.atLeast(7, 0)).isTrue();
    assertThat(container.atLeast(7, 2)).isFalse();
    assertThat(new RedisVersion(10, 0, 0).atLeast(7, 4)).isTrue();
    assertThat(embedded).isLessThan(container);
  }
}
