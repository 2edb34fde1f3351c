package io.lazysession.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * One key of {@link SessionEncryption}: an id, stored in front of every value it protects, and 32
 * random bytes (AES-256). Immutable and thread-safe; {@link #toString()} never shows the secret.
 *
 * <p>Make a secret with {@code openssl rand -base64 32}; docs/security.md says how to store and
 * rotate keys.
 */
public final class EncryptionKey {
  /** How many bytes a secret has. */
  public static final int SECRET_BYTES = 32;
  /** The longest key id, in characters. */
  public static final int MAX_ID_LENGTH = 32;

  private final String id;
  private final byte[] secret;

  private EncryptionKey(String id, byte[] secret) {
    this.id = id;
    this.secret = secret;
  }

  /**
   * A key with the id {@code id} (1 to {@value #MAX_ID_LENGTH} letters, digits, {@code -_.}) and
   * {@code secret}, exactly {@value #SECRET_BYTES} bytes (copied).
   */
  public static EncryptionKey of(String id, byte[] secret) {
    Objects.requireNonNull(id, "key id must not be null");
    Objects.requireNonNull(secret, "key secret must not be null");
    if (!validId(id)) {
      throw new IllegalArgumentException("key id must be 1 to " + MAX_ID_LENGTH
          + " letters, digits or -_. characters, was '" + id + "'");
    }
    if (secret.length != SECRET_BYTES) {
      throw new IllegalArgumentException("key '" + id + "' must have " + SECRET_BYTES
          + " bytes (openssl rand -base64 32), had " + secret.length);
    }
    return new EncryptionKey(id, secret.clone());
  }

  private static boolean validId(String id) {
    return !id.isEmpty() && id.length() <= MAX_ID_LENGTH && id.matches("[A-Za-z0-9_.\\-]+");
  }

  /**
   * The keys of {@code keys}, comma-separated {@code keyId:base64} entries (the format of {@code
   * lazysession.encryption.keys}), in order: the first writes, every one reads. The messages of a
   * refusal name the entry by its id, never its secret.
   *
   * @throws IllegalArgumentException when an entry is malformed, a secret is not 32 bytes of
   *     base64, an id repeats, or there is no entry
   */
  public static List<EncryptionKey> parseList(String keys) {
    Objects.requireNonNull(keys, "keys must not be null");
    List<EncryptionKey> parsed = new ArrayList<>();
    int position = 0;
    for (String entry : keys.split(",")) {
      position++;
      String trimmed = entry.trim();
      if (trimmed.isEmpty()) {
        continue;
      }
      int colon = trimmed.indexOf(':');
      if (colon <= 0 || colon == trimmed.length() - 1) {
        throw new IllegalArgumentException("key entry " + position + " must be keyId:base64 "
            + "(for example k1:$(openssl rand -base64 32)), was not");
      }
      String id = trimmed.substring(0, colon).trim();
      if (!validId(id)) {
        // Never shown: an entry written base64:keyId would show its secret as the id.
        throw new IllegalArgumentException("key entry " + position + " must be keyId:base64, in "
            + "that order: key id must be 1 to " + MAX_ID_LENGTH + " letters, digits or -_. "
            + "characters");
      }
      byte[] secret;
      try {
        secret = Base64.getDecoder().decode(trimmed.substring(colon + 1).trim());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("key '" + id + "' is not base64 (make one with "
            + "openssl rand -base64 32)");
      }
      parsed.add(of(id, secret));
    }
    return checked(parsed);
  }

  /** {@code keys}, checked: at least one, ids unique. */
  static List<EncryptionKey> checked(List<EncryptionKey> keys) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("at least one key is needed (keyId:base64)");
    }
    List<String> ids = new ArrayList<>();
    for (EncryptionKey key : keys) {
      Objects.requireNonNull(key, "keys must not contain null");
      if (ids.contains(key.id)) {
        throw new IllegalArgumentException("key id '" + key.id + "' appears twice");
      }
      ids.add(key.id);
    }
    return List.copyOf(keys);
  }

  /** The key id, stored in clear in front of every value this key protects. */
  public String id() {
    return id;
  }

  /** The secret; package-private, never copied out of this library. */
  byte[] secret() {
    return secret;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof EncryptionKey key && id.equals(key.id)
        && Arrays.equals(secret, key.secret);
  }

  @Override
  public int hashCode() {
    return id.hashCode();
  }

  @Override
  public String toString() {
    return "EncryptionKey[" + id + "]";
  }
}
