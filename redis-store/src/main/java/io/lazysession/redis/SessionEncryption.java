package io.lazysession.redis;

import java.util.List;
import java.util.Objects;

/**
 * Protection of what a repository stores ({@link LazyRedisSessionRepositoryBuilder#encryption}):
 * every attribute value, the attribute pack and the principal name are sealed with AES-256-GCM
 * under the first key, bound to the namespace, the session and the field, and checked before any
 * byte reaches a codec; session ids and principal names are replaced by keyed names, whose secret
 * the first node makes and keeps in Redis wrapped under every key ({@link NamesKey}). Immutable and thread-safe. docs/security.md has the threat model, the
 * rollout and the rotation.
 *
 * <pre>{@code
 * SessionEncryption.builder()
 *     .keys(EncryptionKey.parseList(System.getenv("LAZYSESSION_KEYS")))
 *     // .acceptUnprotected(true) only while turning protection on or off in a running cluster
 *     .build();
 * }</pre>
 */
public final class SessionEncryption {
  /**
   * Default {@link Builder#acceptUnprotected}: false, so that setting the keys is enough to be
   * protected. Turning protection on in a running cluster sets it to true for the rollout.
   */
  public static final boolean DEFAULT_ACCEPT_UNPROTECTED = false;
  /** Default {@link Builder#writeUnprotected}. */
  public static final boolean DEFAULT_WRITE_UNPROTECTED = false;

  private final List<EncryptionKey> keys;
  private final boolean acceptUnprotected;
  private final boolean writeUnprotected;

  private SessionEncryption(Builder builder) {
    this.keys = EncryptionKey.checked(builder.keys);
    this.acceptUnprotected = builder.acceptUnprotected;
    this.writeUnprotected = builder.writeUnprotected;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this object's settings. */
  public Builder toBuilder() {
    return new Builder().keys(keys).acceptUnprotected(acceptUnprotected)
        .writeUnprotected(writeUnprotected);
  }

  /** The keys: the first writes, every one reads. */
  public List<EncryptionKey> keys() {
    return keys;
  }

  public boolean acceptUnprotected() {
    return acceptUnprotected;
  }

  public boolean writeUnprotected() {
    return writeUnprotected;
  }

  @Override
  public String toString() {
    return "SessionEncryption[keys=" + keys + ", acceptUnprotected=" + acceptUnprotected
        + ", writeUnprotected=" + writeUnprotected + "]";
  }

  /** Builds a {@link SessionEncryption}. Not thread-safe. */
  public static final class Builder {
    private List<EncryptionKey> keys = List.of();
    private boolean acceptUnprotected = DEFAULT_ACCEPT_UNPROTECTED;
    private boolean writeUnprotected = DEFAULT_WRITE_UNPROTECTED;

    private Builder() {}

    /** The keys, in order: the first writes, every one reads. Required; ids unique. */
    public Builder keys(List<EncryptionKey> keys) {
      this.keys = EncryptionKey.checked(Objects.requireNonNull(keys, "keys must not be null"));
      return this;
    }

    /** As {@link #keys(List)}, from comma-separated {@code keyId:base64} entries. */
    public Builder keys(String keys) {
      return keys(EncryptionKey.parseList(keys));
    }

    /**
     * Whether values stored without protection (by a node without keys, or before protection was
     * turned on) are read; default {@value #DEFAULT_ACCEPT_UNPROTECTED}: only key holders can write
     * what this node decodes. Set it to true only while turning protection on (or off) in a running
     * cluster, until {@link LazyRedisSessionRepository#reencrypt()} reports nothing left
     * (docs/security.md, "Rollout"): meanwhile a writer of Redis is as powerful as without keys.
     * Refused values count as rejected and read as absent.
     */
    public Builder acceptUnprotected(boolean acceptUnprotected) {
      this.acceptUnprotected = acceptUnprotected;
      return this;
    }

    /**
     * Whether this node writes values without protection while it reads protected ones; default
     * {@value #DEFAULT_WRITE_UNPROTECTED}. The first step of turning protection on in a running
     * cluster (every node learns the keys before any writes with them), and the last of turning it
     * off (docs/security.md).
     */
    public Builder writeUnprotected(boolean writeUnprotected) {
      this.writeUnprotected = writeUnprotected;
      return this;
    }

    /**
     * @throws IllegalArgumentException without keys, or when {@code writeUnprotected} is on and
     *     {@code acceptUnprotected} off (this node could not read what it writes)
     */
    public SessionEncryption build() {
      if (writeUnprotected && !acceptUnprotected) {
        throw new IllegalArgumentException("writeUnprotected needs acceptUnprotected(true): this "
            + "node would refuse what it writes");
      }
      return new SessionEncryption(this);
    }
  }
}
