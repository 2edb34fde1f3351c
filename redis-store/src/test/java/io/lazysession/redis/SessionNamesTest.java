package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SessionNamesTest {
  static final byte[] SECRET = new byte[32];
  final SessionNames names = new SessionNames("ns", SECRET);

  @Test
  void sessionName_isA22CharacterKeyedHashWithoutTheId() {
    String name = names.sessionName("AAECAwQFBgcICQoLDA0ODw");
    assertThat(name).hasSize(22).matches("[A-Za-z0-9_-]+").doesNotContain("AAECAw");
    assertThat(names.sessionName("AAECAwQFBgcICQoLDA0ODw")).isEqualTo(name);
    assertThat(new SessionNames("other", SECRET).sessionName("AAECAwQFBgcICQoLDA0ODw"))
        .isNotEqualTo(name);
    assertThat(names.principalName("AAECAwQFBgcICQoLDA0ODw")).isNotEqualTo(name);
  }

  @Test
  void sessionName_manyIdsSharingSlotsOfTheRecentNames_eachKeepsItsOwnName() {
    SessionNames fresh = new SessionNames("ns", SECRET);
    java.util.Map<String, String> first = new java.util.HashMap<>();
    for (int i = 0; i < 20_000; i++) {
      first.put("id-" + i, names.sessionName("id-" + i));
    }
    for (int i = 19_999; i >= 0; i--) {
      String id = "id-" + i;
      assertThat(names.sessionName(id)).isEqualTo(first.get(id)).isEqualTo(fresh.sessionName(id));
      assertThat(names.openId(names.sealId(id))).isEqualTo(id);
    }
    assertThat(new java.util.HashSet<>(first.values())).hasSize(20_000);
  }

  @Test
  void sealId_opensToTheIdAndIsDeterministic() {
    byte[] sealed = names.sealId("my-id");
    assertThat(sealed).hasSize(1 + 16 + 5).isEqualTo(names.sealId("my-id"));
    assertThat(new String(sealed, java.nio.charset.StandardCharsets.ISO_8859_1))
        .doesNotContain("my-id");
    assertThat(names.openId(sealed)).isEqualTo("my-id");
  }

  @Test
  void openId_tamperedOtherNamespaceOrClear_isNull() {
    byte[] sealed = names.sealId("my-id");
    byte[] tampered = sealed.clone();
    tampered[tampered.length - 1] ^= 1;
    assertThat(names.openId(tampered)).isNull();
    assertThat(new SessionNames("other", SECRET).openId(sealed)).isNull();
    assertThat(names.openId("my-id".getBytes(java.nio.charset.StandardCharsets.UTF_8))).isNull();
    assertThat(names.openId(Arrays.copyOf(sealed, 17))).isNull();
  }

  @Test
  void sessionKeys_withoutNames_areAsBefore() {
    SessionKeys keys = new SessionKeys("ns");
    assertThat(new String(keys.session("abc"))).isEqualTo("ns:s:{abc}");
    assertThat(new String(keys.member("abc"))).isEqualTo("abc");
    assertThat(new String(keys.principal("bob", "abc"))).isEqualTo("ns:principal:bob");
    assertThat(keys.idField("abc")).isNull();
  }

  @Test
  void sessionKeys_withNames_hashKeysAndSealMembers() {
    SessionKeys keys = new SessionKeys("ns", names, true, false);
    assertThat(new String(keys.session("abc"))).isEqualTo("ns:s:{" + names.sessionName("abc") + "}");
    assertThat(keys.idOf(keys.member("abc"))).isEqualTo("abc");
    assertThat(keys.idOf("abc".getBytes(java.nio.charset.StandardCharsets.UTF_8))).isNull();
    assertThat(new String(keys.principal("bob"))).isEqualTo("ns:principal:" + names.principalName("bob"));
  }

  @Test
  void sessionKeys_rollout_clearMemberLocatesTheSessionUnderItsId() {
    SessionKeys keys = new SessionKeys("ns", names, true, true);
    assertThat(keys.idOf("abc".getBytes(java.nio.charset.StandardCharsets.UTF_8))).isEqualTo("abc");
    assertThat(new String(keys.session("abc"))).isEqualTo("ns:s:{abc}");
    assertThat(keys.principals("bob")).hasSize(2);
  }
}
