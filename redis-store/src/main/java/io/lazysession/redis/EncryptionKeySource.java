package io.lazysession.redis;

import java.util.List;

/**
 * Where the keys of {@link SessionEncryption} come from when they are not in {@code
 * lazysession.encryption.keys}: a bean of this type (Vault, a KMS, a secrets manager) turns
 * protection on with Spring Boot, as the property does. Read once, when the repository is built; to
 * rotate, make it answer the new list and restart the nodes one by one (docs/security.md).
 * Implementations are called on the thread that builds the repository; they need not be
 * thread-safe.
 */
@FunctionalInterface
public interface EncryptionKeySource {
  /**
   * The keys, in order: the first writes, every one reads (for example {@code
   * EncryptionKey.parseList(secretFromVault)}). Never empty.
   */
  List<EncryptionKey> keys();
}
