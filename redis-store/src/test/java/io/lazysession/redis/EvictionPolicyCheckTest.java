package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EvictionPolicyCheckTest {
  @ParameterizedTest
  @CsvSource({"allkeys-lru, 1024, true", "allkeys-lfu, 1024, true", "allkeys-random, 1, true",
      "volatile-lru, 1024, false", "volatile-ttl, 1024, false", "noeviction, 1024, false",
      "allkeys-lru, 0, false"})
  void warning_policyAndLimit_warnsOnlyWhenIndexKeysMayBeEvicted(String policy, long maxMemory,
      boolean warns) {
    String warning = EvictionPolicyCheck.warning(policy, maxMemory);

    if (warns) {
      assertThat(warning).contains("maxmemory-policy " + policy).contains("noeviction")
          .contains("volatile-lru").contains("docs/operations.md#memory");
    } else {
      assertThat(warning).isNull();
    }
  }
}
