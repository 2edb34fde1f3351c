package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sealed value format and the three outcomes of opening one (see {@link ValueProtection}). */
class ValueProtectionTest {
  static final String SECRET_1 = Base64.getEncoder().encodeToString(new byte[32]);
  static final String SECRET_2 = Base64.getEncoder().encodeToString(filled(32, 7));
  static final byte[] PLAIN = "an envelope".getBytes(UTF_8);

  final MetricsRecorder metrics = new MetricsRecorder();

  static byte[] filled(int length, int value) {
    byte[] bytes = new byte[length];
    Arrays.fill(bytes, (byte) value);
    return bytes;
  }

  ValueProtection protection(String keys, boolean acceptUnprotected, boolean writeUnprotected) {
    return new ValueProtection("ns", SessionEncryption.builder().keys(keys)
        .acceptUnprotected(acceptUnprotected).writeUnprotected(writeUnprotected).build(), metrics);
  }

  @Test
  void seal_value_isMarkerKeyIdNonceCiphertextAndTag() {
    byte[] sealed = protection("k1:" + SECRET_1, true, false).seal("id", "cart", PLAIN);

    assertThat(sealed.length).isEqualTo(1 + 1 + 2 + 24 + PLAIN.length + 16);
    assertThat(sealed[0] & 0xFF).isEqualTo(0xF5);
    assertThat(sealed[1]).isEqualTo((byte) 2);
    assertThat(new String(sealed, 2, 2, UTF_8)).isEqualTo("k1");
    assertThat(ValueProtection.keyId(sealed)).isEqualTo("k1");
    assertThat(new String(sealed, UTF_8)).doesNotContain("envelope");
  }

  @Test
  void open_sameSessionAndField_givesThePlaintext() {
    ValueProtection protection = protection("k1:" + SECRET_1, false, false);

    byte[] opened = protection.open("id", "cart", protection.seal("id", "cart", PLAIN));

    assertThat(opened).isEqualTo(PLAIN);
    assertThat(metrics.rejectedValues.sum()).isZero();
  }

  @Test
  void open_otherSessionFieldOrNamespace_isRejected() {
    ValueProtection protection = protection("k1:" + SECRET_1, false, false);
    byte[] sealed = protection.seal("id", "cart", PLAIN);
    ValueProtection otherNamespace = new ValueProtection("other", SessionEncryption.builder()
        .keys("k1:" + SECRET_1).build(), metrics);

    assertThat(protection.open("id2", "cart", sealed)).isNull();
    assertThat(protection.open("id", "cart2", sealed)).isNull();
    assertThat(otherNamespace.open("id", "cart", sealed)).isNull();
    assertThat(metrics.rejectedValues.sum()).isEqualTo(3);
  }

  @Test
  void open_idAndFieldSplitElsewhere_isRejected() {
    // Without length prefixes, (id "a\0b", field "c") and (id "a", field "b\0c") were bound to
    // the same associated data: a value moved between them opened.
    ValueProtection protection = protection("k1:" + SECRET_1, false, false);
    byte[] sealed = protection.seal("a\0b", "c", PLAIN);

    assertThat(protection.open("a", "b\0c", sealed)).isNull();
    assertThat(protection.open("a\0b", "c", sealed)).isEqualTo(PLAIN);
  }

  @Test
  void seal_twice_drawsDifferentNonces() {
    ValueProtection protection = protection("k1:" + SECRET_1, false, false);
    ValueProtection otherInstance = protection("k1:" + SECRET_1, false, false);
    byte[] first = protection.seal("id", "cart", PLAIN);
    byte[] second = protection.seal("id", "cart", PLAIN);
    byte[] third = otherInstance.seal("id", "cart", PLAIN);

    int from = 2 + 2;
    byte[] nonce1 = Arrays.copyOfRange(first, from, from + ValueProtection.NONCE_BYTES);
    byte[] nonce2 = Arrays.copyOfRange(second, from, from + ValueProtection.NONCE_BYTES);
    byte[] nonce3 = Arrays.copyOfRange(third, from, from + ValueProtection.NONCE_BYTES);
    int half = ValueProtection.NONCE_BYTES / 2;
    // the GCM nonce (second half) is drawn for every value; the salt (first half) is drawn per
    // thread and instance, so another instance (or a restored copy of this one) has its own
    assertThat(Arrays.copyOfRange(nonce1, half, 2 * half))
        .isNotEqualTo(Arrays.copyOfRange(nonce2, half, 2 * half))
        .isNotEqualTo(Arrays.copyOfRange(nonce3, half, 2 * half));
    assertThat(Arrays.copyOfRange(nonce1, 0, half)).isEqualTo(Arrays.copyOfRange(nonce2, 0, half))
        .isNotEqualTo(Arrays.copyOfRange(nonce3, 0, half));
    assertThat(protection.open("id", "cart", second)).isEqualTo(PLAIN);
  }

