package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.redis.EncryptionKey;
import io.lazysession.redis.SessionEncryption;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** {@code lazysession.encryption.*}: defaults, binding, and messages that name the property. */
class EncryptionPropertiesTest {
  static final String SECRET = Base64.getEncoder().encodeToString(new byte[32]);

  private static LazySessionProperties bind(String... keyValues) {
    MockEnvironment environment = new MockEnvironment();
    for (int i = 0; i < keyValues.length; i += 2) {
      environment.setProperty(keyValues[i], keyValues[i + 1]);
    }
    return LazySessionProperties.bind(environment);
  }

  @Test
  void bind_nothingSet_protectionOff() {
    LazySessionProperties.Encryption encryption = bind().encryption();

    assertThat(encryption.keys()).isNull();
    assertThat(encryption.acceptUnprotected()).isFalse();
    assertThat(encryption.writeUnprotected()).isFalse();
    assertThat(encryption.settings(null)).isNull();
  }

  @Test
  void bind_keysAndFlags_makeTheRepositorySetting() {
    SessionEncryption settings = bind("lazysession.encryption.keys", "k2:" + SECRET + ", k1:" + SECRET,
        "lazysession.encryption.accept-unprotected", "false").encryption().settings(null);

    assertThat(settings.keys()).extracting(EncryptionKey::id).containsExactly("k2", "k1");
    assertThat(settings.acceptUnprotected()).isFalse();
    assertThat(settings.writeUnprotected()).isFalse();
  }

  @Test
  void bind_keysOnly_protectedRefusingUnprotectedValues() {
    SessionEncryption settings = bind("lazysession.encryption.keys", "k1:" + SECRET).encryption()
        .settings(null);

    assertThat(settings.acceptUnprotected()).isFalse();
    assertThat(settings.writeUnprotected()).isFalse();
  }

  @Test
  void bind_writeUnprotectedAlone_failsSayingAcceptUnprotectedMustBeSetForTheRollout() {
    assertThatThrownBy(() -> bind("lazysession.encryption.keys", "k1:" + SECRET,
        "lazysession.encryption.write-unprotected", "true"))
        .hasStackTraceContaining("lazysession.encryption.write-unprotected=true needs "
            + "lazysession.encryption.accept-unprotected=true");
  }

  @Test
  void bind_shortKey_failsNamingThePropertyAndTheKeyButNotTheSecret() {
    String shortSecret = Base64.getEncoder().encodeToString(new byte[16]);

    assertThatThrownBy(() -> bind("lazysession.encryption.keys", "k1:" + shortSecret))
        .hasStackTraceContaining("lazysession.encryption.keys: key 'k1' must have 32 bytes "
            + "(openssl rand -base64 32), had 16")
        .satisfies(e -> assertThat(stackTrace(e)).doesNotContain(shortSecret));
  }

  @Test
  void bind_notBase64_failsNamingTheFix() {
    assertThatThrownBy(() -> bind("lazysession.encryption.keys", "k1:not base64!"))
        .hasStackTraceContaining("lazysession.encryption.keys: key 'k1' is not base64 (make one "
            + "with openssl rand -base64 32)");
  }

  @Test
  void bind_writeUnprotectedWithoutAcceptingIt_failsNamingBothProperties() {
    assertThatThrownBy(() -> bind("lazysession.encryption.keys", "k1:" + SECRET,
        "lazysession.encryption.write-unprotected", "true",
        "lazysession.encryption.accept-unprotected", "false"))
        .hasStackTraceContaining("lazysession.encryption.write-unprotected=true needs "
            + "lazysession.encryption.accept-unprotected=true");
  }

  @Test
  void toString_keysSet_neverShowsThem() {
    LazySessionProperties properties = bind("lazysession.encryption.keys", "k1:" + SECRET);

    assertThat(properties.toString()).doesNotContain(SECRET).contains("keys=(set)");
  }

  @Test
  void keySource_propertySetToo_failsNamingTheProperty() {
    LazySessionProperties properties = bind("lazysession.encryption.keys", "k1:" + SECRET);

    assertThatThrownBy(() -> RepositoryFactory.keySource(properties,
        () -> EncryptionKey.parseList("k9:" + SECRET)))
        .isInstanceOf(LazySessionConfigurationException.class)
        .hasMessageContaining("lazysession.encryption.keys")
        .hasMessageContaining("EncryptionKeySource bean");
  }

  @Test
  void keySource_beanWithoutKeys_failsSayingOneIsNeeded() {
    LazySessionProperties properties = bind();

    assertThatThrownBy(() -> RepositoryFactory.keySource(properties, List::of))
        .hasMessageContaining("at least one key is needed");
    assertThat(RepositoryFactory.keySource(properties, null)).isNull();
  }

  private static String stackTrace(Throwable e) {
    java.io.StringWriter out = new java.io.StringWriter();
    e.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }
}
