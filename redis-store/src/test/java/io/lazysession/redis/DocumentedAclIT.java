package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.data.redis.RedisIndexedSessionRepository;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * The Redis ACL user that docs/security.md gives ("only what lazysession needs"), read from that
 * page, with the namespace and the user name replaced: every feature of the store runs under it, so
 * that a command or key the code uses and the page leaves out fails here (Redis 7 checks the
 * commands scripts run too) rather than in production. On Redis 6.2 the command is changed as the
 * page says for 6.2, as a user of 6.2 would run it.
 */
class DocumentedAclIT {
  private static final Logger log = LoggerFactory.getLogger(DocumentedAclIT.class);

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private static final String PRINCIPAL = FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME;
  private static final String PASSWORD = UUID.randomUUID().toString();

  private static RedisClient admin;
  private static StatefulRedisConnection<String, String> adminConnection;
  private static RedisClient restricted;
  private static String user;

  @BeforeAll
  static void createUser() throws IOException {
    admin = RedisClient.create(redis.uri());
    adminConnection = admin.connect();
    user = "acl-" + UUID.randomUUID();
    restricted = RedisClient.create(RedisURI.builder(redis.uri())
        .withAuthentication(user, PASSWORD.toCharArray()).build());
  }

  @BeforeEach
  void emptyLog() {
    adminConnection.sync().aclLogReset();
  }

  /**
   * Redis logs each command and key it refused the user, also those the store swallows (a refused
   * {@code ROLE} or {@code INFO} only costs a warning there): none may be logged.
   */
  @AfterEach
  void nothingRefused() {
    List<Map<String, Object>> refusals = adminConnection.sync().aclLog().stream()
        .filter(entry -> user.equals(String.valueOf(entry.get("username")))).toList();
    assertThat(refusals).as("ACL LOG entries of the documented user").isEmpty();
  }

  @AfterAll
  static void deleteUser() {
    restricted.shutdown();
    adminConnection.sync().aclDeluser(user);
    adminConnection.close();
    admin.shutdown();
  }

  /**
   * The documented ACL SETUSER command, for namespace {@code namespace} instead of the default; on a
   * server before Redis 7 changed as the page says for Redis 6.2.
   */
  static List<String> documentedAcl(String namespace) throws IOException {
    List<String> lines = Files.readAllLines(Path.of("..", "docs", "security.md"), UTF_8);
    List<List<String>> redis62 = redis.version().atLeast(7, 0) ? List.of(List.of(), List.of())
        : onRedis62(lines);
    List<String> leftOut = redis62.get(0);
    StringBuilder command = new StringBuilder();
    for (String line : lines) {
      String trimmed = line.trim();
      if (command.isEmpty() && trimmed.startsWith("ACL SETUSER lazysession ")) {
        command.append(trimmed);
      } else if (!command.isEmpty()) {
        if (trimmed.startsWith("```")) {
          break;
        }
        command.append(' ').append(trimmed);
      }
    }
    assertThat(command).as("the ACL SETUSER command in docs/security.md").isNotEmpty();
    List<String> words = new ArrayList<>(List.of(command.toString().split("\\s+")));
    assertThat(words.subList(0, 3)).containsExactly("ACL", "SETUSER", "lazysession");
    List<String> rules = new ArrayList<>();
    for (String word : words.subList(3, words.size())) {
      if (leftOut.contains(word)) {
        continue;
      }
      rules.add(word.equals(">CHANGE-ME") ? ">" + PASSWORD
          : word.replace("~lazysession:", "~" + namespace + ":")
              .replace("~{lazysession:", "~{" + namespace + ":"));
    }
    rules.addAll(redis62.get(1));
    assertThat(rules).as("key patterns").anyMatch(rule -> rule.startsWith("~" + namespace + ":"));
    return rules;
  }

