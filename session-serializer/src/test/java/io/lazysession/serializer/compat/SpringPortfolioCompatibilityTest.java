package io.lazysession.serializer.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.NotSerializableException;
import io.lazysession.serializer.codec.CodecKind;
import jakarta.servlet.http.HttpSession;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Scope;
import org.springframework.context.annotation.ScopedProxyMode;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.core.OAuth2AuthorizationException;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.web.WebAttributes;
import org.springframework.security.web.authentication.SimpleUrlAuthenticationFailureHandler;
import org.springframework.web.context.request.DestructionCallbackBindingListener;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.context.request.SessionScope;
import org.springframework.web.servlet.FlashMap;
import org.springframework.web.servlet.i18n.SessionLocaleResolver;
import org.springframework.web.servlet.support.SessionFlashMapManager;

/**
 * What Spring itself puts into sessions, made by Spring's own classes into a mock session, is
 * stored and read back by a serializer with no setting (only the application's package allowed),
 * with either codec written: issue 21's flash attributes, failed OAuth 2.0 login, locale, and
 * session-scoped beans; and values only Java serialization can store fall back to it.
 */
class SpringPortfolioCompatibilityTest {
  private static final ClassAllowList APPLICATION = ClassAllowList.builder()
      .allowPackage(SpringPortfolioCompatibilityTest.class.getPackageName()).build();

  private static AttributeSerializer serializer(CodecKind codec) {
    return AttributeSerializer.builder().codec(codec).allowList(APPLICATION).build();
  }

  private static Object roundTrip(AttributeSerializer serializer, Object value) {
    return serializer.deserialize(serializer.serialize(value));
  }

  /** RedirectAttributes.addFlashAttribute: SessionFlashMapManager keeps a List of FlashMap. */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void serialize_flashMapsSavedBySessionFlashMapManager_roundTrip(CodecKind codec) {
    MockHttpServletRequest request = new MockHttpServletRequest("POST", "/cart");
    FlashMap flash = new FlashMap();
    flash.put("message", "Added to your cart");
    flash.setTargetRequestPath("/cart");
    flash.addTargetRequestParam("page", "2");
    new SessionFlashMapManager().saveOutputFlashMap(flash, request, new MockHttpServletResponse());
    HttpSession session = request.getSession();
    String name = SessionFlashMapManager.class.getName() + ".FLASH_MAPS";
    Object stored = session.getAttribute(name);

    @SuppressWarnings("unchecked")
    List<FlashMap> read = (List<FlashMap>) roundTrip(serializer(codec), stored);

    assertThat(read).hasSize(1);
    assertThat((java.util.Map<String, Object>) read.get(0)).containsEntry("message", "Added to your cart");
    assertThat(read.get(0).getTargetRequestPath()).isEqualTo("/cart");
    assertThat(read.get(0).getTargetRequestParams().getFirst("page")).isEqualTo("2");
  }

  /** SessionLocaleResolver keeps a Locale and a TimeZone (a sun.util.calendar.ZoneInfo). */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void serialize_localeAndTimeZoneOfSessionLocaleResolver_roundTrip(CodecKind codec) {
    MockHttpServletRequest request = new MockHttpServletRequest();
    SessionLocaleResolver resolver = new SessionLocaleResolver();
    resolver.setLocaleContext(request, new MockHttpServletResponse(),
        new org.springframework.context.i18n.SimpleTimeZoneAwareLocaleContext(Locale.FRANCE,
            TimeZone.getTimeZone("Europe/Paris")));
    HttpSession session = request.getSession();
    AttributeSerializer serializer = serializer(codec);

    for (String name : Collections.list(session.getAttributeNames())) {
      assertThat(roundTrip(serializer, session.getAttribute(name))).as(name)
          .isEqualTo(session.getAttribute(name));
    }
    assertThat(Collections.list(session.getAttributeNames())).hasSize(2);
  }

  /**
   * A failed OAuth 2.0 login: the failure handler keeps the OAuth2AuthenticationException, which has
   * no (String) constructor for Kryo; it is stored with Java serialization, counted, and read back
   * with its error code.
   */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void serialize_oauth2AuthenticationExceptionOfAFailedLogin_storedAndReadBack(CodecKind codec)
      throws Exception {
    MockHttpServletRequest request = new MockHttpServletRequest();
    // What OAuth2LoginAuthenticationProvider throws when the token endpoint answers invalid_grant
    OAuth2Error error = new OAuth2Error("invalid_grant", "code expired", null);
    new SimpleUrlAuthenticationFailureHandler("/login?error").onAuthenticationFailure(request,
        new MockHttpServletResponse(), new OAuth2AuthenticationException(error, error.toString(),
            new OAuth2AuthorizationException(error)));
    Object failure = request.getSession().getAttribute(WebAttributes.AUTHENTICATION_EXCEPTION);
    AttributeSerializer serializer = serializer(codec);

    byte[] envelope = serializer.serialize(failure);
    Object read = serializer.deserialize(envelope);

    assertThat(serializer.header(envelope).codec()).isEqualTo(CodecKind.JDK);
    assertThat(serializer.codecFallbacks()).isEqualTo(codec == CodecKind.KRYO ? 1 : 0);
    assertThat(read).isInstanceOfSatisfying(OAuth2AuthenticationException.class,
        e -> assertThat(e.getError().getErrorCode()).isEqualTo("invalid_grant"));
    assertThat(serializer.lazy(envelope).currentBytes()).isSameAs(envelope);
  }

