package io.lazysession.serializer.security;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import jakarta.servlet.http.Cookie;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.MockHttpSession;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.RememberMeAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.authority.FactorGrantedAuthority;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClient;
import org.springframework.security.oauth2.client.authentication.OAuth2AuthenticationToken;
import org.springframework.security.oauth2.client.oidc.authentication.OidcIdTokenDecoderFactory;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.client.registration.InMemoryClientRegistrationRepository;
import org.springframework.security.oauth2.client.web.DefaultOAuth2AuthorizationRequestResolver;
import org.springframework.security.oauth2.client.web.HttpSessionOAuth2AuthorizationRequestRepository;
import org.springframework.security.oauth2.client.web.HttpSessionOAuth2AuthorizedClientRepository;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.core.OAuth2AccessToken;
import org.springframework.security.oauth2.core.OAuth2RefreshToken;
import org.springframework.security.oauth2.core.endpoint.OAuth2AuthorizationRequest;
import org.springframework.security.oauth2.core.oidc.OidcIdToken;
import org.springframework.security.oauth2.core.oidc.OidcUserInfo;
import org.springframework.security.oauth2.core.oidc.user.DefaultOidcUser;
import org.springframework.security.oauth2.core.oidc.user.OidcUserAuthority;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.authentication.WebAuthenticationDetailsSource;
import org.springframework.security.web.context.HttpSessionSecurityContextRepository;
import org.springframework.security.web.csrf.HttpSessionCsrfTokenRepository;
import org.springframework.security.web.savedrequest.HttpSessionRequestCache;
import org.springframework.security.web.webauthn.api.Bytes;
import org.springframework.security.web.webauthn.api.ImmutablePublicKeyCredentialUserEntity;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialRpEntity;
import org.springframework.security.web.webauthn.authentication.HttpSessionPublicKeyCredentialRequestOptionsRepository;
import org.springframework.security.web.webauthn.authentication.WebAuthnAuthentication;
import org.springframework.security.web.webauthn.management.ImmutablePublicKeyCredentialCreationOptionsRequest;
import org.springframework.security.web.webauthn.management.ImmutablePublicKeyCredentialRequestOptionsRequest;
import org.springframework.security.web.webauthn.management.MapPublicKeyCredentialUserEntityRepository;
import org.springframework.security.web.webauthn.management.MapUserCredentialRepository;
import org.springframework.security.web.webauthn.management.Webauthn4JRelyingPartyOperations;
import org.springframework.security.web.webauthn.registration.HttpSessionPublicKeyCredentialCreationOptionsRepository;

/**
 * The session attributes Spring Security writes, built by Spring Security itself: its session-backed
 * repositories ({@code HttpSessionSecurityContextRepository}, {@code HttpSessionRequestCache},
 * {@code HttpSessionCsrfTokenRepository}, the OAuth 2.0 client and WebAuthn repositories) each save
 * into a mock HTTP session, and the attribute is taken from there. Authentications come from the
 * framework's own providers where that needs no network (form login through
 * {@code DaoAuthenticationProvider}; the OIDC ID token decoded from a signed JWT by a
 * {@code NimbusJwtDecoder} with Spring Security's OIDC claim converters, which turn {@code iss} into a
 * {@code java.net.URL}).
 *
 * <p>Reused by the store's integration tests through the test-jar.
 */
public final class SpringSecuritySessions {
  /** The attribute name {@code HttpSessionSecurityContextRepository} writes. */
  public static final String SECURITY_CONTEXT = HttpSessionSecurityContextRepository.SPRING_SECURITY_CONTEXT_KEY;

  private static final Instant ISSUED = Instant.parse("2026-11-23T09:00:00Z");

  private SpringSecuritySessions() {}

  /** One kind of session state: a description, the attribute name and the value Spring Security stored. */
  public record Kind(String description, String attribute, Object value) {
    @Override
    public String toString() {
      return description;
    }
  }

  /** Every kind, each built in a fresh session. */
  public static List<Kind> kinds() {
    List<Kind> kinds = new ArrayList<>();
    kinds.add(securityContext("form login", formLogin()));
    kinds.add(securityContext("remember-me", rememberMe()));
    kinds.add(securityContext("OIDC login", oidcLogin()));
    kinds.add(securityContext("passkey login", passkeyLogin()));
    kinds.add(securityContext("one-time token login", oneTimeTokenLogin()));
    kinds.add(authorizedClients());
    kinds.add(authorizationRequest());
    kinds.add(savedRequest());
    kinds.add(csrfToken());
    kinds.add(passkeyRegistrationOptions());
    kinds.add(passkeyRequestOptions());
    return kinds;
  }

