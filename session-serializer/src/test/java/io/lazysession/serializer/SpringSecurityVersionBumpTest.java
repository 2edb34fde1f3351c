package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.serializer.security.SessionState;
import io.lazysession.serializer.security.SpringSecuritySessions;
import java.io.InvalidClassException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.web.authentication.WebAuthenticationDetails;

/**
 * Sessions written by one Spring Security version stay readable after the application upgrades it.
 *
 * <p>The fixtures under {@code src/test/resources/spring-security/} are the Kryo bytes (uncompressed
 * envelopes) of every kind of session state in {@link SpringSecuritySessions}, written by this code
 * with Spring Security 7.1.2 (the version Spring Boot 4.1.2 manages) by running this test once with
 * {@code -Dlazysession.golden.write=true}. They stay committed as they are: when the build moves to a
 * newer Spring Security, whose classes carry a new {@code serialVersionUID} and may have gained or lost
 * fields, this test decodes the old bytes with the new classes. Kryo's compatible field encoding does
 * not write the {@code serialVersionUID} at all and matches fields by name, so neither change matters;
 * a field change is also played here by renaming a field in the old bytes.
 *
 * <p>JDK serialization cannot do this: it refuses a class whose {@code serialVersionUID} changed,
 * which Spring Security ties to its version. Shown here by changing the UID in the bytes; the store
 * then hides that attribute (the session reads as signed out) instead of failing the request.
 */
class SpringSecurityVersionBumpTest {
  /** What each fixture must still show once decoded: strings in its public state. */
  private static final Map<String, List<String>> EXPECTED = Map.ofEntries(
      Map.entry("form login", List.of("ada", "ROLE_ADMIN", "203.0.113.7", "FACTOR_PASSWORD")),
      Map.entry("remember-me", List.of("ada", "ROLE_USER", "remember-me-key".hashCode() + "")),
      Map.entry("OIDC login",
          List.of("URL https://idp.example.com", "248289761001", "ada@example.com", "idp")),
      Map.entry("passkey login", List.of("Ada Lovelace", "FACTOR_WEBAUTHN")),
      Map.entry("OAuth2 authorized clients", List.of("refresh-8xLOxBtZp8",
          "https://idp.example.com/oauth2/token", "eyJhbGciOiJSUzI1NiJ9.access", "Example IdP")),
      Map.entry("OAuth2 authorization request",
          List.of("https://idp.example.com/oauth2/authorize", "shop")),
      Map.entry("saved request", List.of("blue shoes", "theme", "fr_FR", "User-Agent", "item")),
      Map.entry("CSRF token", List.of("X-CSRF-TOKEN", "_csrf")),
      Map.entry("passkey registration options", List.of("shop.example.com", "Example shop", "ada")),
      Map.entry("passkey request options", List.of("shop.example.com")),
      Map.entry("one-time token login", List.of("ada", "ROLE_ADMIN", "FACTOR_OTT")));

  private static final AttributeSerializer KRYO =
      AttributeSerializer.builder().codec(CodecKind.KRYO).compression(Compression.none()).build();
  private static final AttributeSerializer JDK =
      AttributeSerializer.builder().codec(CodecKind.JDK).compression(Compression.none()).build();

  static Stream<Arguments> fixtures() {
    return SpringSecuritySessions.kinds().stream().map(kind -> Arguments.of(kind.description(),
        GoldenFiles.readOrWrite(resource(kind.description()), KRYO.serialize(kind.value()))));
  }

  private static String resource(String description) {
    return "spring-security/" + description.toLowerCase(java.util.Locale.ROOT).replace(' ', '-')
        + "-kryo-7.1.2.hex";
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void deserialize_kryoBytesFromSpringSecurity712_readsWithCurrentSpringSecurity(String kind, byte[] stored) {
    Object decoded = KRYO.deserialize(stored);

    String state = SessionState.of(decoded).toString();
    assertThat(EXPECTED.get(kind)).as("expectations for " + kind).isNotNull();
    for (String expected : EXPECTED.get(kind)) {
      assertThat(state).as(kind).contains(expected);
    }
    // and the current code writes it back to bytes that read as the same state
    assertThat(SessionState.of(KRYO.deserialize(KRYO.serialize(decoded)))).isEqualTo(SessionState.of(decoded));
  }

  @Test
  void deserialize_kryoBytesWithFieldUnknownToTheNewVersion_readsTheOtherFields() {
    byte[] stored = GoldenFiles.read(resource("form login"));
    // As if a later WebAuthenticationDetails had renamed remoteAddress: the reader skips the field
    // it no longer has and keeps the one it still has.
    byte[] renamed = GoldenFiles.replace(stored, "remoteAddre", "formerField");

    SecurityContext decoded = (SecurityContext) KRYO.deserialize(renamed);

    WebAuthenticationDetails details = (WebAuthenticationDetails) decoded.getAuthentication().getDetails();
    assertThat(details.getRemoteAddress()).isNull();
    assertThat(details.getSessionId()).isEqualTo("6f1c0a6e-session");
    assertThat(decoded.getAuthentication().getName()).isEqualTo("ada");
  }

  @Test
  void deserialize_jdkBytesAfterSerialVersionUidChange_failsWithInvalidClass() {
    Object context = SpringSecuritySessions.kinds().get(0).value();
    byte[] written = JDK.serialize(context);
    byte[] bumped = changeSerialVersionUid(written, "org.springframework.security.core.context.SecurityContextImpl");

    assertThatThrownBy(() -> JDK.deserialize(bumped))
        .isInstanceOf(SerializationException.class)
        .hasRootCauseInstanceOf(InvalidClassException.class);
    assertThat(JDK.deserialize(written)).isEqualTo(context);
  }

  /** Flips the serialVersionUID that follows a class name in a JDK stream's class descriptor. */
  private static byte[] changeSerialVersionUid(byte[] stream, String className) {
    byte[] name = className.getBytes(StandardCharsets.UTF_8);
    outer:
    for (int i = 0; i + name.length + 8 <= stream.length; i++) {
      for (int j = 0; j < name.length; j++) {
        if (stream[i + j] != name[j]) {
          continue outer;
        }
      }
      byte[] copy = stream.clone();
      copy[i + name.length + 7] ^= 0x01;
      return copy;
    }
    throw new IllegalArgumentException(className + " not in the stream");
  }
}
