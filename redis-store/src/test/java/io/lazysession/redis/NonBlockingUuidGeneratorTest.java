package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NonBlockingUuidGeneratorTest {
  @Test
  void generate_manyIds_areDistinctRandomVersion4UuidsTheStoreAccepts() {
    NonBlockingUuidGenerator generator = new NonBlockingUuidGenerator();
    Set<String> ids = new HashSet<>();

    for (int i = 0; i < 1000; i++) {
      String id = generator.generate();
      UUID uuid = UUID.fromString(id);
      assertThat(uuid.version()).isEqualTo(4);
      assertThat(uuid.variant()).isEqualTo(2);
      assertThat(uuid.toString()).isEqualTo(id);
      assertThat(SessionKeys.isPlausibleId(id)).isTrue();
      ids.add(id);
    }

    assertThat(ids).hasSize(1000);
  }
}