  /**
   * What a failed form login stores for the login page ({@code SPRING_SECURITY_LAST_EXCEPTION}): the
   * provider's exception, saved by the failure handler. Not among {@link #kinds()}: Kryo keeps its
   * class, message, cause and stack trace but not the attempted authentication it carries.
   */
  public static Kind lastAuthenticationFailure() {
    MockHttpServletRequest request = request();
    org.springframework.security.core.AuthenticationException failure;
    try {
      new ProviderManager(new DaoAuthenticationProvider(new InMemoryUserDetailsManager(user())))
          .authenticate(UsernamePasswordAuthenticationToken.unauthenticated("ada", "wrong"));
      throw new IllegalStateException("a wrong password was accepted");
    } catch (org.springframework.security.core.AuthenticationException e) {
      failure = e;
    }
    try {
      new org.springframework.security.web.authentication.SimpleUrlAuthenticationFailureHandler("/signin?error")
          .onAuthenticationFailure(request, new MockHttpServletResponse(), failure);
    } catch (java.io.IOException | jakarta.servlet.ServletException e) {
      throw new IllegalStateException(e);
    }
    return only("failed sign-in", request);
  }

  private static Kind securityContext(String description, Authentication authentication) {
    MockHttpServletRequest request = request();
    new HttpSessionSecurityContextRepository()
        .saveContext(new SecurityContextImpl(authentication), request, new MockHttpServletResponse());
    return only(description, request);
  }

  /** The attribute a repository wrote into the request's fresh session. */
  private static Kind only(String description, MockHttpServletRequest request) {
    MockHttpSession session = (MockHttpSession) request.getSession(false);
    List<String> names = session == null ? List.of() : Collections.list(session.getAttributeNames());
    if (names.size() != 1) {
      throw new IllegalStateException(description + " wrote attributes " + names + ", expected one");
    }
    return new Kind(description, names.get(0), session.getAttribute(names.get(0)));
  }

  /** A browser's request, as a filter sees it: cookies, headers, locales, parameters. */
  static MockHttpServletRequest request() {
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/shop/cart");
    request.setScheme("https");
    request.setServerName("shop.example.com");
    request.setServerPort(443);
    request.setSecure(true);
    request.setRemoteAddr("203.0.113.7");
    request.setQueryString("item=42&item=43&q=blue+shoes");
    request.addParameter("item", "42", "43");
    request.addParameter("q", "blue shoes");
    request.addHeader("Accept", "text/html");
    request.addHeader("User-Agent", "Mozilla/5.0 (X11; Linux x86_64)");
    request.addHeader("Accept-Language", "fr-FR,en;q=0.8");
    request.setPreferredLocales(List.of(Locale.FRANCE, Locale.ENGLISH));
    request.setCookies(new Cookie("theme", "dark"), new Cookie("consent", "yes"));
    request.setSession(new MockHttpSession(null, "6f1c0a6e-session"));
    // a fresh session: the repositories create it again when they save
    request.getSession().invalidate();
    return request;
  }

  static UserDetails user() {
    return User.withUsername("ada").password("{noop}lovelace").roles("USER", "ADMIN").build();
  }

  /** What the form login filter stores: the provider's authentication with the filter's details. */
  public static Authentication formLogin() {
    DaoAuthenticationProvider provider =
        new DaoAuthenticationProvider(new InMemoryUserDetailsManager(user()));
    UsernamePasswordAuthenticationToken attempt =
        UsernamePasswordAuthenticationToken.unauthenticated("ada", "lovelace");
    attempt.setDetails(new WebAuthenticationDetailsSource().buildDetails(withSession(request())));
    return new ProviderManager(provider).authenticate(attempt);
  }

  private static MockHttpServletRequest withSession(MockHttpServletRequest request) {
    request.setSession(new MockHttpSession(null, "6f1c0a6e-session"));
    return request;
  }

  static Authentication rememberMe() {
    UserDetails user = user();
    RememberMeAuthenticationToken token =
        new RememberMeAuthenticationToken("remember-me-key", user, user.getAuthorities());
    token.setDetails(new WebAuthenticationDetailsSource().buildDetails(withSession(request())));
    return token;
  }

