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
}