  @Test
  void seal_moreValuesThanOneSaltSeals_drawsANewSalt() {
    ValueProtection protection = protection("k1:" + SECRET_1, false, false);
    byte[] tiny = {1};
    byte[] first = protection.seal("id", "cart", tiny);
    byte[] last = first;
    for (int i = 1; i < ValueProtection.SEALS_PER_SALT; i++) {
      last = protection.seal("id", "cart", tiny);
    }
    byte[] next = protection.seal("id", "cart", tiny);

    int from = 2 + 2;
    int half = ValueProtection.NONCE_BYTES / 2;
    assertThat(Arrays.copyOfRange(last, from, from + half))
        .isEqualTo(Arrays.copyOfRange(first, from, from + half));
    assertThat(Arrays.copyOfRange(next, from, from + half))
        .isNotEqualTo(Arrays.copyOfRange(first, from, from + half));
    assertThat(protection.open("id", "cart", first)).isEqualTo(tiny);
    assertThat(protection.open("id", "cart", next)).isEqualTo(tiny);
  }

  @Test
  void open_valuesOfTwoSaltsInTurn_opensEach() {
    ValueProtection writer = protection("k1:" + SECRET_1, false, false);
    ValueProtection otherWriter = protection("k1:" + SECRET_1, false, false);
    ValueProtection reader = protection("k1:" + SECRET_1, false, false);
    byte[] one = writer.seal("id", "cart", PLAIN);
    byte[] two = otherWriter.seal("id", "cart", PLAIN);

    for (int i = 0; i < 3; i++) {
      assertThat(reader.open("id", "cart", one)).isEqualTo(PLAIN);
      assertThat(reader.open("id", "cart", two)).isEqualTo(PLAIN);
    }
    two[2 + 2] ^= 1; // another salt: another derived key, so the tag fails
    assertThat(reader.open("id", "cart", two)).isNull();
  }

  /** Sealed by the version that drew a salt for every value: the layout both versions share. */
  static final String SEALED_EARLIER = "f5026b31bee6412e42342f58dc272059cbdce75ca67780fba3cbc21817beb"
      + "21c4b6790634f8feefdb4e7164d4a882ccda2b0436d664e85add3086366db";

  @Test
  void open_valueSealedByTheEarlierVersion_opens() {
    byte[] secret = new byte[32];
    for (int i = 0; i < secret.length; i++) {
      secret[i] = (byte) i;
    }
    ValueProtection protection = new ValueProtection("lazysession", SessionEncryption.builder()
        .keys("k1:" + Base64.getEncoder().encodeToString(secret)).build(), metrics);

    byte[] plain = protection.open("my-session-id", "cart",
        java.util.HexFormat.of().parseHex(SEALED_EARLIER));

    assertThat(plain).isEqualTo("a known plaintext".getBytes(UTF_8));
  }

  @Test
  void seal_value_opensWithThePlainJceConstructionOfTheDocs() throws Exception {
    byte[] sealed = protection("k1:" + SECRET_1, false, false).seal("id", "cart", PLAIN);

    int header = 2 + 2;
    javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
    mac.init(new javax.crypto.spec.SecretKeySpec(Base64.getDecoder().decode(SECRET_1),
        "HmacSHA256"));
    mac.update("lazysession value key v1".getBytes(UTF_8));
    mac.update(sealed, header, 12); // the salt
    javax.crypto.Cipher gcm = javax.crypto.Cipher.getInstance("AES/GCM/NoPadding");
    gcm.init(javax.crypto.Cipher.DECRYPT_MODE,
        new javax.crypto.spec.SecretKeySpec(mac.doFinal(), "AES"),
        new javax.crypto.spec.GCMParameterSpec(128, sealed, header + 12, 12)); // the nonce
    gcm.updateAAD(sealed, 0, header);
    gcm.updateAAD(ValueProtection.lengthPrefixed("ns".getBytes(UTF_8), "id".getBytes(UTF_8),
        "cart".getBytes(UTF_8)));

    assertThat(gcm.doFinal(sealed, header + 24, sealed.length - header - 24)).isEqualTo(PLAIN);
  }