  public static ClientRegistration clientRegistration() {
    return ClientRegistration.withRegistrationId("idp")
        .clientId("shop")
        .clientSecret("s3cr3t")
        .clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_BASIC)
        .authorizationGrantType(AuthorizationGrantType.AUTHORIZATION_CODE)
        .redirectUri("{baseUrl}/login/oauth2/code/{registrationId}")
        .scope("openid", "profile", "email")
        .authorizationUri("https://idp.example.com/oauth2/authorize")
        .tokenUri("https://idp.example.com/oauth2/token")
        .jwkSetUri("https://idp.example.com/oauth2/jwks")
        .userInfoUri("https://idp.example.com/userinfo")
        .userNameAttributeName("sub")
        .issuerUri("https://idp.example.com")
        .providerConfigurationMetadata(Map.of("end_session_endpoint", "https://idp.example.com/logout"))
        .clientName("Example IdP")
        .build();
  }

  /**
   * An ID token as the OIDC login provider builds it: a signed JWT decoded with Spring Security's OIDC
   * claim type converters ({@code iss} becomes a {@code java.net.URL}, times become {@code Instant}s).
   */
  static OidcIdToken idToken() {
    byte[] key = "an HMAC key of at least 256 bits for HS256!".getBytes(StandardCharsets.UTF_8);
    try {
      JWTClaimsSet claims = new JWTClaimsSet.Builder()
          .issuer("https://idp.example.com")
          .subject("248289761001")
          .audience("shop")
          .issueTime(Date.from(ISSUED))
          .expirationTime(Date.from(ISSUED.plus(Duration.ofDays(3650))))
          .claim("auth_time", ISSUED.getEpochSecond())
          .claim("nonce", "n-0S6_WzA2Mj")
          .claim("name", "Ada Lovelace")
          .claim("email", "ada@example.com")
          .claim("email_verified", true)
          .build();
      SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
      jwt.sign(new MACSigner(key));
      NimbusJwtDecoder decoder = NimbusJwtDecoder
          .withSecretKey(new SecretKeySpec(key, "HmacSHA256")).macAlgorithm(MacAlgorithm.HS256).build();
      decoder.setClaimSetConverter(OidcIdTokenDecoderFactory.createDefaultClaimTypeConverter());
      decoder.setJwtValidator(token -> org.springframework.security.oauth2.core.OAuth2TokenValidatorResult.success());
      Jwt decoded = decoder.decode(jwt.serialize());
      return new OidcIdToken(decoded.getTokenValue(), decoded.getIssuedAt(), decoded.getExpiresAt(),
          decoded.getClaims());
    } catch (com.nimbusds.jose.JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  static OidcUserInfo userInfo() {
    Map<String, Object> claims = new LinkedHashMap<>();
    claims.put("sub", "248289761001");
    claims.put("name", "Ada Lovelace");
    claims.put("email", "ada@example.com");
    claims.put("email_verified", true);
    claims.put("updated_at", ISSUED);
    claims.put("locale", "en-GB");
    return new OidcUserInfo(claims);
  }

  /** What the OIDC login filter stores: an OAuth2AuthenticationToken holding a DefaultOidcUser. */
  public static Authentication oidcLogin() {
    OidcIdToken idToken = idToken();
    OidcUserInfo userInfo = userInfo();
    Set<GrantedAuthority> authorities = new java.util.LinkedHashSet<>();
    authorities.add(new OidcUserAuthority(idToken, userInfo));
    authorities.add(new org.springframework.security.core.authority.SimpleGrantedAuthority("SCOPE_openid"));
    authorities.add(FactorGrantedAuthority.fromAuthority(FactorGrantedAuthority.AUTHORIZATION_CODE_AUTHORITY));
    DefaultOidcUser user = new DefaultOidcUser(authorities, idToken, userInfo, "sub");
    OAuth2AuthenticationToken token = new OAuth2AuthenticationToken(user, authorities, "idp");
    token.setDetails(new WebAuthenticationDetailsSource().buildDetails(withSession(request())));
    return token;
  }

  /** A sign-in with a one-time token ({@code http.oneTimeTokenLogin()}), as its provider makes it. */
  static Authentication oneTimeTokenLogin() {
    org.springframework.security.authentication.ott.InMemoryOneTimeTokenService tokens =
        new org.springframework.security.authentication.ott.InMemoryOneTimeTokenService();
    String token = tokens.generate(
        new org.springframework.security.authentication.ott.GenerateOneTimeTokenRequest("ada"))
        .getTokenValue();
    Authentication authentication =
        new org.springframework.security.authentication.ott.OneTimeTokenAuthenticationProvider(
            tokens, new InMemoryUserDetailsManager(user()))
            .authenticate(org.springframework.security.authentication.ott
                .OneTimeTokenAuthenticationToken.unauthenticated(token));
    if (authentication instanceof org.springframework.security.authentication
        .AbstractAuthenticationToken token2) {
      token2.setDetails(new WebAuthenticationDetailsSource().buildDetails(withSession(request())));
    }
    return authentication;
  }

  static Authentication passkeyLogin() {
    org.springframework.security.web.webauthn.api.PublicKeyCredentialUserEntity principal = ImmutablePublicKeyCredentialUserEntity.builder()
        .id(new Bytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))
        .name("ada")
        .displayName("Ada Lovelace")
        .build();
    List<GrantedAuthority> authorities = new ArrayList<>(AuthorityUtils.createAuthorityList("ROLE_USER"));
    authorities.add(FactorGrantedAuthority.fromAuthority(FactorGrantedAuthority.WEBAUTHN_AUTHORITY));
    WebAuthnAuthentication authentication = new WebAuthnAuthentication(principal, authorities);
    authentication.setDetails(new WebAuthenticationDetailsSource().buildDetails(withSession(request())));
    return authentication;
  }

  static Kind authorizedClients() {
    OAuth2AccessToken accessToken = new OAuth2AccessToken(OAuth2AccessToken.TokenType.BEARER,
        "eyJhbGciOiJSUzI1NiJ9.access", ISSUED, ISSUED.plus(Duration.ofHours(1)),
        Set.of("openid", "profile", "email"));
    OAuth2RefreshToken refreshToken = new OAuth2RefreshToken("refresh-8xLOxBtZp8", ISSUED);
    OAuth2AuthorizedClient client =
        new OAuth2AuthorizedClient(clientRegistration(), "248289761001", accessToken, refreshToken);
    MockHttpServletRequest request = request();
    new HttpSessionOAuth2AuthorizedClientRepository()
        .saveAuthorizedClient(client, oidcLogin(), request, new MockHttpServletResponse());
    return only("OAuth2 authorized clients", request);
  }

  static Kind authorizationRequest() {
    DefaultOAuth2AuthorizationRequestResolver resolver = new DefaultOAuth2AuthorizationRequestResolver(
        new InMemoryClientRegistrationRepository(clientRegistration()), "/oauth2/authorization");
    MockHttpServletRequest login = request();
    login.setRequestURI("/oauth2/authorization/idp");
    login.setServletPath("/oauth2/authorization/idp");
    login.setQueryString(null);
    OAuth2AuthorizationRequest authorizationRequest = resolver.resolve(login);
    if (authorizationRequest == null) {
      throw new IllegalStateException("the resolver did not build an authorization request");
    }
    new HttpSessionOAuth2AuthorizationRequestRepository()
        .saveAuthorizationRequest(authorizationRequest, login, new MockHttpServletResponse());
    return only("OAuth2 authorization request", login);
  }

  static Kind savedRequest() {
    MockHttpServletRequest request = request();
    new HttpSessionRequestCache().saveRequest(request, new MockHttpServletResponse());
    return only("saved request", request);
  }

  static Kind csrfToken() {
    MockHttpServletRequest request = request();
    HttpSessionCsrfTokenRepository repository = new HttpSessionCsrfTokenRepository();
    repository.saveToken(repository.generateToken(request), request, new MockHttpServletResponse());
    return only("CSRF token", request);
  }

  private static Webauthn4JRelyingPartyOperations relyingParty() {
    MapPublicKeyCredentialUserEntityRepository users = new MapPublicKeyCredentialUserEntityRepository();
    return new Webauthn4JRelyingPartyOperations(users, new MapUserCredentialRepository(),
        PublicKeyCredentialRpEntity.builder().id("shop.example.com").name("Example shop").build(),
        Set.of("https://shop.example.com"));
  }

  static Kind passkeyRegistrationOptions() {
    MockHttpServletRequest request = request();
    new HttpSessionPublicKeyCredentialCreationOptionsRepository().save(request, new MockHttpServletResponse(),
        relyingParty().createPublicKeyCredentialCreationOptions(
            new ImmutablePublicKeyCredentialCreationOptionsRequest(formLogin())));
    return only("passkey registration options", request);
  }

  static Kind passkeyRequestOptions() {
    MockHttpServletRequest request = request();
    new HttpSessionPublicKeyCredentialRequestOptionsRepository().save(request, new MockHttpServletResponse(),
        relyingParty().createCredentialRequestOptions(
            new ImmutablePublicKeyCredentialRequestOptionsRequest(formLogin())));
    return only("passkey request options", request);
  }
}