  /**
   * An OAuth2AuthenticationException without a cause has a (String) constructor, but rebuilt from
   * its message it would carry the description as its error code: it keeps its OAuth2Error.
   */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void serialize_oauth2AuthenticationExceptionWithoutCause_keepsItsError(CodecKind codec) {
    OAuth2Error error = new OAuth2Error("invalid_grant", "code expired", "https://idp/errors");
    AttributeSerializer serializer = serializer(codec);

    Object read = roundTrip(serializer, new OAuth2AuthenticationException(error));

    assertThat(read).isInstanceOfSatisfying(OAuth2AuthenticationException.class, e -> {
      assertThat(e.getError().getErrorCode()).isEqualTo("invalid_grant");
      assertThat(e.getError().getDescription()).isEqualTo("code expired");
      assertThat(e.getError().getUri()).isEqualTo("https://idp/errors");
    });
  }

  /**
   * A @SessionScope bean with a destroy method (DisposableBean): Spring stores the bean and a
   * DestructionCallbackBindingListener; both are stored, and the listener read back still destroys
   * the bean when it is unbound, as Spring Session Data Redis's would.
   */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void serialize_sessionScopedBeanAndItsDestructionCallback_roundTripAndStillDestroy(
      CodecKind codec) {
    MockHttpServletRequest request = new MockHttpServletRequest();
    RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request));
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
      context.getBeanFactory().registerScope("session", new SessionScope());
      context.registerBean(SessionScopedCart.class, bd -> {
        bd.setScope("session");
      });
      context.refresh();
      context.getBean(SessionScopedCart.class).items.add("book");
    } finally {
      RequestContextHolder.resetRequestAttributes();
    }
    HttpSession session = request.getSession();
    AttributeSerializer serializer = serializer(codec);
    Map<String, Object> read = new java.util.HashMap<>();
    for (String name : Collections.list(session.getAttributeNames())) {
      read.put(name, roundTrip(serializer, session.getAttribute(name)));
    }

    assertThat(read.values()).hasAtLeastOneElementOfType(SessionScopedCart.class)
        .hasAtLeastOneElementOfType(DestructionCallbackBindingListener.class);
    int before = SessionScopedCart.DESTROYED.get();
    read.values().stream().filter(DestructionCallbackBindingListener.class::isInstance)
        .forEach(listener -> ((DestructionCallbackBindingListener) listener).valueUnbound(null));
    assertThat(SessionScopedCart.DESTROYED.get()).isEqualTo(before + 1);
  }

  /** Parity with Spring Session Data Redis: a value that is not Serializable is refused, named. */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void serialize_valueNotSerializable_refusedNamingTheClassAndTheSetting(CodecKind codec) {
    AttributeSerializer serializer = serializer(codec);

    for (Object value : List.of(new Plain(), new Holder(), List.of(new Plain()))) {
      assertThatThrownBy(() -> serializer.serialize(value)).as(value.toString())
          .hasMessageContaining(Plain.class.getName())
          .hasMessageContaining("Serializable");
    }
    if (codec == CodecKind.KRYO) {
      assertThatThrownBy(() -> serializer.serialize(new Holder()))
          .isInstanceOf(NotSerializableException.class)
          .hasMessageContaining("lazysession.require-serializable=false")
          .hasMessageContaining("implement java.io.Serializable");
    }
  }

  /** With require-serializable off, Kryo stores what Java serialization cannot. */
  @ParameterizedTest
  @EnumSource(value = CodecKind.class, names = "KRYO")
  void serialize_notSerializableAllowedBySetting_storedWithKryo(CodecKind codec) {
    AttributeSerializer serializer = serializer(codec).toBuilder().requireSerializable(false).build();

    byte[] envelope = serializer.serialize(new Holder());

    assertThat(serializer.header(envelope).codec()).isEqualTo(CodecKind.KRYO);
    assertThat(((Holder) serializer.deserialize(envelope)).held).isInstanceOf(Plain.class);
  }

  static Stream<CodecKind> codecs() {
    return Stream.of(CodecKind.values());
  }
}
