package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.redis.DecodeFailurePolicy;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.codec.CodecKind;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.util.unit.DataSize;

class LazySessionPropertiesTest {
  @Test
  void bind_nothingSet_keepsTheDocumentedDefaults() {
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment());

    assertThat(properties.getNamespace()).isEqualTo("lazysession");
    assertThat(properties.getCodec()).isEqualTo("kryo");
    assertThat(properties.compression().enabled()).isTrue();
    assertThat(properties.compression().level()).isEqualTo(3);
    assertThat(properties.compression().minBytes()).isEqualTo(256);
    assertThat(properties.decodeFailurePolicy()).isEqualTo(DecodeFailurePolicy.DROP_ATTRIBUTE);
    assertThat(properties.getNearCacheMaxBytes()).isEqualTo(DataSize.ofMegabytes(64));
    assertThat(properties.getTouchInterval()).isNull();
    assertThat(properties.getDurabilityReplicas()).isZero();
    assertThat(properties.getDurabilityTimeout()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void bind_durability_isRead() {
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment()
        .withProperty("lazysession.durability.replicas", "1")
        .withProperty("lazysession.durability.timeout", "250ms"));

    assertThat(properties.getDurabilityReplicas()).isEqualTo(1);
    assertThat(properties.getDurabilityTimeout()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void checkDurabilityTimeout_notShorterThanCommandTimeout_failsNamingBothProperties() {
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment()
        .withProperty("lazysession.durability.replicas", "1")
        .withProperty("lazysession.durability.timeout", "2s"));

    assertThatThrownBy(() -> properties.checkDurabilityTimeout(Duration.ofSeconds(2)))
        .hasMessage("lazysession.durability.timeout (PT2S) must be shorter than "
            + "spring.data.redis.timeout (PT2S)");
  }

  @Test
  void checkDurabilityTimeout_durabilityOff_acceptsAnyTimeout() {
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment()
        .withProperty("lazysession.durability.timeout", "5s"));

    properties.checkDurabilityTimeout(Duration.ofSeconds(2));
  }

  @Test
  void bind_compressionValueAndChildren_bindsBoth() {
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment()
        .withProperty("lazysession.compression", "zstd")
        .withProperty("lazysession.compression.level", "9")
        .withProperty("lazysession.compression.min-bytes", "64"));

    assertThat(properties.compression().level()).isEqualTo(9);
    assertThat(properties.compression().minBytes()).isEqualTo(64);
  }

  @Test
  void bind_everySetting_isRead() {
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment()
        .withProperty("lazysession.namespace", "shop")
        .withProperty("lazysession.codec", "jdk")
        .withProperty("lazysession.compression", "none")
        .withProperty("lazysession.allowed-packages", "com.example.a, com.example.b")
        .withProperty("lazysession.on-decode-failure", "fail")
        .withProperty("lazysession.near-cache.max-bytes", "0")
        .withProperty("lazysession.touch-interval", "5s")
        .withProperty("lazysession.expiry-grace", "1m")
        .withProperty("lazysession.cleanup-interval", "0s"));

    assertThat(properties.getNamespace()).isEqualTo("shop");
    assertThat(properties.compression().enabled()).isFalse();
    assertThat(properties.getAllowedPackages()).containsExactly("com.example.a", "com.example.b");
    assertThat(properties.decodeFailurePolicy()).isEqualTo(DecodeFailurePolicy.FAIL);
    assertThat(properties.getNearCacheMaxBytes()).isEqualTo(DataSize.ofBytes(0));
    assertThat(properties.getTouchInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(properties.getExpiryGrace()).isEqualTo(Duration.ofMinutes(1));
    assertThat(properties.getCleanupInterval()).isZero();
    AttributeSerializer serializer = properties.serializer(List.of("com.example.app"), null);
    assertThat(serializer.codec()).isEqualTo(CodecKind.JDK);
    assertThat(serializer.allowList().isAllowed("com.example.app.Cart")).isTrue();
    assertThat(serializer.allowList().isAllowed("com.example.b.Thing")).isTrue();
    assertThat(serializer.allowList().isAllowed("org.evil.Gadget")).isFalse();
  }

  @Test
  void bind_bareNumberDurations_areSeconds() {
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment()
        .withProperty("lazysession.touch-interval", "5")
        .withProperty("lazysession.expiry-grace", "60")
        .withProperty("lazysession.cleanup-interval", "10")
        .withProperty("lazysession.durability.timeout", "1"));

    assertThat(properties.getTouchInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(properties.getExpiryGrace()).isEqualTo(Duration.ofMinutes(1));
    assertThat(properties.getCleanupInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(properties.getDurabilityTimeout()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void checkTouchInterval_notShorterThanSessionTimeout_failsNamingTheProperty() {
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment()
        .withProperty("lazysession.touch-interval", "30m"));

    assertThatThrownBy(() -> properties.checkTouchInterval(Duration.ofMinutes(30)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("lazysession.touch-interval (PT30M) must be shorter than the "
            + "session timeout");
    properties.checkTouchInterval(Duration.ofMinutes(31));
  }

  @Test
  void compression_unknownKind_failsNamingTheProperty() {
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment()
        .withProperty("lazysession.compression", "gzip"));

    assertThatThrownBy(properties::compression)
        .hasMessage("lazysession.compression must be 'zstd' or 'none', was 'gzip'");
  }

  @Test
  void compression_levelOutOfRange_failsNamingTheProperty() {
    LazySessionProperties properties = LazySessionProperties.bind(new MockEnvironment()
        .withProperty("lazysession.compression.level", "23"));

    assertThatThrownBy(properties::compression)
        .hasMessageStartingWith("lazysession.compression.level").hasMessageContaining("23");
  }
}
