package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.redis.DecodeFailurePolicy;
import io.lazysession.serializer.codec.CodecKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.util.unit.DataSize;

/**
 * Every {@code lazysession.*} property can be written nested in an application.yml, as Spring
 * Boot users write their configuration. {@code lazysession.compression} is both a value and the
 * parent of {@code .level} and {@code .min-bytes}; YAML cannot give one key both, so nested YAML
 * writes it as {@code compression.algorithm}.
 */
class YamlBindingTest {
  /** Every lazysession property, nested, none at its default. */
  static final String EVERY_PROPERTY = """
      lazysession:
        enabled: true
        ignore-unknown-properties: true
        namespace: shop
        codec: jdk
        compression:
          algorithm: none
          level: 9
          min-bytes: 64
          dictionary:
            enabled: false
            file: /etc/lazysession/sessions.dict
        allowed-packages:
          - com.example.a
          - com.example.b
        immutable-types:
          - com.example.a.Money
          - com.example.a.Cart$Line
        on-decode-failure: fail
        near-cache:
          max-bytes: 32MB
          mode: track
          max-staleness: 250ms
        touch-interval: 5s
        expiry-grace: 1m
        cleanup-interval: 0s
        expiry-events: false
        durability:
          replicas: 1
          timeout: 250ms
        max-value-bytes: 4MB
        pack:
          max-bytes: 2KB
        migrate-from: spring-session-data-redis
        migrate-from-namespace: "legacy:sessions"
        allow-list-mode: audit
        require-serializable: false
        allow-organization-packages: false
        require-redis-at-startup: true
        encryption:
          keys: "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
          accept-unprotected: false
          write-unprotected: false
        absolute-timeout: 8h
        anonymous-timeout: 2m
        id-renewal-interval: 15m
        id-renewal-grace: 20s
        max-sessions-per-principal: 2
        max-sessions-action: refuse-new
        session-budget:
          warn-bytes: 16KB
          max-bytes: 64KB
      """;

  static StandardEnvironment yaml(String document) throws IOException {
    StandardEnvironment environment = new StandardEnvironment();
    List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("application.yml",
        new ByteArrayResource(document.getBytes(StandardCharsets.UTF_8), "application.yml"));
    sources.forEach(source -> environment.getPropertySources().addFirst(source));
    return environment;
  }

