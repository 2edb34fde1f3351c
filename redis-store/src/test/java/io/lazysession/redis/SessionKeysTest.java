package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SessionKeysTest {
  final SessionKeys keys = new SessionKeys("shop");

  @Test
  void session_id_isHashTaggedUnderNamespace() {
    assertThat(new String(keys.session("abc-123"), UTF_8)).isEqualTo("shop:s:{abc-123}");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "3f2b8c1e-54a7-4d0b-9e61-1c0b7a9d2e44", "caf\u00e9", "\u2192id",
      "a\uD83D\uDE00b", "lone\uD800", "~\u007f"})
  void session_anyId_isTheUtf8OfTheKeyText(String id) {
    SessionKeys keys = new SessionKeys("app:ns");

    assertThat(keys.session(id)).isEqualTo(("app:ns:s:{" + id + "}").getBytes(UTF_8));
  }

  @Test
  void indexKeys_namespace_areSeparateFromSessionHashes() {
    assertThat(new String(keys.principal("ada"), UTF_8)).isEqualTo("shop:principal:ada");
    assertThat(new String(keys.expirations(), UTF_8)).isEqualTo("shop:expirations");
  }

  @ParameterizedTest
  @ValueSource(strings = {"cart", "#v", "##x", "#", "", "a#b", "SPRING_SECURITY_CONTEXT"})
  void attributeField_anyName_mapsBackToTheSameName(String name) {
    String field = SessionKeys.attributeField(name);

    assertThat(SessionKeys.attributeName(field)).isEqualTo(name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"#c", "#a", "#m", "#v", "#p", "#="})
  void attributeName_metadataField_isNotAnAttribute(String field) {
    assertThat(SessionKeys.attributeName(field)).isNull();
  }

  @Test
  void attributeField_ordinaryName_isStoredUnchanged() {
    assertThat(SessionKeys.attributeField("cart")).isEqualTo("cart");
  }
}
