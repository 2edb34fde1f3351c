package io.lazysession.serializer.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.codec.CodecKind;
import java.net.URL;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.oauth2.client.authentication.OAuth2AuthenticationToken;
import org.springframework.security.oauth2.core.oidc.user.DefaultOidcUser;

/**
 * Every kind of state Spring Security keeps in a session round-trips through both codecs with the
 * default configuration (no allowed packages), and comes back equal: by {@code equals} where the
 * class defines it, and by public state (getters, recursively) always.
 */
class SpringSecurityRoundTripTest {

  static Stream<Arguments> kindsAndCodecs() {
    return Stream.of(CodecKind.values()).flatMap(codec ->
        SpringSecuritySessions.kinds().stream().map(kind -> Arguments.of(codec, kind)));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("kindsAndCodecs")
  void deserialize_springSecurityStateWithDefaults_equalsWhatWasStored(CodecKind codec,
      SpringSecuritySessions.Kind kind) {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec).build();

    Object decoded = serializer.deserialize(serializer.serialize(kind.value()));

    assertThat(decoded).isInstanceOf(kind.value().getClass());
    assertThat(SessionState.of(decoded)).isEqualTo(SessionState.of(kind.value()));
    if (kind.value().getClass().getName().startsWith("org.springframework.security.")
        && definesEquals(kind.value().getClass())) {
      // decoded.equals(original): a decoded URL compares without resolving its host
      assertThat(decoded.equals(kind.value())).as("decoded.equals(original)").isTrue();
    }
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void deserialize_oidcLogin_issuerIsUrl(CodecKind codec) {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec).build();
    Object context = SpringSecuritySessions.kinds().stream()
        .filter(k -> k.description().equals("OIDC login")).findFirst().orElseThrow().value();

    SecurityContext decoded = (SecurityContext) serializer.deserialize(serializer.serialize(context));

    DefaultOidcUser user = (DefaultOidcUser) ((OAuth2AuthenticationToken) decoded.getAuthentication())
        .getPrincipal();
    assertThat(user.getIdToken().getClaims().get("iss")).isInstanceOf(URL.class);
    assertThat(user.getIssuer().toExternalForm()).isEqualTo("https://idp.example.com");
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void deserialize_lastAuthenticationFailure_sameExceptionAndMessage(CodecKind codec) {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec).build();
    SpringSecuritySessions.Kind failure = SpringSecuritySessions.lastAuthenticationFailure();
    Throwable stored = (Throwable) failure.value();

    Throwable decoded = (Throwable) serializer.deserialize(serializer.serialize(stored));

    assertThat(failure.attribute()).isEqualTo("SPRING_SECURITY_LAST_EXCEPTION");
    assertThat(decoded).isInstanceOf(stored.getClass()).hasMessage(stored.getMessage());
    assertThat(decoded.getStackTrace()).isEqualTo(stored.getStackTrace());
  }

  static Stream<CodecKind> codecs() {
    return Stream.of(CodecKind.values());
  }

  private static boolean definesEquals(Class<?> type) {
    try {
      return type.getMethod("equals", Object.class).getDeclaringClass() != Object.class;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }
}
