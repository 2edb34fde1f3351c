package io.lazysession.serializer.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.SerializationException;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;

/**
 * Exceptions in sessions with Kryo: Spring Security's form login stores the last authentication
 * failure ({@code SPRING_SECURITY_LAST_EXCEPTION}) for the login page.
 */
class ThrowableSerializerTest {
  private final Codec kryo = Codecs.kryo(ClassAllowList.jdkOnly(), getClass().getClassLoader());

  private Object roundTrip(Object value) {
    byte[] bytes = kryo.encode(value);
    return kryo.decode(bytes, 0, bytes.length);
  }

  @Test
  void decode_authenticationFailure_sameClassMessageCauseAndStackTrace() {
    BadCredentialsException failure =
        new BadCredentialsException("Bad credentials", new IllegalStateException("locked out"));
    failure.setAuthenticationRequest(UsernamePasswordAuthenticationToken.unauthenticated("ada", "secret"));

    BadCredentialsException decoded = (BadCredentialsException) roundTrip(failure);

    assertThat(decoded.getMessage()).isEqualTo("Bad credentials");
    assertThat(decoded.getCause()).isInstanceOf(IllegalStateException.class).hasMessage("locked out");
    assertThat(decoded.getStackTrace()).isEqualTo(failure.getStackTrace());
    // the attempted credentials are not stored
    assertThat(decoded.getAuthenticationRequest()).isNull();
  }

  @Test
  void decode_jdkExceptionWithoutCause_sameMessage() {
    assertThat((Throwable) roundTrip(new IllegalArgumentException("no"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no").hasNoCause();
  }

  /** Public, but without a (String) constructor. */
  public static final class Unrebuildable extends RuntimeException {
    public Unrebuildable(int code) {
      super("code " + code);
    }
  }

  @Test
  void encode_exceptionWithoutMessageConstructor_refusedNamingTheClass() {
    Codec permissive = Codecs.kryo(ClassAllowList.builder().allowPackage("io.lazysession.serializer").build(),
        getClass().getClassLoader());

    assertThatThrownBy(() -> permissive.encode(new Unrebuildable(7)))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining(Unrebuildable.class.getName());
  }
}
