package io.lazysession.serializer;

import java.util.List;
import java.util.Set;

/**
 * What the Spring portfolio itself keeps in HTTP sessions, allowed by every {@link ClassAllowList}
 * so that an application needs no setting for it. Each entry was taken from the Spring projects'
 * sources (Spring Framework 7, Spring Security 7), not guessed:
 *
 * <ul>
 *   <li>the classes their code puts into a session ({@code session.setAttribute},
 *       {@code WebSession.getAttributes().put}, {@code WebUtils.setSessionAttribute}): Spring MVC's
 *       {@code SessionFlashMapManager} (a list of {@code FlashMap}s, whose target parameters are a
 *       {@code LinkedMultiValueMap}), {@code SessionLocaleResolver} ({@code Locale},
 *       {@code TimeZone}: JDK types), {@code ServletRequestAttributes} for {@code @SessionScope}
 *       beans (the bean, which is the application's, and a {@code DestructionCallbackBindingListener}
 *       whose callback is a {@code DisposableBeanAdapter} holding the serializable
 *       destruction-aware post-processors), {@code HttpSessionMutexListener}'s mutex; Spring
 *       Security's security context, saved request, CSRF token (servlet and WebFlux), last
 *       authentication exception, OAuth 2.0 authorization requests and authorized clients,
 *       SAML 2.0 authentication and logout requests, WebAuthn creation and request options;
 *   <li>what those objects hold, as Spring Security's own session serialization lists it: every
 *       class its Jackson modules ({@code CoreJacksonModule}, {@code WebJacksonModule},
 *       {@code WebServerJacksonModule}, {@code OAuth2ClientJacksonModule}, {@code Saml2JacksonModule},
 *       {@code WebauthnJacksonModule}, {@code LdapJacksonModule}, {@code CasJacksonModule}) give a
 *       mix-in, which are the packages below, and the failure exceptions of every authentication
 *       mechanism ({@code AuthenticationException} and its subclasses, which live in the same
 *       packages, plus {@code oauth2.jwt}, {@code oauth2.server.resource}, {@code saml2.core} and
 *       {@code ldap}'s).
 * </ul>
 *
 * <p>Spring Session itself keeps only strings (the principal name index) in a session. Packages are
 * allowed with their sub-packages; single classes only by their exact name. The rest of these
 * projects (configuration, filters, bean factories, crypto, expression support) stays refused.
 */
final class SpringSessionTypes {
  /** Spring Security packages whose classes live in sessions, with their sub-packages. */
  static final List<String> SECURITY_PACKAGES = List.of(
      "org.springframework.security.core",
      "org.springframework.security.authentication",
      "org.springframework.security.web.authentication",
      "org.springframework.security.web.savedrequest",
      "org.springframework.security.web.csrf",
      "org.springframework.security.web.server.csrf",
      "org.springframework.security.web.webauthn.api",
      "org.springframework.security.web.webauthn.authentication",
      "org.springframework.security.oauth2.core",
      "org.springframework.security.oauth2.client",
      "org.springframework.security.oauth2.jwt",
      "org.springframework.security.oauth2.server.resource",
      "org.springframework.security.saml2.core",
      "org.springframework.security.saml2.provider.service.authentication",
      "org.springframework.security.ldap.userdetails",
      "org.springframework.security.ldap.ppolicy",
      "org.springframework.security.ldap.authentication.ad",
      "org.springframework.security.cas.authentication");

  /** Single classes, outside those packages, that Spring keeps in sessions or inside them. */
  static final Set<String> CLASSES = Set.of(
      // Spring MVC: flash attributes (post/redirect/get)
      "org.springframework.web.servlet.FlashMap",
      "org.springframework.util.LinkedMultiValueMap",
      "org.springframework.util.MultiValueMapAdapter",
      // @SessionScope beans: the destruction callback Spring registers next to the bean
      "org.springframework.web.context.request.DestructionCallbackBindingListener",
      "org.springframework.beans.factory.support.DisposableBeanAdapter",
      "org.springframework.context.annotation.CommonAnnotationBeanPostProcessor",
      "org.springframework.beans.factory.annotation.InitDestroyAnnotationBeanPostProcessor",
      "jakarta.annotation.PostConstruct",
      "jakarta.annotation.PreDestroy",
      // HttpSessionMutexListener
      "org.springframework.web.util.HttpSessionMutexListener$Mutex",
      // SessionLocaleResolver's TimeZone: what TimeZone.getTimeZone returns for a region id
      "sun.util.calendar.ZoneInfo",
      // Spring Security's CAS authentication holds the CAS client's assertion and principal
      "org.apereo.cas.client.validation.AssertionImpl",
      "org.apereo.cas.client.authentication.AttributePrincipalImpl",
      // lazysession's own refusal of a sign-in beyond the limit of sessions per principal, kept
      // by Spring Security's failure handler as the last authentication exception
      "io.lazysession.redis.SessionLimitAuthenticationException");

  private SpringSessionTypes() {}
}
