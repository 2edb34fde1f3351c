package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.security.SecureRandomSpi;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The default session ids. That an id is made from the generator's own source and nothing else is
 * shown by ids that are exactly the encoding of known bytes: bits drawn from anywhere else (the
 * platform's default {@code SecureRandom}, {@code UUID.randomUUID()}) would not match, and asking
 * the source for a seed fails. The default source is a DRBG; that making ids by the thousand never
 * blocks an event loop, {@code ReactiveNonBlockingIT} shows under BlockHound.
 */
class CompactSessionIdGeneratorTest {
  /** A source that hands out the given bytes, in order, and refuses anything but nextBytes. */
  static final class KnownBytes extends SecureRandom {
    KnownBytes(String... hex) {
      super(new Spi(hex), null);
    }

    static final class Spi extends SecureRandomSpi {
      final Deque<byte[]> next = new ArrayDeque<>();

      Spi(String... hex) {
        for (String bytes : hex) {
          next.add(HexFormat.of().parseHex(bytes));
        }
      }

      @Override
      protected void engineNextBytes(byte[] bytes) {
        byte[] known = next.remove();
        assertThat(bytes).hasSameSizeAs(known);
        System.arraycopy(known, 0, bytes, 0, bytes.length);
      }

      @Override
      protected void engineSetSeed(byte[] seed) {
        throw new AssertionError("the generator seeded its source");
      }

      @Override
      protected byte[] engineGenerateSeed(int numBytes) {
        throw new AssertionError("the generator asked its source for a seed");
      }
    }
  }

  @Test
  void generate_knownBytes_isTheirBase64urlWithoutPadding() {
    CompactSessionIdGenerator generator = new CompactSessionIdGenerator(new KnownBytes(
        "000102030405060708090a0b0c0d0e0f",
        "ffffffffffffffffffffffffffffffff",
        "fbefbefbefbefbefbefbefbefbefbefb"));

    assertThat(generator.generate()).isEqualTo("AAECAwQFBgcICQoLDA0ODw");
    assertThat(generator.generate()).isEqualTo("_____________________w");
    assertThat(generator.generate()).isEqualTo("---------------------w");
  }

  @Test
  void seededDrbg_isADrbg() {
    assertThat(CompactSessionIdGenerator.seededDrbg().getAlgorithm()).isEqualTo("DRBG");
  }

  @Test
  void generate_manyIds_areDistinct22CharacterBase64urlOf16BytesTheStoreAccepts() {
    CompactSessionIdGenerator generator = new CompactSessionIdGenerator();
    Set<String> ids = new HashSet<>();

    for (int i = 0; i < 10_000; i++) {
      String id = generator.generate();
      assertThat(id).hasSize(CompactSessionIdGenerator.LENGTH).matches("[A-Za-z0-9_-]{22}");
      assertThat(Base64.getUrlDecoder().decode(id)).hasSize(16);
      assertThat(SessionKeys.isPlausibleId(id)).isTrue();
      ids.add(id);
    }

    assertThat(ids).hasSize(10_000);
  }
}
