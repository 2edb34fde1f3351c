package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seals and opens the values a repository stores ({@link SessionEncryption}): attribute fields, the
 * pack and the principal name. Thread-safe (ciphers and MACs are confined to their thread).
 *
 * <p>A sealed value is {@code F5 | n | key id (n ASCII bytes) | salt (12) | nonce (12) | AES-256-GCM
 * ciphertext and tag (16)}. 0xF5 never starts an envelope (0xA_), a pack (0xB_) nor UTF-8 text, so
 * sealed and unprotected values are told apart during a rollout. The salt derives the value's AES
 * key, HMAC-SHA256(key, label | salt); GCM runs under it with the nonce. Random 96-bit GCM nonces
 * under one key are safe for about 2^32 values only, which a busy site writes in weeks; here a
 * derived key seals at most {@value #SEALS_PER_SALT} values (a thread draws a fresh salt from the
 * operating system's generator, {@link #RANDOM}, after that many, so the HMAC and AES key schedule
 * are paid once per salt, not per value), and every value draws its own nonce from that generator.
 * Two values share a GCM nonce under one derived key only when their salts and their nonces both
 * repeat; no nonce comes from state kept per instance (a counter): a restored checkpoint (CRaC) or a
 * forked process shares its twin's current salts, and draws nonces of its own from the operating
 * system (docs/security.md states the bounds, and the one case, NativePRNG's 100 ms of reuse, where
 * copies could draw the same bytes). No rotation is ever needed for nonces. A reader derives the key of a value from its salt (one HMAC;
 * values sealed by one writer thread share it, so the last derived key is kept per thread). The
 * associated data is the header, then the namespace, the session id and the field name, each
 * preceded by its length (4 bytes): bytes copied to another session, field or namespace fail the
 * check. The JDK's own AES-GCM and HMAC are used (no new dependency: both are FIPS-reviewed,
 * hardware-accelerated, and every JVM has them).
 *
 * <p>Outcomes of {@link #open}: the plaintext; the stored bytes themselves when they are sealed
 * under a key this node does not hold (valid for another node: kept, never deleted); null when they
 * fail the check under a key it holds, or are unprotected while {@code acceptUnprotected} is off
 * (counted as rejected, logged once, read as absent, never decoded).
 */
final class ValueProtection {
  private static final Logger log = LoggerFactory.getLogger(ValueProtection.class);

  /** The first byte of a sealed value. */
  static final int MARKER = 0xF5;
  /** Salt and GCM nonce together: what a sealed value carries between its header and ciphertext. */
  static final int NONCE_BYTES = 24;
  private static final int SALT_BYTES = NONCE_BYTES / 2;
  /** How many values one thread seals under one derived key before it draws a new salt. */
  static final int SEALS_PER_SALT = 1 << 16;
  static final int TAG_BYTES = 16;
  /** No keys: values are written and read as they are. */
  static final ValueProtection NONE = new ValueProtection("", null, new MetricsRecorder());
  /** Opens nothing: every value as it is stored. */
  static final SessionValues CLEAR = new SessionValues(NONE, "");

  /**
   * Nonces and new secrets: the operating system's generator, read on every call (NativePRNG
   * buffers its bytes for 100 ms at most), so a process restored from a checkpoint (CRaC) or forked
   * draws bytes of its own, where a generator seeded once would repeat its predecessor's.
   */
  static final SecureRandom RANDOM = nonceSource();

  private static final byte[] LABEL = "lazysession value key v1".getBytes(UTF_8);
  private static final ThreadLocal<Cipher> CIPHER = ThreadLocal.withInitial(() -> {
    try {
      return Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM lacks AES/GCM/NoPadding", e);
    }
  });

  private final byte[] namespace;
  private final @Nullable SessionEncryption encryption;
  private final MetricsRecorder metrics;
  /** Key id to secret, in the configured order. */
  private final Map<String, SecretKeySpec> keys = new LinkedHashMap<>();
  private final @Nullable String writeKey;
  /**
   * Per thread, for the last instance that thread used: its MACs and derived keys. One entry per
   * thread whatever the number of instances, so that a discarded instance leaves no key material
   * behind in the threads of a long-lived pool once they use another.
   */
  private static final ThreadLocal<PerThread> PER_THREAD = new ThreadLocal<>();
  private final AtomicBoolean rejectionLogged = new AtomicBoolean();
  ValueProtection(String namespace, @Nullable SessionEncryption encryption,
      MetricsRecorder metrics) {
    this.namespace = namespace.getBytes(UTF_8);
    this.encryption = encryption;
    this.metrics = metrics;
    if (encryption != null) {
      for (EncryptionKey key : encryption.keys()) {
        keys.put(key.id(), new SecretKeySpec(key.secret(), "HmacSHA256"));
      }
    }
    List<EncryptionKey> configured = encryption == null ? List.of() : encryption.keys();
    this.writeKey = configured.isEmpty() || encryption.writeUnprotected() ? null
        : configured.get(0).id();
  }

  /** Whether this node has keys. */
  boolean enabled() {
    return encryption != null;
  }

  /** Whether this node has keys and still reads values stored without protection (a rollout). */
  boolean acceptsUnprotected() {
    return encryption != null && encryption.acceptUnprotected();
  }

  /** Whether {@code stored} starts like a sealed value. */
  static boolean isSealed(byte @Nullable [] stored) {
    return stored != null && stored.length > 2 && (stored[0] & 0xFF) == MARKER;
  }

  /** The key id of a sealed value; null when it is not one or its header is malformed. */
  static @Nullable String keyId(byte[] stored) {
    if (!isSealed(stored)) {
      return null;
    }
    int length = stored[1] & 0xFF;
    if (length == 0 || 2 + length + NONCE_BYTES + TAG_BYTES > stored.length) {
      return null;
    }
    return new String(stored, 2, length, UTF_8);
  }

  /**
   * Whether {@code stored} is as this node writes it: sealed under its first key (or, writing
   * unprotected, not sealed). Anything else is what {@link LazyRedisSessionRepository#reencrypt}
   * rewrites.
   */
  boolean current(byte[] stored) {
    return writeKey == null ? !isSealed(stored) : writeKey.equals(keyId(stored));
  }

  /** Whether this node holds the key {@code stored} was sealed with (false: not sealed). */
  boolean canOpen(byte[] stored) {
    String id = keyId(stored);
    return id != null && keys.containsKey(id);
  }

  /** {@code plain} sealed for field {@code field} of session {@code id}; as is without a write key. */
  byte[] seal(String id, String field, byte[] plain) {
    String keyId = writeKey;
    if (keyId == null) {
      return plain;
    }
    byte[] idBytes = keyId.getBytes(UTF_8);
    int header = 2 + idBytes.length;
    byte[] sealed = new byte[header + NONCE_BYTES + plain.length + TAG_BYTES];
    sealed[0] = (byte) MARKER;
    sealed[1] = (byte) idBytes.length;
    System.arraycopy(idBytes, 0, sealed, 2, idBytes.length);
    PerThread state = perThread();
    DerivedKey derived = state.sealing;
    try {
      if (derived == null || derived.uses >= SEALS_PER_SALT || !derived.keyId.equals(keyId)) {
        byte[] salt = new byte[SALT_BYTES];
        randomBytes(salt);
        derived = new DerivedKey(keyId, salt, valueKey(keyId, salt, 0));
        state.sealing = derived;
      }
      derived.uses++;
      System.arraycopy(derived.salt, 0, sealed, header, SALT_BYTES);
      byte[] nonce = new byte[NONCE_BYTES - SALT_BYTES];
      randomBytes(nonce); // fresh for every value: nothing a restored or forked JVM repeats
      System.arraycopy(nonce, 0, sealed, header + SALT_BYTES, nonce.length);
      Cipher cipher = cipher(Cipher.ENCRYPT_MODE, derived.key, sealed, header, id, field);
      cipher.doFinal(plain, 0, plain.length, sealed, header + NONCE_BYTES);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM failed to seal a value", e);
    }
    return sealed;
  }

  /**
   * The plaintext of {@code stored}, field {@code field} of session {@code id}: see the class
   * comment for the three outcomes.
   */
  byte @Nullable [] open(String id, String field, byte[] stored) {
    if (encryption == null) {
      return stored;
    }
    if (!isSealed(stored)) {
      if (encryption.acceptUnprotected()) {
        metrics.unprotectedValues.increment();
        return stored;
      }
      return rejected(field, "it is not protected and lazysession.encryption.accept-unprotected "
          + "is false");
    }
    String keyId = keyId(stored);
    if (keyId == null) {
      return rejected(field, "its header is malformed");
    }
    if (!keys.containsKey(keyId)) {
      return stored; // valid for a node holding that key: kept as it is
    }
    int header = 2 + (stored[1] & 0xFF);
    try {
      PerThread state = perThread();
      SecretKeySpec key = openingKey(state, keyId, stored, header);
      Cipher cipher = cipher(Cipher.DECRYPT_MODE, key, stored, header, id, field);
      int from = header + NONCE_BYTES;
      byte[] plain = cipher.doFinal(stored, from, stored.length - from);
      opened(state, keyId, stored, header, key); // only a value that passed: forged ones evict nothing
      return plain;
    } catch (AEADBadTagException e) {
      return rejected(field, "it fails authentication under key '" + keyId + "' (forged, "
          + "corrupt, or copied from another session or field)");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM failed to open a value", e);
    }
  }

  /** The principal name stored as {@code stored}; null when none, unreadable here, or rejected. */
  @Nullable String openPrincipal(String id, byte @Nullable [] stored) {
    if (stored == null) {
      return null;
    }
    byte[] plain = open(id, SessionKeys.PRINCIPAL, stored);
    return plain == null || (enabled() && isSealed(plain)) ? null : new String(plain, UTF_8);
  }

  /** The values of session {@code id}, opened as this protection does. */
  SessionValues of(String id) {
    return new SessionValues(this, id);
  }

  /**
   * The values of one session, sealed for writing and opened when read: what {@link SaveRequest}
   * writes and {@link ScriptReplies} reads answers with.
   */
  record SessionValues(ValueProtection protection, String id) {
    /** {@code plain} sealed for the hash field {@code field}. */
    byte[] seal(String field, byte[] plain) {
      return protection.seal(id, field, plain);
    }

    /** The envelope of attribute {@code name}: see {@link ValueProtection#open}. */
    byte @Nullable [] attribute(String name, byte[] stored) {
      return protection.encryption == null ? stored
          : protection.open(id, SessionKeys.attributeField(name), stored);
    }

    /** The stored principal name, opened; null when none, rejected or unreadable here. */
    @Nullable String principal(byte @Nullable [] stored) {
      return protection.openPrincipal(id, stored);
    }
  }

  /** The AES key of key {@code keyId} derived with the 12 bytes of {@code salt} from {@code at}. */
  private SecretKeySpec valueKey(String keyId, byte[] salt, int at)
      throws GeneralSecurityException {
    Map<String, Mac> macs = perThread().macs;
    Mac mac = macs.get(keyId);
    if (mac == null) {
      mac = Mac.getInstance("HmacSHA256");
      mac.init(keys.get(keyId));
      macs.put(keyId, mac);
    }
    mac.update(LABEL);
    mac.update(salt, at, SALT_BYTES);
    return new SecretKeySpec(mac.doFinal(), "AES");
  }

  /**
   * The derived key of the value {@code stored} whose salt starts at {@code at}: the last one this
   * thread opened or sealed with when the salt is theirs, else derived anew (and kept by {@link
   * #opened} once the value passed its check).
   */
  private SecretKeySpec openingKey(PerThread state, String keyId, byte[] stored, int at)
      throws GeneralSecurityException {
    DerivedKey last = state.opened;
    if (last != null && last.sealed(keyId, stored, at)) {
      return last.key;
    }
    last = state.sealing;
    if (last != null && last.sealed(keyId, stored, at)) {
      return last.key;
    }
    return valueKey(keyId, stored, at);
  }

  /** Keeps the key {@code stored} just opened with, unless it is one this thread already has. */
  private static void opened(PerThread state, String keyId, byte[] stored, int at,
      SecretKeySpec key) {
    if ((state.opened == null || state.opened.key != key)
        && (state.sealing == null || state.sealing.key != key)) {
      state.opened = new DerivedKey(keyId, Arrays.copyOfRange(stored, at, at + SALT_BYTES), key);
    }
  }

  /** This thread's state for this instance, made anew when the thread last served another one. */
  private PerThread perThread() {
    PerThread state = PER_THREAD.get();
    if (state == null || state.owner.get() != this) {
      state = new PerThread(this);
      PER_THREAD.set(state);
    }
    return state;
  }

  /** What one thread keeps for one instance: see {@link #PER_THREAD}. */
  private static final class PerThread {
    final java.lang.ref.WeakReference<ValueProtection> owner;
    final Map<String, Mac> macs = new LinkedHashMap<>();
    @Nullable DerivedKey sealing;
    @Nullable DerivedKey opened;

    PerThread(ValueProtection owner) {
      this.owner = new java.lang.ref.WeakReference<>(owner);
    }
  }

  /** A key derived from one salt, and how many values this thread sealed under it. */
  private static final class DerivedKey {
    final String keyId;
    final byte[] salt;
    final SecretKeySpec key;
    int uses;

    DerivedKey(String keyId, byte[] salt, SecretKeySpec key) {
      this.keyId = keyId;
      this.salt = salt;
      this.key = key;
    }

    /** Whether {@code stored}, whose salt starts at {@code at}, was sealed under this key. */
    boolean sealed(String storedKeyId, byte[] stored, int at) {
      return keyId.equals(storedKeyId) && Arrays.equals(salt, 0, SALT_BYTES, stored, at, at + SALT_BYTES);
    }
  }

  /** A cipher set up for the value whose header and nonce are {@code value}'s bytes. */
  private Cipher cipher(int mode, SecretKeySpec valueKey, byte[] value, int header, String id,
      String field) throws GeneralSecurityException {
    Cipher cipher = CIPHER.get();
    cipher.init(mode, valueKey,
        new GCMParameterSpec(TAG_BYTES * 8, value, header + SALT_BYTES, NONCE_BYTES - SALT_BYTES));
    cipher.updateAAD(associated(value, header, id, field)); // one call: GCM buffers partial blocks
    return cipher;
  }

  /**
   * The associated data of a sealed value: its header, then the namespace, the session id and the
   * field name, each preceded by its length (as {@link #lengthPrefixed} writes them): what a sealed
   * value is bound to. Length prefixes make it unambiguous: ids come from
   * cookies and field names from the application, and either may hold any byte.
   */
  private byte[] associated(byte[] value, int header, String id, String field) {
    return lengthPrefixed(value, header, namespace, id.getBytes(UTF_8), field.getBytes(UTF_8));
  }

  /** Each part preceded by its length (4 bytes, big-endian): no two lists give the same bytes. */
  static byte[] lengthPrefixed(byte[]... parts) {
    return lengthPrefixed(new byte[0], 0, parts);
  }

  /**
   * The first {@code headLength} bytes of {@code head}, then {@code parts} as
   * {@link #lengthPrefixed(byte[]...)} writes them.
   */
  private static byte[] lengthPrefixed(byte[] head, int headLength, byte[]... parts) {
    int size = headLength;
    for (byte[] part : parts) {
      size += 4 + part.length;
    }
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(size).put(head, 0, headLength);
    for (byte[] part : parts) {
      buffer.putInt(part.length).put(part);
    }
    return buffer.array();
  }

  /**
   * Fills {@code bytes} from {@link #RANDOM}: a read of the kernel's generator that never waits
   * ({@code /dev/urandom}, NativePRNG's non-blocking source), also on event-loop threads, where a
   * reactive save seals values. BlockHound sees a file read; lazysession's integration
   * ({@code internal.BlockHoundAllowances}) allows this method and nothing else.
   */
  static void randomBytes(byte[] bytes) {
    RANDOM.nextBytes(bytes);
  }

  private static SecureRandom nonceSource() {
    try {
      return SecureRandom.getInstance("NativePRNGNonBlocking");
    } catch (java.security.NoSuchAlgorithmException e) {
      return new SecureRandom(); // not Unix-like: the platform's default
    }
  }

  private byte @Nullable [] rejected(String field, String why) {
    metrics.rejectedValues.increment();
    if (rejectionLogged.compareAndSet(false, true)) {
      log.warn("Ignored the stored value of field '{}' of a session: {}. It reads as absent and is "
          + "never decoded; later ones are only counted (metric lazysession.values.rejected) and "
          + "logged at DEBUG", field, why);
    } else {
      log.debug("Ignored the stored value of field '{}' of a session: {}", field, why);
    }
    return null;
  }
}
