package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LazySessionHealthIndicatorTest {
  @Test
  void probeId_hasACharacterNoDefaultIdNorUuidHas() {
    // Default ids are base64url (A-Z a-z 0-9 - _), UUIDs hex digits and '-'.
    assertThat(LazySessionHealthIndicator.PROBE_ID).containsPattern("[^A-Za-z0-9_-]");
  }
}
