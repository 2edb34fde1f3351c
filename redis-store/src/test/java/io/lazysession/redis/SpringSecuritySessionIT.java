package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.security.SessionState;
import io.lazysession.serializer.security.SpringSecuritySessions;
import io.lazysession.testing.RedisServerExtension;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What Spring Security keeps in a session (the security context of each login kind, OAuth 2.0 clients
 * and authorization requests, the saved request, the CSRF token, WebAuthn options) written by one
 * node and read by another, on one Redis, with the default configuration (no allowed packages) for
 * each codec. The values are built by Spring Security itself ({@link SpringSecuritySessions}).
 */
class SpringSecuritySessionIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static TestRedis.TwoClients clients;

  @BeforeAll
  static void connect() {
    clients = TestRedis.TwoClients.open(redis.uri());
  }

  @AfterAll
  static void shutdown() {
    clients.close();
  }

  static Stream<Arguments> codecs() {
    return Stream.of(CodecKind.values()).map(Arguments::of);
  }

  /** A node as an application configures it by default, but for the codec it writes. */
  private static LazyRedisSessionRepository node(io.lettuce.core.RedisClient client, String namespace,
      CodecKind codec) {
    return LazyRedisSessionRepository.builder(client)
        .namespace(namespace)
        .serializer(AttributeSerializer.builder().codec(codec).build())
        .build();
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void findById_springSecurityStateSavedOnOtherNode_equalsWhatWasSaved(CodecKind codec) {
    String namespace = TestRedis.uniqueNamespace("security-" + codec);
    List<SpringSecuritySessions.Kind> kinds = SpringSecuritySessions.kinds();
    LazyRedisSessionRepository nodeA = node(clients.a(), namespace, codec);
    LazyRedisSessionRepository nodeB = node(clients.b(), namespace, codec);
    try {
      LazySession written = nodeA.createSession();
      for (SpringSecuritySessions.Kind kind : kinds) {
        written.setAttribute(kind.description(), kind.value());
      }
      nodeA.save(written);

      LazySession read = nodeB.findById(written.getId());

      assertThat(read).isNotNull();
      assertThat(read.getAttributeNames()).hasSize(kinds.size());
      for (SpringSecuritySessions.Kind kind : kinds) {
        Object value = read.getAttribute(kind.description());
        assertThat(value).as(kind.description()).isInstanceOf(kind.value().getClass());
        assertThat(SessionState.of(value)).as(kind.description()).isEqualTo(SessionState.of(kind.value()));
        if (kind.value().getClass().getName().startsWith("org.springframework.security.")
            && definesEquals(kind.value().getClass())) {
          // value.equals(original): a decoded URL compares without resolving its host
          assertThat(value.equals(kind.value())).as(kind.description() + " equals").isTrue();
        }
      }
    } finally {
      nodeA.close();
      nodeB.close();
    }
  }

  @ParameterizedTest
  @MethodSource("codecs")
  void findById_securityContextUnderItsOwnName_readOnOtherNodeWithoutChanges(CodecKind codec) {
    String namespace = TestRedis.uniqueNamespace("security-context-" + codec);
    LazyRedisSessionRepository nodeA = node(clients.a(), namespace, codec);
    LazyRedisSessionRepository nodeB = node(clients.b(), namespace, codec);
    try {
      LazySession written = nodeA.createSession();
      Object context = new org.springframework.security.core.context.SecurityContextImpl(
          SpringSecuritySessions.oidcLogin());
      written.setAttribute(SpringSecuritySessions.SECURITY_CONTEXT, context);
      nodeA.save(written);

      LazySession read = nodeB.findById(written.getId());
      Object value = read.getAttribute(SpringSecuritySessions.SECURITY_CONTEXT);
      nodeB.save(read);

      assertThat(value).isEqualTo(context);
      LazySession again = nodeA.findById(written.getId());
      assertThat(SessionState.of(again.getAttribute(SpringSecuritySessions.SECURITY_CONTEXT)))
          .isEqualTo(SessionState.of(context));
    } finally {
      nodeA.close();
      nodeB.close();
    }
  }

  private static boolean definesEquals(Class<?> type) {
    try {
      return type.getMethod("equals", Object.class).getDeclaringClass() != Object.class;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }
}