  /**
   * The rules the page says to leave out on Redis 6.2, then those it says to add ("On Redis 6.2, ...
   * leave out `rules` and add `rules`").
   */
  static List<List<String>> onRedis62(List<String> lines) {
    Matcher sentence = Pattern.compile(
        "On Redis 6\\.2,[^`]*leave out\\s+`([^`]+)`\\s+and add\\s+`([^`]+)`")
        .matcher(String.join(" ", lines.stream().map(String::trim).toList()));
    assertThat(sentence.find()).as("docs/security.md says how the command changes on Redis 6.2")
        .isTrue();
    List<String> leftOut = List.of(sentence.group(1).split("\\s+"));
    List<String> added = List.of(sentence.group(2).split("\\s+"));
    assertThat(leftOut).as("the rules to leave out on Redis 6.2").contains("+fcall");
    log.info("Redis {} has no functions: the documented ACL without {} and with {}, as "
        + "docs/security.md says for Redis 6.2", redis.version(), leftOut, added);
    return List.of(leftOut, added);
  }

  private static String acl(String subcommand, String... arguments) {
    CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add(subcommand);
    for (String argument : arguments) {
      args.add(argument);
    }
    return adminConnection.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8),
        args);
  }

  private static LazyRedisSessionRepository repository(String namespace, MutableClock clock,
      RecordingEventPublisher events, UnaryOperator<LazyRedisSessionRepositoryBuilder> config,
      String... moreRules) throws IOException {
    List<String> rules = documentedAcl(namespace);
    List<String> arguments = new ArrayList<>(List.of(user, "reset"));
    arguments.addAll(rules);
    arguments.addAll(List.of(moreRules));
    acl("SETUSER", arguments.toArray(new String[0]));
    return config.apply(LazyRedisSessionRepository.builder(restricted)
        .serializer(TestRedis.serializer()).namespace(namespace).clock(clock)
        .eventPublisher(events).cleanupInterval(Duration.ZERO)).build();
  }

  private static LazySession signIn(LazyRedisSessionRepository node, String name) {
    LazySession session = node.createSession();
    session.setAttribute(PRINCIPAL, name);
    session.setAttribute("cart", new ArrayList<>(List.of("tea")));
    node.save(session);
    return session;
  }

  @Test
  void everyFeature_underTheDocumentedUser_runsWithoutAPermissionError() throws IOException {
    String namespace = TestRedis.uniqueNamespace("acl");
    MutableClock clock = MutableClock.startingNow();
    RecordingEventPublisher events = new RecordingEventPublisher();
    try (LazyRedisSessionRepository node = repository(namespace, clock, events, builder -> builder
        .sessionLimit(SessionLimit.evictOldest(1)).nearCacheTracking(Duration.ofSeconds(1))
        .idRenewal(Duration.ofMinutes(10), Duration.ofSeconds(10))
        .encryption(KeyedNamesIT.k1(false, false)))) {
      LazySession first = signIn(node, "ann");
      LazySession loaded = node.findById(first.getId());
      loaded.<List<String>>getAttribute("cart").add("milk"); // changed in place
      node.save(loaded);
      String changed = loaded.changeSessionId();
      node.save(loaded);
      assertThat(node.findByPrincipalName("ann")).containsOnlyKeys(changed);

      LazySession second = signIn(node, "ann"); // evicts the first
      assertThat(node.findById(changed)).isNull();
      clock.advance(Duration.ofMinutes(10));
      String renewed = node.findById(second.getId()).getId();
      assertThat(renewed).isNotEqualTo(second.getId());
      assertThat(node.measure(node.findById(renewed), true)).isNotNull();
      assertThat(node.reencrypt()).isNotNull();

      LazySession idle = signIn(node, "bob");
      clock.advance(Duration.ofMinutes(31));
      assertThat(node.cleanUpExpiredSessions()).isGreaterThanOrEqualTo(1);
      node.deleteById(renewed);

      assertThat(events.ofType(SessionExpiredEvent.class)).extracting(e -> e.getSessionId())
          .contains(idle.getId());
      assertThat(events.ofType(SessionDeletedEvent.class)).extracting(e -> e.getSessionId())
          .contains(changed);
    }
  }

  @Test
  void withoutExpiryEvents_underTheDocumentedUser_runsWithoutAPermissionError()
      throws IOException {
    String namespace = TestRedis.uniqueNamespace("acl-no-events");
    MutableClock clock = MutableClock.startingNow();
    try (LazyRedisSessionRepository node = repository(namespace, clock,
        new RecordingEventPublisher(), builder -> builder.expiryEvents(false)
            .sessionLimit(SessionLimit.refuseNew(2)))) {
      LazySession first = signIn(node, "cy");
      LazySession loaded = node.findById(first.getId());
      loaded.setAttribute("step", 2);
      node.save(loaded);
      String changed = loaded.changeSessionId();
      node.save(loaded);
      assertThat(node.findByPrincipalName("cy")).containsOnlyKeys(changed);
      node.deleteById(changed);
      assertThat(node.findByPrincipalName("cy")).isEmpty();
    }
  }

  @Test
  void reactiveFace_underTheDocumentedUser_runsWithoutAPermissionError() throws IOException {
    String namespace = TestRedis.uniqueNamespace("acl-reactive");
    MutableClock clock = MutableClock.startingNow();
    RecordingEventPublisher events = new RecordingEventPublisher();
    try (LazyRedisSessionRepository node = repository(namespace, clock, events, builder -> builder
        .sessionLimit(SessionLimit.evictOldest(1)).encryption(KeyedNamesIT.k1(false, false)))) {
      LazyReactiveRedisSessionRepository reactive = LazyReactiveRedisSessionRepository.of(node);
      LazySession session = reactive.createSession().block();
      session.setAttribute(PRINCIPAL, "eve");
      session.setAttribute("cart", new ArrayList<>(List.of("tea")));
      reactive.save(session).block();
      LazySession loaded = reactive.findById(session.getId()).block();
      loaded.<List<String>>getAttribute("cart").add("milk");
      String changed = loaded.changeSessionId();
      reactive.save(loaded).block();
      assertThat(reactive.findByPrincipalName("eve").block()).containsOnlyKeys(changed);
      LazySession second = reactive.createSession().block();
      second.setAttribute(PRINCIPAL, "eve");
      reactive.save(second).block(); // evicts the first
      assertThat(reactive.findById(changed).block()).isNull();
      reactive.deleteById(second.getId()).block();

      assertThat(events.ofType(SessionDeletedEvent.class)).extracting(e -> e.getSessionId())
          .containsExactlyInAnyOrder(changed, second.getId());
    }
  }

  /**
   * The take-over of Spring Session Data Redis's sessions (indexed layout) with the one rule the
   * page says to add, {@code ~spring:session:*} (here for the test's own namespace).
   */
  @Test
  void takeOverFromSpringSessionDataRedis_underTheDocumentedUser_runsWithoutAPermissionError()
      throws IOException {
    String namespace = TestRedis.uniqueNamespace("acl-take-over");
    String ssdrNamespace = namespace + "-ssdr";
    LettuceConnectionFactory factory = new LettuceConnectionFactory(
        new RedisStandaloneConfiguration(redis.uri().getHost(), redis.uri().getPort()));
    factory.afterPropertiesSet();
    factory.start();
    RedisIndexedSessionRepository ssdr = new RedisIndexedSessionRepository(
        SpringSessionDataRedisMigrationIT.ssdrTemplate(factory));
    ssdr.setRedisKeyNamespace(ssdrNamespace);
    ssdr.setCleanupCron("-");
    ssdr.afterPropertiesSet();
    try {
      RedisIndexedSessionRepository.RedisSession stored = ssdr.createSession();
      stored.setAttribute(PRINCIPAL, "dot");
      stored.setAttribute("greeting", "hello");
      ssdr.save(stored);
      try (LazyRedisSessionRepository node = repository(namespace, MutableClock.startingNow(),
          new RecordingEventPublisher(), builder -> builder
              .serializer(SpringSessionDataRedisMigrationIT.serializer())
              .migrateFrom(SpringSessionDataRedis.namespace(ssdrNamespace)),
          "~" + ssdrNamespace + ":*")) {
        assertThat(node.countSessionsWaitingForMigration()).isEqualTo(1);
        LazySession found = node.findById(stored.getId());
        assertThat(found.<String>getAttribute("greeting")).isEqualTo("hello");
        found.setAttribute("greeting", "hello again");
        node.save(found); // takes it over

        assertThat(node.countSessionsWaitingForMigration()).isZero();
        assertThat(node.findById(stored.getId()).<String>getAttribute("greeting"))
            .isEqualTo("hello again");
        assertThat(node.findByPrincipalName("dot")).containsOnlyKeys(stored.getId());
      }
    } finally {
      ssdr.destroy();
      factory.destroy();
    }
  }
}
