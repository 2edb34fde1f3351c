package io.lazysession.redis;

import java.security.SecureRandom;
import java.util.UUID;
import org.springframework.session.SessionIdGenerator;

/**
 * Random (version 4) UUIDs, as Spring Session's {@code UuidSessionIdGenerator} makes, from a
 * {@code DRBG} {@link SecureRandom} seeded once when this is created: what the reactive repository
 * uses when an application asks for UUIDs by setting that generator. {@link UUID#randomUUID()} draws
 * from the platform's default {@code SecureRandom}, which on Linux may read {@code /dev/urandom} on
 * any call: a blocking read that must not happen on an event loop, where WebFlux changes a session's
 * id (Spring Session's {@code WebSession.changeSessionId} does not offload it). A DRBG reseeds only
 * after 2^31 requests. Thread-safe.
 */
final class NonBlockingUuidGenerator implements SessionIdGenerator {
  private final SecureRandom random;

  /** Seeds the generator (which may block once, on the calling thread). */
  NonBlockingUuidGenerator() {
    this.random = CompactSessionIdGenerator.seededDrbg();
  }

  @Override
  public String generate() {
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    bytes[6] = (byte) ((bytes[6] & 0x0f) | 0x40); // version 4
    bytes[8] = (byte) ((bytes[8] & 0x3f) | 0x80); // IETF variant
    long high = 0;
    long low = 0;
    for (int i = 0; i < 8; i++) {
      high = (high << 8) | (bytes[i] & 0xff);
      low = (low << 8) | (bytes[i + 8] & 0xff);
    }
    return new UUID(high, low).toString();
  }
}
