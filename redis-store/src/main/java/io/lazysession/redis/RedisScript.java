package io.lazysession.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** A Lua script read from the class path, with the SHA-1 Redis knows it by. Immutable. */
final class RedisScript {
  private static final String INCLUDE = "-- #include ";
  /**
   * Looked up once, when this class is first used (when the scripts load, not on an event loop: the
   * first lookup of a provider may read files); each thread uses a copy of its own.
   */
  private static final MessageDigest SHA1 = sha1Digest();
  /** A copy of {@link #SHA1} per thread, reset before each use. */
  private static final ThreadLocal<MessageDigest> THREAD_SHA1 =
      ThreadLocal.withInitial(RedisScript::copyOfSha1);
  private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  static final RedisScript FIND = load("find");
  static final RedisScript SAVE = load("save");
  static final RedisScript DELETE = load("delete");
  static final RedisScript EXPIRE = load("expire");
  /** Replaces a renewed session's old hash by an alias to its new id; see {@link IdRenewal}. */
  static final RedisScript RENEW = load("renew");
  /** Puts a member in a bucket of the expiry schedule of format 2; see {@link ExpiryBuckets}. */
  static final RedisScript SCHEDULE = load("schedule");
  /** Takes a member off the expiry schedule, both formats; see {@link SessionIndexes}. */
  static final RedisScript UNSCHEDULE = load("unschedule");
  /** When a member is due by the expiry schedule, both formats; see {@link SessionIndexes}. */
  static final RedisScript SCHEDULED = load("scheduled");
  /** The oldest past bucket of the expiry schedule of format 2 with members in it. */
  static final RedisScript DUE_BUCKET = load("due-bucket");
  /** SADD that keeps a principal's set alive as long as its sessions; see principal-add.lua. */
  static final RedisScript PRINCIPAL_ADD = load("principal-add");
  /** Admits a sign-in within the limit of sessions per principal; see {@link SessionLimiter}. */
  static final RedisScript PRINCIPAL_LIMIT = load("principal-limit");
  /** Takes over a Spring Session Data Redis session; see {@link SpringSessionDataRedisMigration}. */
  static final RedisScript MIGRATE = load("migrate");
  /** Claims a Spring Session Data Redis hash for a take-over, unless it changed since it was loaded. */
  static final RedisScript CLAIM_SSDR = load("claim-ssdr");
  /** Ends a take-over: removes the claim key unless a delete marked it. */
  static final RedisScript CLAIM_DONE = load("claim-done");
  /** Deletes a Spring Session Data Redis session not yet taken over, marking its claim key. */
  static final RedisScript DELETE_SSDR = load("delete-ssdr");
  /** Spring Session Data Redis's hash of a session, or what an unfinished take-over left. */
  static final RedisScript FIND_SSDR_ONLY = load("find-ssdr-only");
  /** find.lua with a fallback to Spring Session Data Redis's hash; see find-ssdr.lua. */
  static final RedisScript FIND_SSDR = load("find-ssdr");
  /** Seals values anew under the current key; see {@link Reencryption}. */
  static final RedisScript RESEAL = load("reseal");
  /** Announces a node and reads the namespace's format; see {@link RedisFormat}. */
  static final RedisScript FORMAT = load("format");
  /** find.lua as the body of a Redis 7 function library; see find-function.lua. */
  static final RedisScript FIND_FUNCTION = load("find-function");

  private final String name;
  private final byte[] source;
  private final String sha;

  private RedisScript(String name, byte[] source) {
    this.name = name;
    this.source = source;
    this.sha = sha1Hex(source);
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
      return new RedisScript(name, includes(in.readAllBytes()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script " + resource, e);
    }
  }

  /**
   * Replaces each line {@code -- #include <script>.lua} by that script's source, so that a script
   * built around another one (find-ssdr.lua around find.lua), or a piece every script needs
   * (metadata.lua), is never repeated and never drifts.
   */
  private static byte[] includes(byte[] source) {
    String text = new String(source, StandardCharsets.UTF_8);
    if (!text.contains(INCLUDE)) {
      return source;
    }
    StringBuilder result = new StringBuilder(text.length() * 2);
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      if (line.startsWith(INCLUDE) && line.endsWith(".lua")) {
        String included = line.substring(INCLUDE.length()).trim();
        result.append(new String(load(included.substring(0, included.length() - 4)).source,
            StandardCharsets.UTF_8));
      } else {
        result.append(line).append(i == lines.length - 1 ? "" : "\n");
      }
    }
    return result.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static MessageDigest copyOfSha1() {
    try {
      return (MessageDigest) SHA1.clone();
    } catch (CloneNotSupportedException e) {
      return sha1Digest();
    }
  }

  private static MessageDigest sha1Digest() {
    try {
      return MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required by every Java platform", e);
    }
  }

  /**
   * The SHA-1 of {@code bytes} in lower-case hex, as Redis names a script and as Lua's
   * {@code redis.sha1hex} writes it (save.lua compares a stored pack's with it).
   */
  static String sha1Hex(byte[] bytes) {
    byte[] hex = prefixedSha1Hex((byte) 0, bytes);
    return new String(hex, 1, hex.length - 1, StandardCharsets.ISO_8859_1);
  }

  /**
   * {@code prefix} followed by {@link #sha1Hex(byte[])} of {@code bytes}, as ASCII bytes: a script
   * argument made without a string in between. The digest is this thread's own, reset before use,
   * so that a save copies none.
   */
  static byte[] prefixedSha1Hex(byte prefix, byte[] bytes) {
    MessageDigest digest = THREAD_SHA1.get();
    digest.reset();
    byte[] hash = digest.digest(bytes);
    byte[] hex = new byte[1 + 2 * hash.length];
    hex[0] = prefix;
    int at = 1;
    for (byte b : hash) {
      hex[at++] = HEX_DIGITS[(b >> 4) & 0xF];
      hex[at++] = HEX_DIGITS[b & 0xF];
    }
    return hex;
  }

  @Override
  public String toString() {
    return name + ".lua (" + sha + ")";
  }
}
