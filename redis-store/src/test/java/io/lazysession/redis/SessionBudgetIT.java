package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lazysession.testing.RedisServerExtension;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * {@code lazysession.session-budget.*} ({@link SessionBudget}): a save over the maximum is refused
 * naming the attribute, the size and the property, with nothing written (a create, an update, an
 * id change); a save that does not grow a session already over it goes through; the warning level
 * logs once per attribute name, naming the largest attributes.
 */
class SessionBudgetIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis);

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(SessionSizeWatch.class);

  @BeforeEach
  void listen() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void stopListening() {
    logger.detachAppender(logs);
  }

  /** {@code length} random bytes: incompressible, so sizes do not depend on zstd. */
  static byte[] random(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  Map<String, String> stored(String id) {
    Map<String, String> fields = new java.util.TreeMap<>();
    nodes.raw().hgetall(nodes.sessionKey(id)).forEach((name, value) ->
        fields.put(new String(name, UTF_8), java.util.HexFormat.of().formatHex(value)));
    return fields;
  }

  @Test
  void save_updateOverMaxBytes_refusedNamingAttributeSizeAndPropertyAndNothingWritten() {
    nodes.configure(b -> b.sessionBudget(new SessionBudget(null, 4_000L)));
    LazySession session = nodes.a().createSession();
    session.setAttribute("user", "ada");
    nodes.a().save(session);
    String id = session.getId();
    Map<String, String> before = stored(id);
    LazySession request = nodes.a().findById(id);
    request.setAttribute("upload", random(6_000, 1));
    request.setAttribute("note", "small");

    assertThatThrownBy(() -> nodes.a().save(request))
        .isInstanceOfSatisfying(SessionBudgetExceededException.class, e -> {
          assertThat(e.attributeName()).isEqualTo("upload");
          assertThat(e.maxBytes()).isEqualTo(4_000L);
          assertThat(e.storedBytes()).isGreaterThan(6_000L);
          assertThat(e.getMessage()).contains("session " + id, "attribute 'upload'",
              e.storedBytes() + " bytes", "lazysession.session-budget.max-bytes=4000",
              "nothing was written", "Largest attributes: upload (");
        });
    assertThat(stored(id)).isEqualTo(before);
  }

  @Test
  void save_newSessionOverMaxBytes_refusedAndNeitherHashNorScheduleWritten() {
    nodes.configure(b -> b.sessionBudget(new SessionBudget(null, 2_000L)));
    LazySession session = nodes.a().createSession();
    session.setAttribute("upload", random(3_000, 2));

    assertThatThrownBy(() -> nodes.a().save(session))
        .isInstanceOf(SessionBudgetExceededException.class)
        .hasMessageContaining("attribute 'upload'");
    assertThat(nodes.raw().exists(nodes.sessionKey(session.getId()))).isZero();
    assertThat(nodes.raw().zscore((nodes.namespace() + ":expirations").getBytes(UTF_8),
        session.getId().getBytes(UTF_8))).isNull();
  }

  @Test
  void save_idChangeOverMaxBytes_refusedAndTheSessionKeptUnderItsOldId() {
    nodes.configure(b -> b.sessionBudget(new SessionBudget(null, 4_000L)));
    LazySession session = nodes.a().createSession();
    session.setAttribute("user", "ada");
    nodes.a().save(session);
    String oldId = session.getId();
    LazySession login = nodes.a().findById(oldId);
    String newId = login.changeSessionId();
    login.setAttribute("profile", random(6_000, 3));

    assertThatThrownBy(() -> nodes.a().save(login))
        .isInstanceOf(SessionBudgetExceededException.class)
        .hasMessageContaining("attribute 'profile'");
    assertThat(nodes.b().findById(oldId).<String>getAttribute("user")).isEqualTo("ada");
    assertThat(nodes.b().findById(newId)).isNull();
  }

  @Test
  void reactiveSave_updateAndIdChangeOverMaxBytes_refusedAndNothingWritten() {
    nodes.configure(b -> b.sessionBudget(new SessionBudget(null, 4_000L)));
    LazyReactiveRedisSessionRepository reactive = LazyReactiveRedisSessionRepository.of(nodes.a());
    LazySession session = reactive.createSession().block();
    session.setAttribute("user", "ada");
    reactive.save(session).block();
    String id = session.getId();
    Map<String, String> before = stored(id);
    LazySession update = reactive.findById(id).block();
    update.setAttribute("upload", random(6_000, 8));
    LazySession login = reactive.findById(id).block();
    String newId = login.changeSessionId();
    login.setAttribute("profile", random(6_000, 9));

    assertThatThrownBy(() -> reactive.save(update).block())
        .isInstanceOf(SessionBudgetExceededException.class)
        .hasMessageContaining("attribute 'upload'");
    assertThatThrownBy(() -> reactive.save(login).block())
        .isInstanceOf(SessionBudgetExceededException.class)
        .hasMessageContaining("attribute 'profile'");
    assertThat(stored(id)).isEqualTo(before);
    assertThat(nodes.raw().exists(nodes.sessionKey(newId))).isZero();
  }

  @Test
  void save_sessionAlreadyOverMaxBytesNotGrowing_goesThrough() {
    LazySession session = nodes.a().createSession();
    session.setAttribute("upload", random(6_000, 4));
    session.setAttribute("user", "ada");
    nodes.a().save(session);
    LazyRedisSessionRepository strict =
        nodes.restartA(b -> b.sessionBudget(new SessionBudget(null, 4_000L)));
    LazySession request = strict.findById(session.getId());
    request.removeAttribute("user");

    strict.save(request);

    assertThat(nodes.b().findById(session.getId()).getAttributeNames()).containsExactly("upload");
  }

  @Test
  void save_overWarnBytes_loggedOncePerAttributeNameNamingTheLargest() {
    nodes.configure(b -> b.sessionBudget(new SessionBudget(3_000L, null)));
    LazySession first = nodes.a().createSession();
    first.setAttribute("user", "ada");
    first.setAttribute("cart", random(4_000, 5));
    nodes.a().save(first);
    LazySession second = nodes.a().createSession();
    second.setAttribute("cart", random(5_000, 6));
    nodes.a().save(second);
    LazySession third = nodes.a().createSession();
    third.setAttribute("history", random(5_000, 7));
    nodes.a().save(third);

    List<String> warnings = logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(warnings).hasSize(2);
    assertThat(warnings.get(0)).contains("session " + first.getId(), "attribute 'cart'",
        "lazysession.session-budget.warn-bytes=3000", "once per attribute name",
        "Largest attributes: cart (", "user (");
    assertThat(warnings.get(1)).contains("session " + third.getId(), "attribute 'history'");
    assertThat(nodes.b().findById(second.getId()).getAttributeNames()).containsExactly("cart");
  }

  @Test
  void save_underBothBudgets_writesAndLogsNothing() {
    nodes.configure(b -> b.sessionBudget(new SessionBudget(3_000L, 4_000L)));
    LazySession session = nodes.a().createSession();
    session.setAttribute("user", "ada");

    nodes.a().save(session);

    assertThat(logs.list).isEmpty();
    assertThat(nodes.b().findById(session.getId()).<String>getAttribute("user")).isEqualTo("ada");
  }

  @Test
  void sessionBudget_notPositive_refusedNamingTheParameter() {
    assertThatThrownBy(() -> new SessionBudget(0L, null)).hasMessage("warnBytes must be > 0, was 0");
    assertThatThrownBy(() -> new SessionBudget(null, -1L))
        .hasMessage("maxBytes must be > 0, was -1");
  }
}
