package io.lazysession.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** A Lua script read from the class path, with the SHA-1 Redis knows it by. Immutable. */
final class RedisScript {
  static final RedisScript FIND = load("find");
  static final RedisScript SAVE = load("save");
  static final RedisScript DELETE = load("delete");
  static final RedisScript EXPIRE = load("expire");
  /** Takes over a Spring Session Data Redis session; see {@link SpringSessionDataRedisMigration}. */
  static final RedisScript MIGRATE = load("migrate");

  private final String name;
  private final byte[] source;
  private final String sha;

  private RedisScript(String name, byte[] source) {
    this.name = name;
    this.source = source;
    this.sha = sha1(source);
  }

  String name() {
    return name;
  }

  byte[] source() {
    return source.clone();
  }

  String sha() {
    return sha;
  }

  private static RedisScript load(String name) {
    String resource = name + ".lua";
    try (InputStream in = RedisScript.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("script " + resource + " is missing from the class path");
      }
      return new RedisScript(name, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script " + resource, e);
    }
  }

  private static String sha1(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required by every Java platform", e);
    }
  }

  @Override
  public String toString() {
    return name + ".lua (" + sha + ")";
  }
}
