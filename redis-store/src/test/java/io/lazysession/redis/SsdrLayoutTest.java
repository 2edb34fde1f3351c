package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.AttributeSerializer;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.serializer.JdkSerializationRedisSerializer;

/** Spring Session Data Redis's layout, checked against its own serializer (spring-data-redis). */
class SsdrLayoutTest {
  static final JdkSerializationRedisSerializer JDK = new JdkSerializationRedisSerializer();
  final SsdrLayout layout = new SsdrLayout(SpringSessionDataRedis.defaults());

  static Map<byte[], byte[]> hash(Object... fieldsAndValues) {
    Map<byte[], byte[]> hash = new LinkedHashMap<>();
    for (int i = 0; i < fieldsAndValues.length; i += 2) {
      hash.put(((String) fieldsAndValues[i]).getBytes(UTF_8), JDK.serialize(fieldsAndValues[i + 1]));
    }
    return hash;
  }

  @Test
  void keys_defaultNamespace_areSpringSessionDataRedisKeys() {
    assertThat(new String(layout.session("abc"), UTF_8)).isEqualTo("spring:session:sessions:abc");
    assertThat(new String(layout.expires("abc"), UTF_8))
        .isEqualTo("spring:session:sessions:expires:abc");
    assertThat(new String(layout.sortedExpirations(), UTF_8))
        .isEqualTo("spring:session:sessions:expirations");
    assertThat(new String(layout.principalIndex("ada"), UTF_8)).isEqualTo("spring:session:index:"
        + "org.springframework.session.FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME:ada");
  }

  @Test
  void minuteExpirations_anyInstant_roundsUpToTheNextMinute() {
    long at = Instant.parse("2026-11-23T09:15:00Z").toEpochMilli();
    long next = Instant.parse("2026-11-23T09:16:00Z").toEpochMilli();

    assertThat(new String(layout.minuteExpirations(at), UTF_8))
        .isEqualTo("spring:session:expirations:" + next);
    assertThat(new String(layout.minuteExpirations(at + 59_999), UTF_8))
        .isEqualTo("spring:session:expirations:" + next);
  }

  @Test
  void jdkString_anyString_isWhatTheRedisTemplateWrites() {
    assertThat(SsdrLayout.jdkString("expires:abc")).isEqualTo(JDK.serialize("expires:abc"));
    assertThat(SsdrLayout.string(JDK.serialize("abc"))).isEqualTo("abc");
  }

  @Test
  void read_hashWrittenWithTheJdkSerializer_metadataAndEnvelopes() {
    SsdrSession session = SsdrLayout.read(hash("creationTime", 1000L, "lastAccessedTime", 2000L,
        "maxInactiveInterval", 1800, "sessionAttr:greeting", "hello"));

    assertThat(session).isNotNull();
    assertThat(session.creation()).isEqualTo(1000L);
    assertThat(session.lastAccess()).isEqualTo(2000L);
    assertThat(session.maxInactiveSeconds()).isEqualTo(1800L);
    byte[] envelope = session.attributes().get("greeting");
    assertThat(envelope).startsWith(0xA1, 0x01, 0x00, 0xAC, 0xED).hasSize(3 + JDK.serialize("hello")
        .length);
    assertThat(AttributeSerializer.builder().build().deserialize(envelope)).isEqualTo("hello");
    assertThat(session.expiresAtMillis()).isEqualTo(2000L + 1_800_000L);
  }

  @Test
  void read_metadataMissingOrNotJdkNumbers_null() {
    assertThat(SsdrLayout.read(hash("creationTime", 1000L, "lastAccessedTime", 2000L))).isNull();
    Map<byte[], byte[]> json = new LinkedHashMap<>();
    json.put("creationTime".getBytes(UTF_8), "1000".getBytes(UTF_8));
    json.put("lastAccessedTime".getBytes(UTF_8), "2000".getBytes(UTF_8));
    json.put("maxInactiveInterval".getBytes(UTF_8), "1800".getBytes(UTF_8));
    assertThat(SsdrLayout.read(json)).isNull();
  }

  @Test
  void number_otherSerializedClass_refusedByTheFilter() {
    assertThat(SsdrLayout.number(JDK.serialize(new java.util.Date(5)))).isNull();
    assertThat(SsdrLayout.number(JDK.serialize(new java.util.ArrayList<>()))).isNull();
    assertThat(SsdrLayout.number(new byte[] {(byte) 0xAC, (byte) 0xED, 0, 5, 1})).isNull();
    assertThat(SsdrLayout.number(JDK.serialize(-1))).isEqualTo(-1L);
  }

  @Test
  void sessionPattern_namespaceWithGlobCharacters_escaped() {
    assertThat(new SsdrLayout(SpringSessionDataRedis.namespace("app[1]*")).sessionPattern())
        .isEqualTo("app\\[1\\]\\*:sessions:*");
  }

  @Test
  void namespace_blankOrTrailingColon_refusedNamingTheProperty() {
    assertThatThrownBy(() -> SpringSessionDataRedis.namespace(" "))
        .hasMessageContaining("spring.session.data.redis.namespace");
    assertThatThrownBy(() -> SpringSessionDataRedis.namespace("spring:session:"))
        .hasMessageContaining("trailing ':'");
    assertThat(SpringSessionDataRedis.namespace("spring:session"))
        .isEqualTo(SpringSessionDataRedis.defaults());
  }

  @Test
  void read_attributeRemovedBySpringSessionDataRedis_absent() {
    // SSDR removes an attribute by writing null, which its JDK serializer writes as no bytes.
    SsdrSession session = SsdrLayout.read(hash("creationTime", 1000L, "lastAccessedTime", 2000L,
        "maxInactiveInterval", 1800, "sessionAttr:kept", "k", "sessionAttr:removed", null));

    assertThat(session.attributes()).containsOnlyKeys("kept");
    assertThat(session.fields()).hasSize(5);
  }

  @Test
  void digest_anyHash_sha1OfLengthPrefixedFieldsAndValuesInOrder() {
    Map<byte[], byte[]> hash = new LinkedHashMap<>();
    hash.put("ab".getBytes(UTF_8), "xyz".getBytes(UTF_8));
    hash.put("c".getBytes(UTF_8), new byte[0]);
    java.util.List<byte[]> fields = new java.util.ArrayList<>();

    byte[] digest = SsdrLayout.digest(hash, fields);

    // sha1sum of the text "2:ab3:xyz1:c0:", as claim-ssdr.lua builds it
    assertThat(new String(digest, UTF_8)).isEqualTo("4fb098ef928e3cbeceb47747f4a9bd281a8f16c0");
    assertThat(fields).extracting(f -> new String(f, UTF_8)).containsExactly("ab", "c");
  }
}
