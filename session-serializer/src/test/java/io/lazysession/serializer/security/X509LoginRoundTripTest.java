package io.lazysession.serializer.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.codec.CodecKind;
import java.io.InputStream;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsByNameServiceWrapper;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.authentication.preauth.PreAuthenticatedAuthenticationProvider;
import org.springframework.security.web.authentication.preauth.PreAuthenticatedAuthenticationToken;
import org.springframework.security.web.authentication.preauth.x509.X509AuthenticationFilter;
import org.springframework.security.web.context.HttpSessionSecurityContextRepository;

/**
 * Client-certificate sign-in ({@code http.x509()}), the commonest pre-authenticated login: Spring
 * Security keeps the certificate as the authentication's credentials, so the security context it
 * stores in the session holds an {@code X509Certificate}. With the default allow-list the context
 * must be stored and read back, as it is for every other kind of sign-in.
 */
class X509LoginRoundTripTest {

  /** The security context Spring Security's X.509 filter leaves in the session. */
  static Object x509SecurityContext() throws Exception {
    X509Certificate certificate;
    try (InputStream pem = X509LoginRoundTripTest.class.getResourceAsStream("/x509/ann.pem")) {
      certificate = (X509Certificate) CertificateFactory.getInstance("X.509")
          .generateCertificate(pem);
    }
    PreAuthenticatedAuthenticationProvider provider = new PreAuthenticatedAuthenticationProvider();
    provider.setPreAuthenticatedUserDetailsService(new UserDetailsByNameServiceWrapper<>(
        new InMemoryUserDetailsManager(User.withUsername("ann").password("{noop}unused")
            .roles("USER").build())));
    X509AuthenticationFilter filter = new X509AuthenticationFilter();
    filter.setAuthenticationManager(new ProviderManager(List.of(provider)));
    filter.setSecurityContextRepository(new HttpSessionSecurityContextRepository());
    filter.afterPropertiesSet();
    SecurityContextHolder.clearContext();
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/account");
    request.setAttribute("jakarta.servlet.request.X509Certificate",
        new X509Certificate[] {certificate});
    try {
      filter.doFilter(request, new MockHttpServletResponse(), new MockFilterChain());
    } finally {
      SecurityContextHolder.clearContext();
    }
    Object context = request.getSession().getAttribute(
        HttpSessionSecurityContextRepository.SPRING_SECURITY_CONTEXT_KEY);
    assertThat(context).as("the filter signed in and stored the context").isNotNull();
    return context;
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_x509Login_withDefaults_keepsPrincipalAndCertificate(CodecKind codec)
      throws Exception {
    Object stored = x509SecurityContext();
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec).build();

    SecurityContext decoded = (SecurityContext) serializer.deserialize(serializer.serialize(stored));

    PreAuthenticatedAuthenticationToken original = (PreAuthenticatedAuthenticationToken)
        ((SecurityContext) stored).getAuthentication();
    assertThat(decoded.getAuthentication()).isInstanceOf(PreAuthenticatedAuthenticationToken.class);
    assertThat(decoded.getAuthentication().getName()).isEqualTo("ann");
    assertThat(decoded.getAuthentication().getCredentials()).isEqualTo(original.getCredentials());
  }

  /**
   * The certificate travels as its encoded form: bytes altered inside it fail as a serialization
   * error of that attribute (the factory refuses them), never as anything else, and never by
   * loading a provider's class by name.
   */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_x509LoginWithTamperedCertificate_failsAsASerializationError(CodecKind codec)
      throws Exception {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec)
        .compression(io.lazysession.serializer.compress.Compression.none()).build();
    X509Certificate certificate = (X509Certificate) ((SecurityContext) x509SecurityContext())
        .getAuthentication().getCredentials();
    byte[] envelope = serializer.serialize(x509SecurityContext());
    byte[] der = certificate.getEncoded();
    int at = indexOf(envelope, java.util.Arrays.copyOfRange(der, 0, 32));
    assertThat(at).as("the certificate's encoded form is in the bytes").isPositive();
    envelope[at] = 0x05; // no longer a DER sequence

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> serializer.deserialize(envelope))
        .isInstanceOf(io.lazysession.serializer.SerializationException.class);
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
