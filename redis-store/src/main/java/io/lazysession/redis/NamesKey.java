package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The names secret of a namespace ({@link SessionNames}): 32 random bytes made once, by the first
 * node with keys, and kept in Redis wrapped under every value key, so that the keys are the only
 * setting (docs/security.md, "Keyed names"). Stateless.
 *
 * <p>Layout: hash {@code <namespace>:names-key}, one field per key id, {@code 01 | nonce (12) |
 * AES-256-GCM(wrap key, nonce)(secret) | tag (16)}, the wrap key HMAC-SHA256(key, {@value #LABEL}),
 * the associated data the length-prefixed namespace and key id. A node reads it at startup (or when
 * a connection deferred at startup opens): a field under a key id it holds that opens gives the
 * secret, and the node adds the fields of its other keys (HSETNX), so a rotation keeps the secret;
 * a field under a key id it holds that does not open means the node's secret for that id is not
 * the cluster's, and it refuses to start (else it would take every value as forged and overwrite
 * it); no field at all: it makes the secret and writes every field in one script (two nodes
 * starting together agree on whichever ran first).
 */
final class NamesKey {
  static final String SUFFIX = ":names-key";
  static final String LABEL = "lazysession names wrap v1";
  private static final byte VERSION = 1;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BYTES = 16;
  static final Logger log = LoggerFactory.getLogger(NamesKey.class);
  /** Writes every field only if the hash does not exist: one creator. */
  private static final String CREATE = "if redis.call('exists', KEYS[1]) == 1 then return 0 end "
      + "redis.call('hset', KEYS[1], unpack(ARGV)) return 1";

  private NamesKey() {}

  /** The key of the hash holding the wrapped names secret of {@code namespace}. */
  static byte[] key(String namespace) {
    return (namespace + SUFFIX).getBytes(UTF_8);
  }

  /**
   * The names of {@code namespace}, from the secret Redis holds (made now if it holds none).
   *
   * @throws IllegalStateException naming the key id and what to change when this node's keys
   *     cannot open the secret the cluster uses
   */
  static SessionNames load(RedisClusterCommands<byte[], byte[]> commands, String namespace,
      List<EncryptionKey> keys) {
    byte[] key = key(namespace);
    Map<String, byte[]> stored = fields(commands.hgetall(key));
    if (stored.isEmpty()) {
      byte[] secret = new byte[EncryptionKey.SECRET_BYTES];
      ValueProtection.randomBytes(secret);
      List<byte[]> arguments = new ArrayList<>();
      for (EncryptionKey each : keys) {
        arguments.add(each.id().getBytes(UTF_8));
        arguments.add(wrap(namespace, each, secret));
      }
      Long created = commands.eval(CREATE, ScriptOutputType.INTEGER, new byte[][] {key},
          arguments.toArray(byte[][]::new));
      if (created != null && created == 1) {
        log.info("lazysession: made the names key of namespace '{}' and stored it wrapped under "
            + "key ids {}", namespace, keys.stream().map(EncryptionKey::id).toList());
      }
      stored = fields(commands.hgetall(key));
    }
    byte[] secret = opened(namespace, keys, stored);
    for (EncryptionKey each : keys) {
      if (!stored.containsKey(each.id())) {
        byte[] field = each.id().getBytes(UTF_8);
        Boolean added = commands.hsetnx(key, field, wrap(namespace, each, secret));
        if (!Boolean.TRUE.equals(added)) { // another node added it meanwhile: it must agree
          byte[] theirs = commands.hget(key, field);
          opened(namespace, keys, theirs == null ? Map.of() : Map.of(each.id(), theirs));
        }
      }
    }
    return new SessionNames(namespace, secret);
  }

  /** The secret opened from {@code stored}, checked against every field this node can open. */
  private static byte[] opened(String namespace, List<EncryptionKey> keys,
      Map<String, byte[]> stored) {
    byte[] secret = null;
    String from = null;
    for (EncryptionKey each : keys) {
      byte[] wrapped = stored.get(each.id());
      if (wrapped == null) {
        continue;
      }
      byte[] opened = unwrap(namespace, each, wrapped);
      if (opened == null) {
        throw new IllegalStateException("lazysession.encryption.keys: key '" + each.id()
            + "' of this node is not the key '" + each.id() + "' that the other nodes of "
            + "namespace '" + namespace + "' use (the names key stored in Redis under '"
            + each.id() + "' does not open with it). Give this node the same secret for '"
            + each.id() + "' as every other node; a new secret needs a new key id "
            + "(docs/security.md, Rotation). Nothing was written.");
      }
      if (secret != null && !MessageDigest.isEqual(secret, opened)) {
        throw new IllegalStateException("lazysession.encryption.keys: the names key of namespace '"
            + namespace + "' stored in Redis under key '" + from + "' and under key '" + each.id()
            + "' differ; keep one of them: HDEL " + namespace + SUFFIX + " " + each.id()
            + " if '" + from + "' is the key the cluster used first");
      }
      secret = opened;
      from = each.id();
    }
    if (secret == null) {
      throw new IllegalStateException("lazysession.encryption.keys: the names key of namespace '"
          + namespace + "' is stored in Redis under key ids " + stored.keySet() + " only, and "
          + "this node holds none of them (it holds " + keys.stream().map(EncryptionKey::id)
          .toList() + "). Add one of " + stored.keySet() + " to this node's keys: a rotation "
          + "keeps the old key until every node has the new one (docs/security.md)");
    }
    return secret;
  }

  /** {@code secret} wrapped under {@code key}: a field of the hash. */
  static byte[] wrap(String namespace, EncryptionKey key, byte[] secret) {
    byte[] wrapped = new byte[1 + NONCE_BYTES + secret.length + TAG_BYTES];
    wrapped[0] = VERSION;
    byte[] nonce = new byte[NONCE_BYTES];
    ValueProtection.randomBytes(nonce);
    System.arraycopy(nonce, 0, wrapped, 1, NONCE_BYTES);
    try {
      Cipher cipher = cipher(Cipher.ENCRYPT_MODE, namespace, key, wrapped);
      cipher.doFinal(secret, 0, secret.length, wrapped, 1 + NONCE_BYTES);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM failed to wrap the names key", e);
    }
    return wrapped;
  }

  /** The secret wrapped in {@code wrapped}; null when it does not open under {@code key}. */
  static byte @Nullable [] unwrap(String namespace, EncryptionKey key, byte[] wrapped) {
    if (wrapped.length != 1 + NONCE_BYTES + EncryptionKey.SECRET_BYTES + TAG_BYTES
        || wrapped[0] != VERSION) {
      return null;
    }
    try {
      Cipher cipher = cipher(Cipher.DECRYPT_MODE, namespace, key, wrapped);
      return cipher.doFinal(wrapped, 1 + NONCE_BYTES, wrapped.length - 1 - NONCE_BYTES);
    } catch (AEADBadTagException e) {
      return null;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM failed to open the names key", e);
    }
  }

  private static Cipher cipher(int mode, String namespace, EncryptionKey key, byte[] wrapped)
      throws GeneralSecurityException {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key.secret(), "HmacSHA256"));
    SecretKeySpec wrapKey = new SecretKeySpec(mac.doFinal(LABEL.getBytes(UTF_8)), "AES");
    Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
    cipher.init(mode, wrapKey, new GCMParameterSpec(TAG_BYTES * 8, wrapped, 1, NONCE_BYTES));
    cipher.updateAAD(ValueProtection.lengthPrefixed(new byte[] {VERSION},
        namespace.getBytes(UTF_8), key.id().getBytes(UTF_8)));
    return cipher;
  }

  private static Map<String, byte[]> fields(Map<byte[], byte[]> hash) {
    Map<String, byte[]> fields = new LinkedHashMap<>();
    hash.forEach((field, value) -> fields.put(new String(field, UTF_8), value));
    return fields;
  }
}
