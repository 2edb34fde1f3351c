package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The absolute and anonymous timeouts' rules and the builder's checks of them; no Redis. */
class SessionPoliciesTest {
  static final RedisClient client = RedisClient.create("redis://127.0.0.1:1");
  static final Duration DEFAULT = Duration.ofMinutes(30);

  @AfterAll
  static void shutdown() {
    client.shutdown();
  }

  @Test
  void absoluteTimeout_belowOneSecond_failsNamingTheParameter() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client)
        .absoluteTimeout(Duration.ofMillis(500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("absoluteTimeout must be whole seconds, at least one second, was PT0.5S");
  }

  @Test
  void anonymousTimeout_fractionOfASecond_failsNamingTheParameter() {
    assertThatThrownBy(() -> LazyRedisSessionRepository.builder(client)
        .anonymousTimeout(Duration.ofMillis(1500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("anonymousTimeout must be whole seconds, at least one second, was PT1.5S");
  }

  @Test
  void timeoutOfNew_anonymousShorterThanDefault_isTheAnonymousOne() {
    assertThat(new SessionPolicies(null, Duration.ofMinutes(1), DEFAULT).timeoutOfNew())
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(new SessionPolicies(null, Duration.ofHours(1), DEFAULT).timeoutOfNew())
        .isEqualTo(DEFAULT);
    assertThat(new SessionPolicies(null, null, DEFAULT).timeoutOfNew()).isEqualTo(DEFAULT);
    assertThat(new SessionPolicies(null, Duration.ofMinutes(1), Duration.ofSeconds(-1))
        .timeoutOfNew()).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void due_absoluteDeadlineBeforeTheIdleDueTime_isTheDeadline() {
    SessionPolicies policies = new SessionPolicies(Duration.ofHours(1), null, DEFAULT);

    assertThat(policies.due(0, 3_000_000L)).isEqualTo(3_000_000L);
    assertThat(policies.due(0, 4_000_000L)).isEqualTo(3_600_000L);
    assertThat(policies.due(0, null)).isEqualTo(3_600_000L); // never idles out
    assertThat(SessionPolicies.NONE.due(0, null)).isNull();
    assertThat(SessionPolicies.NONE.due(0, 5L)).isEqualTo(5L);
  }

  @Test
  void pastDeadline_atTheDeadline_isTrue() {
    SessionPolicies policies = new SessionPolicies(Duration.ofHours(1), null, DEFAULT);
    Instant created = Instant.parse("2026-01-01T00:00:00Z");

    assertThat(policies.pastDeadline(created, created.plus(Duration.ofMinutes(59)))).isFalse();
    assertThat(policies.pastDeadline(created, created.plus(Duration.ofHours(1)))).isTrue();
    assertThat(SessionPolicies.NONE.pastDeadline(created, Instant.MAX)).isFalse();
  }

  @Test
  void absoluteMillis_asTheScriptsReadIt() {
    assertThat(new SessionPolicies(Duration.ofHours(8), null, DEFAULT).absoluteMillis())
        .isEqualTo(28_800_000L);
    assertThat(SessionPolicies.NONE.absoluteMillis()).isZero();
  }

  @Test
  void expireReply_live_carriesTheCreationTheDeadlineIsCountedFrom() {
    java.util.List<byte @org.jspecify.annotations.Nullable []> answer = java.util.List.of(
        bytes("live"), bytes("2000"), bytes("60"), bytes("1000"));

    ScriptReplies.ExpireReply live = ScriptReplies.expire(answer);

    assertThat(live.metadata()).isEqualTo(new SessionMetadata(1000L, 2000L, 60L, null));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }
}
