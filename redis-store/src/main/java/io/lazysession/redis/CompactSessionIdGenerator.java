package io.lazysession.redis;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import org.springframework.session.SessionIdGenerator;

/**
 * The default session ids: 128 random bits (a random UUID has 122) written as 22 characters of
 * base64url without padding ({@code A-Z a-z 0-9 - _}) rather than a UUID's 36. Each id is stored
 * twice per session, in the key {@code ns:s:{<id>}} and as a member of {@code ns:expirations}, and
 * sent with every find, so the 14 characters saved are saved on every session and every request.
 * Ids are opaque strings to the store: UUIDs of older builds or of Spring Session Data Redis keep
 * working beside these.
 *
 * <p>The bits come from a {@code DRBG} {@link SecureRandom} seeded once, when this is created, for
 * the same reason as {@link NonBlockingUuidGenerator}: WebFlux changes a session's id on an event
 * loop, where a read of the platform's entropy source must not happen. Thread-safe.
 */
final class CompactSessionIdGenerator implements SessionIdGenerator {
  /** Characters of every id: 128 bits at 6 bits a character, rounded up. */
  static final int LENGTH = 22;

  private static final int BYTES = 16;
  private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

  private final SecureRandom random;

  /** Seeds the generator (which may block once, on the calling thread). */
  CompactSessionIdGenerator() {
    this(seededDrbg());
  }

  /** Ids from {@code random} (tests pin the encoding with a source of known bytes). */
  CompactSessionIdGenerator(SecureRandom random) {
    this.random = random;
  }

  /**
   * A {@code DRBG} {@link SecureRandom}, seeded now rather than on its first use; it reseeds only
   * after 2^31 requests, so drawing from it later never reads the entropy source.
   */
  static SecureRandom seededDrbg() {
    SecureRandom random;
    try {
      random = SecureRandom.getInstance("DRBG");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no DRBG SecureRandom (Java 9 and later do)", e);
    }
    random.nextBytes(new byte[BYTES]);
    return random;
  }

  @Override
  public String generate() {
    byte[] bytes = new byte[BYTES];
    random.nextBytes(bytes);
    return BASE64URL.encodeToString(bytes);
  }
}