  @Test
  void bind_everyPropertyNestedInYaml_isRead() throws IOException {
    LazySessionProperties properties = LazySessionProperties.bind(yaml(EVERY_PROPERTY));

    assertThat(properties.namespace()).isEqualTo("shop");
    assertThat(properties.codecKind()).isEqualTo(CodecKind.JDK);
    assertThat(properties.compression()).isEqualTo("none");
    assertThat(properties.compressionSettings().enabled()).isFalse();
    assertThat(properties.compressionLevel()).isEqualTo(9);
    assertThat(properties.compressionMinBytes()).isEqualTo(64);
    assertThat(properties.allowedPackages()).containsExactly("com.example.a", "com.example.b");
    assertThat(properties.immutableTypes())
        .containsExactly("com.example.a.Money", "com.example.a.Cart$Line");
    assertThat(properties.decodeFailurePolicy()).isEqualTo(DecodeFailurePolicy.FAIL);
    assertThat(properties.nearCache().maxBytes()).isEqualTo(DataSize.ofMegabytes(32));
    assertThat(properties.nearCache().mode()).isEqualTo(LazySessionProperties.NearCacheMode.TRACK);
    assertThat(properties.nearCache().maxStaleness()).isEqualTo(Duration.ofMillis(250));
    assertThat(properties.touchInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(properties.expiryGrace()).isEqualTo(Duration.ofMinutes(1));
    assertThat(properties.cleanupInterval()).isZero();
    assertThat(properties.expiryEvents()).isFalse();
    assertThat(properties.durability().replicas()).isEqualTo(1);
    assertThat(properties.durability().timeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(properties.maxValueBytes()).isEqualTo(DataSize.ofMegabytes(4));
    assertThat(properties.pack().maxBytes()).isEqualTo(DataSize.ofKilobytes(2));
    assertThat(properties.migrateFrom()).isEqualTo("spring-session-data-redis");
    assertThat(properties.migrateFromNamespace()).isEqualTo("legacy:sessions");
    assertThat(properties.allowListMode()).isEqualTo("audit");
    assertThat(properties.requireSerializable()).isFalse();
    assertThat(properties.allowOrganizationPackages()).isFalse();
    assertThat(properties.requireRedisAtStartup()).isTrue();
    assertThat(properties.encryption().keys()).startsWith("k1:");
    assertThat(properties.encryption().acceptUnprotected()).isFalse();
    assertThat(properties.encryption().writeUnprotected()).isFalse();
    assertThat(properties.absoluteTimeout()).isEqualTo(Duration.ofHours(8));
    assertThat(properties.anonymousTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(properties.idRenewalInterval()).isEqualTo(Duration.ofMinutes(15));
    assertThat(properties.idRenewalGrace()).isEqualTo(Duration.ofSeconds(20));
    assertThat(properties.maxSessionsPerPrincipal()).isEqualTo(2);
    assertThat(properties.maxSessionsAction()).isEqualTo("refuse-new");
    assertThat(properties.sessionBudget().warnBytes()).isEqualTo(DataSize.ofKilobytes(16));
    assertThat(properties.sessionBudget().maxBytes()).isEqualTo(DataSize.ofKilobytes(64));
    assertThat(properties.compressionDictionary())
        .isEqualTo(new CompressionDictionary(false, "/etc/lazysession/sessions.dict"));
  }

  /** A property added without a line in {@link #EVERY_PROPERTY} fails here, until it has one. */
  @Test
  void everyPropertyDocument_coversEveryDocumentedProperty() throws IOException {
    Set<String> written = new TreeSet<>();
    for (PropertySource<?> source : yaml(EVERY_PROPERTY).getPropertySources()) {
      if (source.getName().contains("application.yml")) {
        for (String name : ((EnumerablePropertySource<?>) source).getPropertyNames()) {
          written.add(name.replaceAll("\\[\\d+]$", ""));
        }
      }
    }
    Set<String> documented = new TreeSet<>();
    for (Map<String, Object> property : PropertyTableTest.metadata()) {
      documented.add((String) property.get("name"));
    }
    // lazysession.compression is written as compression.algorithm when nested (tested below).
    documented.remove("lazysession.compression");

    assertThat(written).containsAll(documented);
  }

  @Test
  void bind_compressionAsAValueBesideItsChildrenAsDottedKeys_isRead() throws IOException {
    LazySessionProperties properties = LazySessionProperties.bind(yaml("""
        lazysession:
          compression: none
          compression.level: 7
          compression.min-bytes: 32
        """));

    assertThat(properties.compression()).isEqualTo("none");
    assertThat(properties.compressionLevel()).isEqualTo(7);
    assertThat(properties.compressionMinBytes()).isEqualTo(32);
  }

  @Test
  void bind_nestedCompressionWithoutAlgorithm_keepsZstd() throws IOException {
    LazySessionProperties properties = LazySessionProperties.bind(yaml("""
        lazysession:
          compression:
            level: 12
        """));

    assertThat(properties.compressionSettings().enabled()).isTrue();
    assertThat(properties.compressionSettings().level()).isEqualTo(12);
  }

  @Test
  void bind_propertiesFileForms_stayTheContract() throws IOException {
    LazySessionProperties properties = LazySessionProperties.bind(new StandardEnvironment() {
      {
        getPropertySources().addFirst(new org.springframework.core.env.MapPropertySource("p",
            Map.of("lazysession.compression", "zstd", "lazysession.compression.level", "5",
                "lazysession.compression.min-bytes", "128")));
      }
    });

    assertThat(properties.compressionSettings().enabled()).isTrue();
    assertThat(properties.compressionSettings().level()).isEqualTo(5);
    assertThat(properties.compressionSettings().minBytes()).isEqualTo(128);
  }

  @Test
  void startup_wrongValueInYaml_analysisShowsTheValueAndWhereItIsWritten() throws IOException {
    StandardEnvironment environment = yaml("""
        lazysession:
          compression:
            algorithm: brotli
        """);
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LazySessionAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1",
            "lazysession.compression.algorithm=brotli")
        .run(context -> {
          FailureAnalysis analysis = new LazySessionFailureAnalyzer(environment)
              .analyze(context.getStartupFailure());

          assertThat(analysis.getDescription())
              .contains("Setting: lazysession.compression.algorithm")
              .contains("Value: brotli (from Byte array resource [application.yml] - 3:16)");
          assertThat(analysis.getAction())
              .isEqualTo("Set lazysession.compression.algorithm to zstd (the default) or none.");
        });
  }
}
