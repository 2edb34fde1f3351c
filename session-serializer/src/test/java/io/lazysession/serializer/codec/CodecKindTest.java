package io.lazysession.serializer.codec;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CodecKindTest {
  @Test
  void ofId_envelopeIds_mapToKinds() {
    for (CodecKind kind : CodecKind.values()) {
      assertThat(CodecKind.ofId(kind.id())).isSameAs(kind);
    }
    assertThat(CodecKind.ofId(0)).isNull();
    assertThat(CodecKind.ofId(3)).isNull();
  }
}
