package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.redis.DecodeFailurePolicy;
import io.lazysession.serializer.codec.CodecKind;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.util.unit.DataSize;

/** {@link EnableLazyHttpSession}'s attributes are bound as the {@code lazysession.*} properties. */
class EnableLazyHttpSessionAttributesTest {
  @EnableLazyHttpSession
  static class Defaults {}

  @EnableLazyHttpSession(namespace = "shop", codec = "jdk", compression = "none",
      nearCacheMaxBytes = "0", durabilityReplicas = 1, durabilityTimeout = "250ms",
      touchInterval = "5s", maxValueBytes = "2MB", compressionLevel = 7, expiryEvents = "false",
      onDecodeFailure = DecodeFailurePolicy.FAIL, allowedPackages = "com.example.shop",
      absoluteTimeout = "8h", anonymousTimeout = "2m", idRenewalInterval = "15m",
      idRenewalGrace = "20s", maxSessionsPerPrincipal = "3",
      maxSessionsAction = "refuse-new")
  static class Everything {}

  @EnableLazyHttpSession(codec = "${session.codec}")
  static class Placeholder {}

  @EnableLazyHttpSession(compressionLevel = 40)
  static class BadLevel {}

  static LazySessionProperties properties(Class<?> annotated, MockEnvironment environment) {
    LazyHttpSessionConfiguration configuration = new LazyHttpSessionConfiguration();
    configuration.setEnvironment(environment);
    configuration.setImportMetadata(AnnotationMetadata.introspect(annotated));
    return configuration.properties();
  }

  @Test
  void properties_noAttributes_areThePropertyDefaults() {
    assertThat(properties(Defaults.class, new MockEnvironment()))
        .isEqualTo(LazySessionProperties.bind(new MockEnvironment()));
  }

  @Test
  void properties_everyAttribute_isApplied() {
    LazySessionProperties properties = properties(Everything.class, new MockEnvironment());

    assertThat(properties.namespace()).isEqualTo("shop");
    assertThat(properties.codecKind()).isEqualTo(CodecKind.JDK);
    assertThat(properties.compressionSettings().enabled()).isFalse();
    assertThat(properties.compressionLevel()).isEqualTo(7);
    assertThat(properties.nearCache().maxBytes()).isEqualTo(DataSize.ofBytes(0));
    assertThat(properties.durability().replicas()).isEqualTo(1);
    assertThat(properties.durability().timeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(properties.touchInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(properties.maxValueBytes()).isEqualTo(DataSize.ofMegabytes(2));
    assertThat(properties.expiryEvents()).isFalse();
    assertThat(properties.decodeFailurePolicy()).isEqualTo(DecodeFailurePolicy.FAIL);
    assertThat(properties.allowedPackages()).containsExactly("com.example.shop");
    assertThat(properties.absoluteTimeout()).isEqualTo(Duration.ofHours(8));
    assertThat(properties.anonymousTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(properties.idRenewalInterval()).isEqualTo(Duration.ofMinutes(15));
    assertThat(properties.idRenewalGrace()).isEqualTo(Duration.ofSeconds(20));
    assertThat(properties.maxSessionsPerPrincipal()).isEqualTo(3);
    assertThat(properties.maxSessionsAction()).isEqualTo("refuse-new");
  }

  @Test
  void properties_placeholder_isResolvedFromTheEnvironment() {
    assertThat(properties(Placeholder.class, new MockEnvironment()
        .withProperty("session.codec", "jdk")).codecKind()).isEqualTo(CodecKind.JDK);
  }

  @Test
  void properties_invalidAttribute_failsNamingTheAnnotationAndTheProperty() {
    assertThatThrownBy(() -> properties(BadLevel.class, new MockEnvironment()))
        .isInstanceOfSatisfying(LazySessionConfigurationException.class, e -> {
          assertThat(e.setting()).isEqualTo("@EnableLazyHttpSession(compressionLevel)");
          assertThat(e.value()).isEqualTo("40");
          assertThat(e.reason()).isEqualTo("must be between 1 and 22");
          assertThat(e.action()).isEqualTo("Set @EnableLazyHttpSession(compressionLevel) between "
              + "1 (fastest) and 22 (smallest); 3 is the default.");
        });
  }
}