  @Test
  void open_forgedValueUnderTheSaltOfAGoodOne_isRejectedAndTheGoodOneStillOpens() {
    ValueProtection writer = protection("k1:" + SECRET_1, false, false);
    ValueProtection reader = protection("k1:" + SECRET_1, false, false);
    byte[] good = writer.seal("id", "cart", PLAIN);
    byte[] forged = writer.seal("id", "cart", PLAIN);
    forged[forged.length - 1] ^= 1;

    assertThat(reader.open("id", "cart", forged)).isNull();
    assertThat(reader.open("id", "cart", good)).isEqualTo(PLAIN);
    assertThat(reader.open("id", "cart", forged)).isNull();
  }

  @Test
  void open_oneBitFlipped_isRejected() {
    ValueProtection protection = protection("k1:" + SECRET_1, false, false);
    byte[] sealed = protection.seal("id", "cart", PLAIN);
    sealed[sealed.length - 20] ^= 1;

    assertThat(protection.open("id", "cart", sealed)).isNull();
  }

  @Test
  void open_keyThisNodeLacks_keepsTheBytes() {
    byte[] sealed = protection("k2:" + SECRET_2, false, false).seal("id", "cart", PLAIN);

    byte[] opened = protection("k1:" + SECRET_1, false, false).open("id", "cart", sealed);

    assertThat(opened).isSameAs(sealed);
    assertThat(metrics.rejectedValues.sum()).isZero();
  }

  @Test
  void open_unprotected_acceptedOrRejectedAsConfigured() {
    assertThat(protection("k1:" + SECRET_1, true, false).open("id", "cart", PLAIN))
        .isSameAs(PLAIN);
    assertThat(metrics.unprotectedValues.sum()).isEqualTo(1);
    assertThat(protection("k1:" + SECRET_1, false, false).open("id", "cart", PLAIN)).isNull();
    assertThat(metrics.rejectedValues.sum()).isEqualTo(1);
  }

  @Test
  void seal_secondKeyOrWriteUnprotected_readsWithEveryKey() {
    ValueProtection rotated = protection("k2:" + SECRET_2 + ",k1:" + SECRET_1, false, false);
    byte[] underOld = protection("k1:" + SECRET_1, false, false).seal("id", "f", PLAIN);

    assertThat(rotated.open("id", "f", underOld)).isEqualTo(PLAIN);
    assertThat(rotated.current(underOld)).isFalse();
    assertThat(rotated.current(rotated.seal("id", "f", PLAIN))).isTrue();
    assertThat(protection("k1:" + SECRET_1, true, true).seal("id", "f", PLAIN)).isSameAs(PLAIN);
  }

  @Test
  void seal_twice_differs() {
    ValueProtection protection = protection("k1:" + SECRET_1, false, false);

    assertThat(protection.seal("id", "f", PLAIN)).isNotEqualTo(protection.seal("id", "f", PLAIN));
  }

  @Test
  void none_opensNothing() {
    byte[] sealed = protection("k1:" + SECRET_1, false, false).seal("id", "f", PLAIN);

    assertThat(ValueProtection.NONE.open("id", "f", sealed)).isSameAs(sealed);
    assertThat(ValueProtection.NONE.seal("id", "f", PLAIN)).isSameAs(PLAIN);
  }

  @Test
  void parseList_malformedEntries_failWithMessagesThatNeverShowTheSecret() {
    assertThatThrownBy(() -> EncryptionKey.parseList("k1"))
        .hasMessage("key entry 1 must be keyId:base64 (for example k1:$(openssl rand -base64 32)), "
            + "was not");
    assertThatThrownBy(() -> EncryptionKey.parseList("k1:" + SECRET_1 + ",k1:" + SECRET_2))
        .hasMessage("key id 'k1' appears twice");
    assertThatThrownBy(() -> EncryptionKey.parseList("bad id:" + SECRET_1))
        .hasMessageContaining("key id must be 1 to 32 letters, digits or -_. characters");
    assertThatThrownBy(() -> EncryptionKey.parseList(" , "))
        .hasMessageContaining("at least one key is needed");
    assertThat(EncryptionKey.parseList("k1:" + SECRET_1).toString()).doesNotContain(SECRET_1);
  }

  @Test
  void toBuilder_copy_keepsEverySetting() {
    SessionEncryption settings = SessionEncryption.builder()
        .keys(EncryptionKey.parseList("k2:" + SECRET_2 + ",k1:" + SECRET_1))
        .acceptUnprotected(true).writeUnprotected(true).build();

    SessionEncryption copy = settings.toBuilder().build();

    assertThat(copy.keys()).isEqualTo(settings.keys());
    assertThat(copy.keys()).extracting(EncryptionKey::id).isEqualTo(List.of("k2", "k1"));
    assertThat(copy.acceptUnprotected()).isTrue();
    assertThat(copy.writeUnprotected()).isTrue();
    assertThat(copy.toString()).doesNotContain(SECRET_1);
  }
}
