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
  private static LazySessionProperties bind(String... keyValues) {
    MockEnvironment environment = new MockEnvironment();
    for (int i = 0; i < keyValues.length; i += 2) {
      environment.setProperty(keyValues[i], keyValues[i + 1]);
    }
    return LazySessionProperties.bind(environment);
  }

  /** The failure that binding these properties stops with. */
  private static LazySessionConfigurationException invalid(String... keyValues) {
    Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() -> bind(keyValues));
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof LazySessionConfigurationException configuration) {
        return configuration;
      }
    }
    throw new AssertionError("no LazySessionConfigurationException in " + failure, failure);
  }

  @Test
  void bind_nothingSet_keepsTheDocumentedDefaults() {
    LazySessionProperties properties = bind();

    assertThat(properties.namespace()).isEqualTo("lazysession");
    assertThat(properties.codecKind()).isEqualTo(CodecKind.KRYO);
    assertThat(properties.compressionSettings().enabled()).isTrue();
    assertThat(properties.compressionSettings().level()).isEqualTo(3);
    assertThat(properties.compressionSettings().minBytes()).isEqualTo(256);
    assertThat(properties.decodeFailurePolicy()).isEqualTo(DecodeFailurePolicy.DROP_ATTRIBUTE);
    assertThat(properties.nearCache().maxBytes()).isEqualTo(DataSize.ofMegabytes(64));
    assertThat(properties.touchInterval()).isNull();
    assertThat(properties.expiryGrace()).isEqualTo(Duration.ofMinutes(5));
    assertThat(properties.cleanupInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(properties.expiryEvents()).isTrue();
    assertThat(properties.durability().replicas()).isZero();
    assertThat(properties.durability().timeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(properties.maxValueBytes()).isNull();
    assertThat(properties.allowedPackages()).isEmpty();
  }

  /** A mutable class, named immutable by some tests. */
  static final class Counter implements java.io.Serializable {
    @java.io.Serial private static final long serialVersionUID = 1L;
    int n;
  }

  /**
   * The named class reaches the serializer: a value of it read and changed in place is not encoded
   * again (the promise the setting makes); without the setting the change is seen.
   */
  @Test
  void bind_immutableTypes_namedClassesNotReEncodedAfterARead() {
    LazySessionProperties named = bind("lazysession.immutable-types",
        "com.example.Money, " + Counter.class.getName());

    assertThat(named.immutableTypes()).containsExactly("com.example.Money", Counter.class.getName());
    assertThat(bind().immutableTypes()).isEmpty();
    assertThat(changedInPlaceSeen(named)).isFalse();
    assertThat(changedInPlaceSeen(bind())).isTrue();
  }

  private static boolean changedInPlaceSeen(LazySessionProperties properties) {
    AttributeSerializer serializer = properties.serializer(List.of("io.lazysession.redis.config"), null);
    io.lazysession.serializer.LazyValue read = serializer.lazy(serializer.serialize(new Counter()));
    ((Counter) read.get()).n = 5;
    return read.isModified();
  }

  @Test
  void bind_immutableTypesNotAClassName_failsNamingThePropertyAndTheValue() {
    assertThat(invalid("lazysession.immutable-types", "com.example.Money, com.example/Sku"))
        .hasMessage("lazysession.immutable-types must hold full class names, was 'com.example/Sku'. "
            + "List each class by its full name, such as com.example.shop.Money (a nested class with "
            + "$: com.example.shop.Cart$Line).");
  }

  @Test
  void bind_durability_isRead() {
    LazySessionProperties properties = bind("lazysession.durability.replicas", "1",
        "lazysession.durability.timeout", "250ms");

    assertThat(properties.durability().replicas()).isEqualTo(1);
    assertThat(properties.durability().timeout()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void checkDurabilityTimeout_notShorterThanCommandTimeout_failsNamingBothProperties() {
    LazySessionProperties properties = bind("lazysession.durability.replicas", "1",
        "lazysession.durability.timeout", "2s");

    assertThatThrownBy(() -> properties.checkDurabilityTimeout(Duration.ofSeconds(2),
        "spring.data.redis.timeout"))
        .isInstanceOfSatisfying(LazySessionConfigurationException.class, e -> {
          assertThat(e.setting()).isEqualTo("lazysession.durability.timeout");
          assertThat(e.value()).isEqualTo("2s");
          assertThat(e.reason()).startsWith("must be shorter than spring.data.redis.timeout (2s)");
          assertThat(e.action()).isEqualTo("Set lazysession.durability.timeout below 2s (e.g. "
              + "half of it), or raise spring.data.redis.timeout.");
        });
  }

  @Test
  void checkDurabilityTimeout_durabilityOff_acceptsAnyTimeout() {
    bind("lazysession.durability.timeout", "5s")
        .checkDurabilityTimeout(Duration.ofSeconds(2), "spring.data.redis.timeout");
  }

  @Test
  void bind_compressionValueAndChildren_bindsBoth() {
    LazySessionProperties properties = bind("lazysession.compression", "zstd",
        "lazysession.compression.level", "9", "lazysession.compression.min-bytes", "64");

    assertThat(properties.compressionSettings().enabled()).isTrue();
    assertThat(properties.compressionSettings().level()).isEqualTo(9);
    assertThat(properties.compressionSettings().minBytes()).isEqualTo(64);
  }

  @Test
  void bind_nearCacheMode_validateByDefaultTrackWithItsBound() {
    assertThat(bind().nearCache().tracking()).isNull();
    assertThat(bind().nearCache().maxStaleness()).isEqualTo(Duration.ofMillis(500));

    LazySessionProperties tracked = bind("lazysession.near-cache.mode", "track",
        "lazysession.near-cache.max-staleness", "250ms");

    assertThat(tracked.nearCache().mode()).isEqualTo(LazySessionProperties.NearCacheMode.TRACK);
    assertThat(tracked.nearCache().tracking()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void bind_zeroMaxStaleness_failsNamingTheProperty() {
    assertThat(invalid("lazysession.near-cache.max-staleness", "0ms")).hasMessage(
        "lazysession.near-cache.max-staleness must be longer than 0, was '0s'. Set "
            + "lazysession.near-cache.max-staleness to a duration such as 500ms (the default).");
  }

  @Test
  void bind_everySetting_isRead() {
    LazySessionProperties properties = bind(
        "lazysession.namespace", "shop",
        "lazysession.codec", "jdk",
        "lazysession.compression", "none",
        "lazysession.allowed-packages", "com.example.a, com.example.b",
        "lazysession.on-decode-failure", "fail",
        "lazysession.near-cache.max-bytes", "0",
        "lazysession.touch-interval", "5s",
        "lazysession.expiry-grace", "1m",
        "lazysession.cleanup-interval", "0s",
        "lazysession.expiry-events", "false",
        "lazysession.max-value-bytes", "4MB");

    assertThat(properties.namespace()).isEqualTo("shop");
    assertThat(properties.compressionSettings().enabled()).isFalse();
    assertThat(properties.allowedPackages()).containsExactly("com.example.a", "com.example.b");
    assertThat(properties.decodeFailurePolicy()).isEqualTo(DecodeFailurePolicy.FAIL);
    assertThat(properties.nearCache().maxBytes()).isEqualTo(DataSize.ofBytes(0));
    assertThat(properties.touchInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(properties.expiryGrace()).isEqualTo(Duration.ofMinutes(1));
    assertThat(properties.cleanupInterval()).isZero();
    assertThat(properties.expiryEvents()).isFalse();
    AttributeSerializer serializer = properties.serializer(List.of("com.example.app"), null);
    assertThat(serializer.codec()).isEqualTo(CodecKind.JDK);
    assertThat(serializer.maxPayloadBytes()).isEqualTo(4 * 1024 * 1024);
    assertThat(serializer.allowList().isAllowed("com.example.app.Cart")).isTrue();
    assertThat(serializer.allowList().isAllowed("com.example.b.Thing")).isTrue();
    assertThat(serializer.allowList().isAllowed("org.evil.Gadget")).isFalse();
  }

  @Test
  void bind_bareNumberDurations_areSeconds() {
    LazySessionProperties properties = bind("lazysession.touch-interval", "5",
        "lazysession.expiry-grace", "60", "lazysession.cleanup-interval", "10",
        "lazysession.durability.timeout", "1");

    assertThat(properties.touchInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(properties.expiryGrace()).isEqualTo(Duration.ofMinutes(1));
    assertThat(properties.cleanupInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(properties.durability().timeout()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void checkTouchInterval_notShorterThanSessionTimeout_failsNamingTheProperty() {
    LazySessionProperties properties = bind("lazysession.touch-interval", "30m");

    assertThatThrownBy(() -> properties.checkTouchInterval(Duration.ofMinutes(30),
        "spring.session.timeout"))
        .isInstanceOf(LazySessionConfigurationException.class)
        .hasMessageStartingWith("lazysession.touch-interval must be shorter than the "
            + "session timeout (spring.session.timeout, 30m)")
        .hasMessageContaining("was '30m'");
    properties.checkTouchInterval(Duration.ofMinutes(31), "spring.session.timeout");
  }

  @Test
  void bind_unknownCompression_failsNamingTheProperty() {
    assertThat(invalid("lazysession.compression", "gzip")).hasMessage("lazysession.compression "
        + "is not a compression lazysession knows, was 'gzip'. Set lazysession.compression to "
        + "zstd (the default) or none.");
  }

  @Test
  void bind_compressionLevelOutOfRange_failsNamingTheProperty() {
    assertThat(invalid("lazysession.compression.level", "23")).hasMessage(
        "lazysession.compression.level must be between 1 and 22, was '23'. Set "
            + "lazysession.compression.level between 1 (fastest) and 22 (smallest); 3 is the "
            + "default.");
  }

  @Test
  void bind_unknownCodec_failsNamingTheProperty() {
    assertThatThrownBy(() -> bind("lazysession.codec", "protobuf"))
        .rootCause().hasMessageContaining("lazysession.codec").hasMessageContaining("protobuf");
  }

  @Test
  void bind_negativeDurabilityReplicas_failsNamingTheProperty() {
    assertThat(invalid("lazysession.durability.replicas", "-1"))
        .hasMessageStartingWith("lazysession.durability.replicas must be 0 or more, was '-1'.");
  }

  @Test
  void bind_tinyMaxValueBytes_failsNamingTheProperty() {
    assertThatThrownBy(() -> bind("lazysession.max-value-bytes", "10B"))
        .rootCause().hasMessageStartingWith("lazysession.max-value-bytes must be at least 1KB");
  }

  @Test
  void bind_packMaxBytes_reachesTheSerializer() {
    assertThat(bind().serializer(java.util.List.of(), null).packMaxBytes())
        .isEqualTo(io.lazysession.serializer.AttributeSerializer.DEFAULT_PACK_MAX_BYTES);
    assertThat(bind("lazysession.pack.max-bytes", "0").serializer(java.util.List.of(), null)
        .packMaxBytes()).isZero();
    assertThat(bind("lazysession.pack.max-bytes", "2KB").serializer(java.util.List.of(), null)
        .packMaxBytes()).isEqualTo(2048);
  }

  @Test
  void bind_packMaxBytesOutOfRange_failsNamingTheProperty() {
    assertThat(invalid("lazysession.pack.max-bytes", "1MB"))
        .hasMessageStartingWith("lazysession.pack.max-bytes must be between 0 and 64KB, was '1MB'.");
  }

  @Test
  void allowedPackages_isImmutable() {
    LazySessionProperties properties = bind("lazysession.allowed-packages", "com.example");

    assertThatThrownBy(() -> properties.allowedPackages().add("org.evil"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void bind_migrateFrom_isOffByDefaultAndNormalized() {
    assertThat(bind().migrateFrom()).isNull();
    assertThat(bind("lazysession.migrate-from", "Spring_Session_Data_Redis").migrateFrom())
        .isEqualTo("spring-session-data-redis");
  }

  @Test
  void bind_unknownMigrateFrom_failsNamingThePropertyAndTheAcceptedValue() {
    assertThat(invalid("lazysession.migrate-from", "hazelcast")).hasMessage(
        "lazysession.migrate-from is not a store lazysession can take over from, was "
            + "'hazelcast'. Set lazysession.migrate-from=spring-session-data-redis (Spring "
            + "Session Data Redis 4.x), or remove it: no take-over.");
  }

  @Test
  void migrateFromNamespace_ownSettingThenSpringSessionsThenDefault() {
    assertThat(RepositoryFactory.migrateFromNamespace(
        bind("lazysession.migrate-from-namespace", "legacy"), "shop")).isEqualTo("legacy");
    assertThat(RepositoryFactory.migrateFromNamespace(bind(), "shop")).isEqualTo("shop");
    assertThat(RepositoryFactory.migrateFromNamespace(bind(), null)).isEqualTo("spring:session");
  }
}
