package io.lazysession.it.upgrade;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lazysession.redis.EncryptionKey;
import io.lazysession.redis.LazyReactiveRedisSessionRepository;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.redis.LazyRedisSessionRepositoryBuilder;
import io.lazysession.redis.RedisFormatStatus;
import io.lazysession.redis.SessionEncryption;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.ReactiveFindByIndexNameSessionRepository;
import org.springframework.session.ReactiveSessionRepository;
import org.springframework.session.Session;

/**
 * A rolling upgrade and its rollback, with the real previous release: its jars
 * (releases/previous.properties) run beside the current code on one Redis, both serving one
 * namespace, and a signed-in user moves between them at every step, both ways, on both faces (the
 * servlet repository and the reactive one), with keys and without. The user stays signed in with
 * every attribute (a Spring Security context, attributes in the pack and in fields of their own), an
 * id change and a sign-out cross over too. Before the namespace is finalized the current code must
 * write only what the previous release reads: any format change that skips the mechanism of
 * docs/versioning.md fails here.
 */
class PreviousReleaseIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static final String KEYS = "k1:" + java.util.Base64.getEncoder().encodeToString(new byte[32]);
  static final String APPLICATION = Cart.class.getPackageName();
  static final AtomicInteger namespaces = new AtomicInteger();

  @TempDir static Path work;
  static PreviousRelease previous;
  static RedisClient client;
  static RedisCommands<byte[], byte[]> raw;

  final List<AutoCloseable> opened = new ArrayList<>();
  final ListAppender<ILoggingEvent> logs = new ListAppender<>();

  record Cart(List<String> items, int total) implements java.io.Serializable {}

  @BeforeAll
  static void loadPreviousRelease() throws Exception {
    previous = PreviousRelease.load(work);
    client = RedisClient.create(redis.uri());
    raw = client.connect(ByteArrayCodec.INSTANCE).sync();
  }

  @AfterAll
  static void closeClient() {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(10));
  }

  @AfterEach
  void closeNodes() throws Exception {
    for (AutoCloseable node : opened) {
      node.close();
    }
    ((Logger) LoggerFactory.getLogger("io.lazysession.redis.RedisFormat")).detachAppender(logs);
  }

  @ParameterizedTest(name = "{0} face, keys {1}, user starts on the {2} release")
  @CsvSource({"servlet, off, previous", "servlet, off, current", "servlet, on, previous",
      "servlet, on, current", "reactive, off, previous", "reactive, off, current",
      "reactive, on, previous", "reactive, on, current"})
  void aSignedInUserMovesBetweenThePreviousReleaseAndThisOneAtEveryStep(String face, String keys,
      String startsOn) throws Exception {
    String namespace = "upgrade" + namespaces.incrementAndGet();
    String secret = keys.equals("on") ? KEYS : null;
    Node previousNode = previousNode(face, namespace, secret);
    Node currentNode = currentNode(face, namespace, secret);
    Node first = startsOn.equals("previous") ? previousNode : currentNode;
    Node second = first == previousNode ? currentNode : previousNode;
    String large = largeText();

    // Sign in on the first node: a security context, a cart in the pack, notes in their own field.
    Session session = first.create();
    session.setAttribute("SPRING_SECURITY_CONTEXT", signedIn("alice"));
    session.setAttribute("cart", new Cart(List.of("book"), 12));
    session.setAttribute("notes", large);
    first.save(session);
    String id = session.getId();

    // The second node continues: everything is there, the user is signed in, found by name.
    Session there = second.find(id);
    assertUser(second, there, new Cart(List.of("book"), 12), large);
    assertThat(second.byPrincipal("alice")).containsOnlyKeys(id);
    there.setAttribute("cart", new Cart(List.of("book", "pen"), 15));
    second.save(there);

    // Back on the first: the change is there; an id change (as at a sign-in) and new notes.
    Session back = first.find(id);
    assertUser(first, back, new Cart(List.of("book", "pen"), 15), large);
    String changed = back.changeSessionId();
    back.setAttribute("notes", large + "!");
    first.save(back);

    // The second finds the session under its new id only, with everything.
    assertThat(second.find(id)).isNull();
    Session moved = second.find(changed);
    assertUser(second, moved, new Cart(List.of("book", "pen"), 15), large + "!");
    assertThat(second.byPrincipal("alice")).containsOnlyKeys(changed);
    moved.removeAttribute("notes");
    moved.setAttribute("cart", new Cart(List.of(), 0));
    second.save(moved);

    Session last = first.find(changed);
    assertThat(last.<Object>getAttribute("notes")).isNull();
    assertThat(last.<Cart>getAttribute("cart")).isEqualTo(new Cart(List.of(), 0));
    assertThat(principal(last)).isEqualTo("alice");

    // A sign-out on the second node signs the user out on the first.
    second.delete(changed);
    assertThat(first.find(changed)).isNull();
    assertThat(first.byPrincipal("alice")).isEmpty();
  }

  @Test
  void thePreviousReleaseAnnouncesWhatItReadsAndBlocksFinalizingWhileItRuns() throws Exception {
    String namespace = "upgrade" + namespaces.incrementAndGet();
    previousNode("servlet", namespace, null);
    LazyRedisSessionRepository current = currentRepository(namespace, null);

    RedisFormatStatus status = current.formatStatus();
    assertThat(status.nodes()).hasSize(2).allSatisfy(node -> assertThat(node.live()).isTrue());
    assertThat(status.nodes()).filteredOn(node -> !node.self()).singleElement()
        .satisfies(node -> {
          assertThat(node.version()).isEqualTo(previous.version);
          assertThat(node.reads()).isEqualTo(1);
        });

    assertThatThrownBy(current::finalizeFormat).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("lazysession " + previous.version)
        .hasMessageContaining("reads format 1");
    RedisFormatStatus after = current.formatStatus();
    assertThat(after.finalized()).isEqualTo(1);
    assertThat(after.writes()).isEqualTo(1);
    assertThat(raw.hget((namespace + ":format").getBytes(UTF_8), "finalized".getBytes(UTF_8)))
        .isNull();
  }

  /**
   * The walk after finalizing, and what a rollback then costs (docs/versioning.md, "Finalizing"):
   * once every live node runs the current code, finalizing moves the namespace to format 2; a node
   * of the previous release started after that (a rollback) says so at WARN, reads a session written
   * in format 2 as missing (its user signs in again there), says that once too, and leaves the hash
   * as it is; a session last written before finalizing still reads there, and what the previous
   * release writes, the current code reads.
   */
  @ParameterizedTest(name = "keys {0}")
  @CsvSource({"false", "true"})
  void aRollbackAfterFinalizingCostsTheSignInOfSessionsWrittenInFormatTwoAndNothingElse(
      boolean withKeys) throws Exception {
    String namespace = "upgrade" + namespaces.incrementAndGet();
    String secret = withKeys ? KEYS : null;
    LazyRedisSessionRepository repository = currentRepository(namespace, secret);
    Node currentNode = Node.of("current", "servlet", repository,
        LazyReactiveRedisSessionRepository.of(repository));
    Session untouched = currentNode.create();
    untouched.setAttribute("SPRING_SECURITY_CONTEXT", signedIn("bob"));
    currentNode.save(untouched);
    Session session = currentNode.create();
    session.setAttribute("SPRING_SECURITY_CONTEXT", signedIn("alice"));
    session.setAttribute("cart", new Cart(List.of("book"), 12));
    currentNode.save(session);

    assertThat(repository.finalizeFormat().finalized()).isEqualTo(2);
    Session loaded = currentNode.find(session.getId());
    loaded.setAttribute("cart", new Cart(List.of("book", "pen"), 14));
    currentNode.save(loaded);
    // The one hash written since finalizing (with keys its name is keyed, not the id).
    List<byte[]> marked = raw.keys(namespace + ":s:*").stream()
        .filter(name -> raw.hget(name, "#f".getBytes(UTF_8)) != null).toList();
    assertThat(marked).hasSize(1);
    byte[] key = marked.get(0);
    assertThat(raw.hget(key, "#f".getBytes(UTF_8))).isEqualTo("2".getBytes(UTF_8));
    Map<String, String> before = hash(key);

    Logger logger = (Logger) LoggerFactory.getLogger("io.lazysession.redis.RedisFormat");
    logs.start();
    logger.addAppender(logs);
    Node previousNode = previousNode("servlet", namespace, secret);

    assertThat(previousNode.find(loaded.getId())).as("written in format 2").isNull();
    assertThat(previousNode.find(loaded.getId())).isNull();
    previousNode.delete(loaded.getId());
    assertThat(hash(key)).isEqualTo(before);
    assertThat(logs.list).filteredOn(event -> event.getLevel() == Level.WARN)
        .extracting(ILoggingEvent::getFormattedMessage)
        .anySatisfy(line -> assertThat(line).contains("lazysession " + previous.version,
            "finalized at format 2"))
        .anySatisfy(line -> assertThat(line).contains("lazysession " + previous.version,
            "in format 2"));
    assertThat(principal(previousNode.find(untouched.getId()))).as("last written in format 1")
        .isEqualTo("bob");

    // The user signs in again on the previous release; the current code reads what it writes.
    Session again = previousNode.create();
    again.setAttribute("SPRING_SECURITY_CONTEXT", signedIn("alice"));
    again.setAttribute("cart", new Cart(List.of(), 0));
    previousNode.save(again);
    Session back = currentNode.find(again.getId());
    assertThat(principal(back)).isEqualTo("alice");
    assertThat(back.<Cart>getAttribute("cart")).isEqualTo(new Cart(List.of(), 0));
    assertThat(principal(currentNode.find(loaded.getId()))).as("kept for the current nodes")
        .isEqualTo("alice");
  }

  private static Map<String, String> hash(byte[] key) {
    Map<String, String> fields = new java.util.TreeMap<>();
    raw.hgetall(key).forEach((name, value) -> fields.put(new String(name, UTF_8),
        java.util.HexFormat.of().formatHex(value)));
    return fields;
  }

  private void assertUser(Node node, @Nullable Session session, Cart cart, String notes) {
    assertThat(session).as("session on the " + node.name() + " node").isNotNull();
    assertThat(principal(session)).isEqualTo("alice");
    assertThat(session.<Cart>getAttribute("cart")).isEqualTo(cart);
    assertThat(session.<String>getAttribute("notes")).isEqualTo(notes);
  }

  private static String principal(Session session) {
    SecurityContext context = session.getAttribute("SPRING_SECURITY_CONTEXT");
    return context == null || context.getAuthentication() == null ? null
        : context.getAuthentication().getName();
  }

  private static SecurityContext signedIn(String name) {
    return new SecurityContextImpl(UsernamePasswordAuthenticationToken.authenticated(name, null,
        AuthorityUtils.createAuthorityList("ROLE_USER")));
  }

  /** Text that stays in a field of its own: over the pack's 1,024 bytes, and not compressible away. */
  private static String largeText() {
    Random random = new Random(7);
    StringBuilder text = new StringBuilder();
    while (text.length() < 4_000) {
      text.append(Integer.toString(random.nextInt(), 36)).append(' ');
    }
    return text.toString();
  }

  private Node previousNode(String face, String namespace, @Nullable String keys)
      throws ReflectiveOperationException {
    Object[] repositories = previous.open(client, namespace, APPLICATION, keys);
    opened.add((AutoCloseable) repositories[0]);
    return Node.of("previous (" + previous.version + ")", face, repositories[0], repositories[1]);
  }

  private Node currentNode(String face, String namespace, @Nullable String keys) {
    LazyRedisSessionRepository repository = currentRepository(namespace, keys);
    return Node.of("current", face, repository, LazyReactiveRedisSessionRepository.of(repository));
  }

  /** The current code, configured as PreviousReleaseNode configures the previous release. */
  private LazyRedisSessionRepository currentRepository(String namespace, @Nullable String keys) {
    ClassAllowList allowList = ClassAllowList.builder()
        .allowPackages(ClassAllowList.springSecurityPackages())
        .allowPackage(APPLICATION)
        .build();
    LazyRedisSessionRepositoryBuilder builder = LazyRedisSessionRepository.builder(client)
        .namespace(namespace)
        .serializer(AttributeSerializer.builder().allowList(allowList).build());
    if (keys != null) {
      builder.encryption(SessionEncryption.builder().keys(EncryptionKey.parseList(keys)).build());
    }
    LazyRedisSessionRepository repository = builder.build();
    opened.add(repository);
    return repository;
  }

  /** One node through Spring Session's interfaces only, on one face. */
  interface Node {
    String name();

    Session create();

    @Nullable Session find(String id);

    void save(Session session);

    void delete(String id);

    Map<String, ? extends Session> byPrincipal(String name);

    @SuppressWarnings("unchecked")
    static Node of(String name, String face, Object servlet, Object reactive) {
      if (face.equals("servlet")) {
        FindByIndexNameSessionRepository<Session> repository =
            (FindByIndexNameSessionRepository<Session>) servlet;
        return new Node() {
          public String name() {
            return name;
          }

          public Session create() {
            return repository.createSession();
          }

          public @Nullable Session find(String id) {
            return repository.findById(id);
          }

          public void save(Session session) {
            repository.save(session);
          }

          public void delete(String id) {
            repository.deleteById(id);
          }

          public Map<String, ? extends Session> byPrincipal(String principal) {
            return repository.findByPrincipalName(principal);
          }
        };
      }
      ReactiveSessionRepository<Session> repository = (ReactiveSessionRepository<Session>) reactive;
      ReactiveFindByIndexNameSessionRepository<Session> index =
          (ReactiveFindByIndexNameSessionRepository<Session>) reactive;
      return new Node() {
        public String name() {
          return name;
        }

        public Session create() {
          return repository.createSession().block();
        }

        public @Nullable Session find(String id) {
          return repository.findById(id).block();
        }

        public void save(Session session) {
          repository.save(session).block();
        }

        public void delete(String id) {
          repository.deleteById(id).block();
        }

        public Map<String, ? extends Session> byPrincipal(String principal) {
          return index.findByPrincipalName(principal).block();
        }
      };
    }
  }
}
