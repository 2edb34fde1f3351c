package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.ReactiveFindByIndexNameSessionRepository;

/**
 * The reactive interface's principal attribute
 * ({@code ReactiveFindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME}) indexes a session
 * as the servlet one does, whichever face writes it and whichever face looks it up (node A writes,
 * node B reads, each through the face under test).
 */
class ReactivePrincipalAttributeIT {
  static final String REACTIVE = ReactiveFindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
  static final String SERVLET = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  /** Writing face x reading face. */
  static Stream<Arguments> faces() {
    Function<LazyRedisSessionRepository, Face> servlet = Face::servlet;
    Function<LazyRedisSessionRepository, Face> reactive = Face::reactive;
    return Stream.of(
        Arguments.of("servlet", servlet, "servlet", servlet),
        Arguments.of("servlet", servlet, "reactive", reactive),
        Arguments.of("reactive", reactive, "servlet", servlet),
        Arguments.of("reactive", reactive, "reactive", reactive));
  }

  private static String savedWith(Face face, String attribute, String principal) {
    LazySession session = face.create();
    session.setAttribute(attribute, principal);
    face.save(session);
    return session.getId();
  }

  @ParameterizedTest(name = "written by {0}, read by {2}")
  @MethodSource("faces")
  void save_reactivePrincipalAttribute_foundByPrincipalName(String w,
      Function<LazyRedisSessionRepository, Face> writerOf, String r,
      Function<LazyRedisSessionRepository, Face> readerOf) {
    Face writer = writerOf.apply(nodes.a());
    Face reader = readerOf.apply(nodes.b());

    String id = savedWith(writer, REACTIVE, "alice");

    assertThat(reader.findByPrincipalName("alice")).containsOnlyKeys(id);
    assertThat(reader.findByIndex(REACTIVE, "alice")).containsOnlyKeys(id);
    assertThat(reader.findByIndex(SERVLET, "alice")).containsOnlyKeys(id);
    assertThat((Object) reader.findByPrincipalName("alice").get(id).getAttribute(REACTIVE))
        .isEqualTo("alice");
  }

  @ParameterizedTest(name = "written by {0}, read by {2}")
  @MethodSource("faces")
  void save_reactivePrincipalAttributeChangedOnALoadedSession_movesTheIndexEntry(String w,
      Function<LazyRedisSessionRepository, Face> writerOf, String r,
      Function<LazyRedisSessionRepository, Face> readerOf) {
    Face writer = writerOf.apply(nodes.a());
    Face reader = readerOf.apply(nodes.b());
    String id = savedWith(writer, REACTIVE, "alice");
    LazySession loaded = writer.find(id);

    loaded.setAttribute(REACTIVE, "bob");
    writer.save(loaded);

    assertThat(reader.findByPrincipalName("alice")).isEmpty();
    assertThat(reader.findByPrincipalName("bob")).containsOnlyKeys(id);
  }

  @ParameterizedTest(name = "written by {0}, read by {2}")
  @MethodSource("faces")
  void removeAttribute_reactivePrincipalAttribute_noLongerFound(String w,
      Function<LazyRedisSessionRepository, Face> writerOf, String r,
      Function<LazyRedisSessionRepository, Face> readerOf) {
    Face writer = writerOf.apply(nodes.a());
    Face reader = readerOf.apply(nodes.b());
    String id = savedWith(writer, REACTIVE, "alice");
    LazySession loaded = writer.find(id);

    loaded.removeAttribute(REACTIVE);
    writer.save(loaded);

    assertThat(reader.findByPrincipalName("alice")).isEmpty();
  }

  @ParameterizedTest(name = "written by {0}, read by {2}")
  @MethodSource("faces")
  void save_bothPrincipalAttributes_theServletAttributeIndexes(String w,
      Function<LazyRedisSessionRepository, Face> writerOf, String r,
      Function<LazyRedisSessionRepository, Face> readerOf) {
    Face writer = writerOf.apply(nodes.a());
    Face reader = readerOf.apply(nodes.b());
    LazySession session = writer.create();
    session.setAttribute(REACTIVE, "alice");
    session.setAttribute(SERVLET, "carol");
    writer.save(session);

    assertThat(reader.findByPrincipalName("carol")).containsOnlyKeys(session.getId());
    assertThat(reader.findByPrincipalName("alice")).isEmpty();
  }

  @ParameterizedTest(name = "written by {0}, read by {2}")
  @MethodSource("faces")
  void deleteById_sessionIndexedByTheReactiveAttribute_leavesTheIndex(String w,
      Function<LazyRedisSessionRepository, Face> writerOf, String r,
      Function<LazyRedisSessionRepository, Face> readerOf) {
    Face writer = writerOf.apply(nodes.a());
    Face reader = readerOf.apply(nodes.b());
    String id = savedWith(writer, REACTIVE, "alice");

    reader.delete(id);

    assertThat(writer.findByPrincipalName("alice")).isEmpty();
    assertThat(nodes.raw().exists((nodes.namespace() + ":principal:alice")
        .getBytes(java.nio.charset.StandardCharsets.UTF_8))).isZero();
  }
}
