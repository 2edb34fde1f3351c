package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Keyed names (encryption keys on): what stands in Redis for a session id and a principal name, so
 * that neither appears in clear in a key, a set or sorted-set member, or a script argument.
 * Thread-safe (MACs and ciphers are confined to their thread; recent session names are memoised).
 *
 * <p>Design: the tag of an id is the first 16 bytes of HMAC-SHA256(mac key, "s" | namespace | 0 |
 * id); its key name carries the tag in base64url (22 characters, as long as a compact id), so
 * the hash tag still keeps one session in one Cluster slot. Where the id must come back (sorted-set
 * and set members, the {@code #i} field of the hash, which the expiry sweep, the principal lookup
 * and {@code reencrypt()} read), it is sealed deterministically as in SIV (RFC 5297's idea): {@code
 * F5 | tag | AES-256-CTR(enc key, iv = tag)(id)}. Opening decrypts and checks that the tag is the
 * id's: nobody without the key can make a member that opens, nor move one to another namespace.
 * Deterministic on purpose: ZREM and SREM name a member by its bytes. A principal name's tag is
 * HMAC-SHA256(mac key, "p" | namespace | 0 | name), first 16 bytes. Both keys are derived from one
 * 32-byte names secret, which never changes with the value keys (docs/security.md, "Key names").
 */
final class SessionNames {
  /** The first byte of a sealed id: as a sealed value's, never a compact id's first character. */
  static final int MARKER = ValueProtection.MARKER;
  static final int TAG_BYTES = 16;
  /** The first byte of a sealed alias ({@link #sealAlias}). */
  static final int ALIAS_MARKER = 0xF6;

  private final byte[] namespace;
  private final SecretKeySpec macKey;
  private final SecretKeySpec encKey;
  /** Per thread: a MAC under {@link #macKey}, reused (a JCE lookup and init cost more than it). */
  private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);
  /** Per thread: an AES/CTR cipher, initialised anew for each id (its IV is the id's tag). */
  private final ThreadLocal<Cipher> ciphers = ThreadLocal.withInitial(() -> {
    try {
      return Cipher.getInstance("AES/CTR/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM lacks AES/CTR/NoPadding", e);
    }
  });
  /** Per thread: the last tag made; a request names its principal several times. */
  private final ThreadLocal<LastTag> lastTag = new ThreadLocal<>();
  /**
   * The tags and names of recently named sessions, at the slot of the id's hash: every request
   * names its session at least once, and an HMAC costs more than the rest of naming it. Racy on
   * purpose: an entry is immutable (final fields), so a reader sees a whole one or another.
   */
  private final Named[] recent = new Named[RECENT_SLOTS];

  private static final int RECENT_SLOTS = 4096;

  private record LastTag(char kind, String text, byte[] tag) {}

  /** A session id, its tag (never modified: shared by every thread) and its name. */
  private record Named(String id, byte[] tag, String name) {}

  /** Names of {@code namespace} made with {@code secret} (32 bytes). */
  SessionNames(String namespace, byte[] secret) {
    this.namespace = namespace.getBytes(UTF_8);
    SecretKeySpec master = new SecretKeySpec(secret, "HmacSHA256");
    this.macKey = new SecretKeySpec(hmac(master, "lazysession names mac v1"), "HmacSHA256");
    this.encKey = new SecretKeySpec(hmac(master, "lazysession names enc v1"), "AES");
  }

  /** The 22 characters that stand for session {@code id} in its key name. */
  String sessionName(String id) {
    return named(id).name();
  }

  /** The 22 characters that stand for principal {@code name} in its set's key name. */
  String principalName(String name) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(tag('p', name));
  }

  /** {@code id} sealed as a member (and as the {@code #i} field): {@code F5 | tag | ciphertext}. */
  byte[] sealId(String id) {
    byte[] plain = id.getBytes(UTF_8);
    byte[] tag = named(id).tag();
    byte[] sealed = new byte[1 + TAG_BYTES + plain.length];
    sealed[0] = (byte) MARKER;
    System.arraycopy(tag, 0, sealed, 1, TAG_BYTES);
    byte[] cipherText = ctr(tag, plain);
    System.arraycopy(cipherText, 0, sealed, 1 + TAG_BYTES, cipherText.length);
    return sealed;
  }

  /** Whether {@code stored} starts like a sealed id (else it is an id in clear). */
  static boolean isSealedId(byte[] stored) {
    return stored.length > 1 + TAG_BYTES && (stored[0] & 0xFF) == MARKER;
  }

  /** The id sealed in {@code stored}; null when it is not one or fails its check. */
  @Nullable String openId(byte[] stored) {
    if (!isSealedId(stored)) {
      return null;
    }
    byte[] tag = Arrays.copyOfRange(stored, 1, 1 + TAG_BYTES);
    byte[] plain = ctr(tag, Arrays.copyOfRange(stored, 1 + TAG_BYTES, stored.length));
    String id = new String(plain, UTF_8);
    // Not through recent: a member may hold anything, and only ids this node names belong there.
    return MessageDigest.isEqual(tag, tag('s', id)) ? id : null;
  }

  /**
   * The alias an id renewal leaves under {@code oldId} (field {@code #>}): {@code F6 | until (8
   * bytes, big-endian epoch milliseconds) | mac (16) | sealed new id}, the mac the first 16 bytes of
   * HMAC-SHA256(mac key, "a" | namespace | 0 | length of old id (4) | old id | until | sealed new
   * id). Bound to the old id and to the end of the grace: copied under another key, or kept past
   * its end, it opens to nothing (docs/security.md, "What a writer of Redis can do").
   */
  byte[] sealAlias(String oldId, String newId, long untilMillis) {
    byte[] sealedNewId = sealId(newId);
    byte[] alias = new byte[1 + 8 + TAG_BYTES + sealedNewId.length];
    alias[0] = (byte) ALIAS_MARKER;
    java.nio.ByteBuffer.wrap(alias, 1, 8).putLong(untilMillis);
    System.arraycopy(aliasMac(oldId, untilMillis, sealedNewId), 0, alias, 9, TAG_BYTES);
    System.arraycopy(sealedNewId, 0, alias, 9 + TAG_BYTES, sealedNewId.length);
    return alias;
  }

  /** Whether {@code stored} starts like a sealed alias ({@link #sealAlias}). */
  static boolean isSealedAlias(byte[] stored) {
    return stored.length > 9 + TAG_BYTES + 1 + TAG_BYTES && (stored[0] & 0xFF) == ALIAS_MARKER;
  }

  /**
   * The new id the alias {@code stored} under {@code oldId} names while its grace lasts at {@code
   * nowMillis}; null when it is no sealed alias, was sealed for another old id, or has ended.
   */
  @Nullable String openAlias(String oldId, byte[] stored, long nowMillis) {
    if (!isSealedAlias(stored)) {
      return null;
    }
    long until = java.nio.ByteBuffer.wrap(stored, 1, 8).getLong();
    byte[] sealedNewId = Arrays.copyOfRange(stored, 9 + TAG_BYTES, stored.length);
    byte[] mac = Arrays.copyOfRange(stored, 9, 9 + TAG_BYTES);
    if (until <= nowMillis || !MessageDigest.isEqual(mac, aliasMac(oldId, until, sealedNewId))) {
      return null;
    }
    return openId(sealedNewId);
  }

  private byte[] aliasMac(String oldId, long untilMillis, byte[] sealedNewId) {
    byte[] old = oldId.getBytes(UTF_8);
    Mac mac = macs.get();
    mac.update((byte) 'a');
    mac.update(namespace);
    mac.update((byte) 0);
    mac.update(java.nio.ByteBuffer.allocate(4).putInt(old.length).array());
    mac.update(old);
    mac.update(java.nio.ByteBuffer.allocate(8).putLong(untilMillis).array());
    return Arrays.copyOf(mac.doFinal(sealedNewId), TAG_BYTES);
  }

  /** The tag and name of session {@code id}, from {@link #recent} when it is there. */
  private Named named(String id) {
    int slot = (id.hashCode() * 0x9E3779B9 >>> 20) & (RECENT_SLOTS - 1);
    Named named = recent[slot];
    if (named == null || !named.id().equals(id)) {
      byte[] tag = tag('s', id);
      named = new Named(id, tag, Base64.getUrlEncoder().withoutPadding().encodeToString(tag));
      recent[slot] = named;
    }
    return named;
  }

  /** The tag of {@code text}; callers never modify it (it may be the cached one). */
  private byte[] tag(char kind, String text) {
    LastTag last = lastTag.get();
    if (last != null && last.kind() == kind && last.text().equals(text)) {
      return last.tag();
    }
    Mac mac = macs.get();
    mac.update((byte) kind);
    mac.update(namespace);
    mac.update((byte) 0);
    byte[] tag = Arrays.copyOf(mac.doFinal(text.getBytes(UTF_8)), TAG_BYTES);
    lastTag.set(new LastTag(kind, text, tag));
    return tag;
  }

  private Mac newMac() {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(macKey);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM lacks HmacSHA256", e);
    }
  }

  private byte[] ctr(byte[] iv, byte[] input) {
    try {
      Cipher cipher = ciphers.get();
      cipher.init(Cipher.ENCRYPT_MODE, encKey, new IvParameterSpec(iv));
      return cipher.doFinal(input);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM lacks AES/CTR/NoPadding", e);
    }
  }

  private static byte[] hmac(SecretKeySpec key, String label) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac.doFinal(label.getBytes(UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM lacks HmacSHA256", e);
    }
  }
}
