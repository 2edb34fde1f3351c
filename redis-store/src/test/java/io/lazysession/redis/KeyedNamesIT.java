package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.compress.Compression;
import io.lazysession.testing.RedisDump;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.session.events.SessionDeletedEvent;
import org.springframework.session.events.SessionExpiredEvent;

/**
 * Keyed names (docs/security.md): with keys and a names key, real flows (create, sign-in, lookup
 * by principal, id change, expiry by the sweep, delete) leave no session id, no principal name and
 * no attribute plaintext (a marker in a packed value, a value of its own and a security context)
 * anywhere in Redis, neither in what it stores (every key, member and value dumped) nor in the
 * commands it receives ({@code MONITOR}), while the events still carry the real ids.
 */
class KeyedNamesIT {
  /** A known string in attribute values: it must appear nowhere in Redis nor in its commands. */
  static final String MARKER = "marker-c41e7b";
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  static RedisClient client;
  static RedisCommands<byte[], byte[]> raw;
  final List<LazyRedisSessionRepository> open = new ArrayList<>();

  @BeforeAll
  static void connect() {
    client = RedisClient.create(redis.uri());
    raw = TestRedis.rawCommands(client);
  }

  @AfterEach
  void closeNodes() {
    open.forEach(LazyRedisSessionRepository::close);
  }

  @AfterAll
  static void shutdown() {
    client.shutdown();
  }

  /** A node of {@code namespace} with {@code encryption} (null: no keys), closed after the test. */
  LazyRedisSessionRepository node(String namespace, @Nullable SessionEncryption encryption) {
    LazyRedisSessionRepositoryBuilder builder = LazyRedisSessionRepository.builder(client)
        .namespace(namespace).cleanupInterval(Duration.ZERO);
    if (encryption != null) {
      builder.encryption(encryption);
    }
    LazyRedisSessionRepository node = builder.build();
    open.add(node);
    return node;
  }

  /** A node restarted with other settings (a rolling deploy): the old one stops. */
  LazyRedisSessionRepository restart(LazyRedisSessionRepository old, String namespace,
      @Nullable SessionEncryption encryption) {
    open.remove(old);
    old.close();
    return node(namespace, encryption);
  }

  static SessionEncryption k1(boolean acceptUnprotected, boolean writeUnprotected) {
    return SessionEncryption.builder().keys(List.of(EncryptionKey.of("k1", secret(1))))
        .acceptUnprotected(acceptUnprotected).writeUnprotected(writeUnprotected).build();
  }

  /** A signed-in session of {@code user} on {@code node}; its id. */
  static String signIn(LazyRedisSessionRepository node, String user) {
    LazySession session = node.createSession();
    session.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, user);
    session.setAttribute("SPRING_SECURITY_CONTEXT", new SecurityContextImpl(
        UsernamePasswordAuthenticationToken.authenticated(user, null,
            AuthorityUtils.createAuthorityList("ROLE_USER"))));
    session.setAttribute("note", MARKER + " of " + user);
    node.save(session);
    return session.getId();
  }

  /** Every session of {@code live} (id to user) is found, signed in, by id and by principal. */
  static void assertSignedIn(LazyRedisSessionRepository node, Map<String, String> live) {
    live.forEach((id, user) -> {
      LazySession session = node.findById(id);
      assertThat(session).as("session of %s", user).isNotNull();
      SecurityContextImpl context = session.getAttribute("SPRING_SECURITY_CONTEXT");
      assertThat(context.getAuthentication().getName()).isEqualTo(user);
      assertThat(session.<String>getAttribute("note")).isEqualTo(MARKER + " of " + user);
      assertThat(node.findByPrincipalName(user)).as("sessions of %s", user).containsOnlyKeys(id);
    });
  }

  /**
   * Sessions written by each node are found, changed and deleted by the other, and nobody of
   * {@code live} (to which the sessions kept are added) is signed out.
   */
  static void shareBothWays(LazyRedisSessionRepository a, LazyRedisSessionRepository b,
      Map<String, String> live, String step) {
    for (LazyRedisSessionRepository[] pair : List.of(new LazyRedisSessionRepository[] {a, b},
        new LazyRedisSessionRepository[] {b, a})) {
      LazyRedisSessionRepository writer = pair[0];
      LazyRedisSessionRepository other = pair[1];
      String user = "user-" + step + (writer == a ? "-a" : "-b");
      String kept = signIn(writer, user);
      LazySession changed = other.findById(kept);
      assertThat(changed).as("%s's session on the other node", user).isNotNull();
      changed.setAttribute("changedBy", "other");
      other.save(changed);
      assertThat(writer.findById(kept).<String>getAttribute("changedBy")).isEqualTo("other");
      live.put(kept, user);
      String leaving = signIn(writer, user + "-leaving");
      assertThat(other.findByPrincipalName(user + "-leaving")).containsOnlyKeys(leaving);
      other.deleteById(leaving);
      assertThat(writer.findById(leaving)).isNull();
      assertThat(writer.findByPrincipalName(user + "-leaving")).isEmpty();
    }
    assertSignedIn(a, live);
    assertSignedIn(b, live);
  }

  /**
   * docs/security.md, "Rollout", step by step on two nodes with keyed names: node A gets the keys
   * first (step 1: writing unprotected) while B has none, then B; both write protected under keyed
   * names (step 2, A first); reencrypt() seals and renames the rest (step 3); unprotected values and
   * clear names are no longer read (step 4). At every step each node finds, changes and deletes
   * the other's sessions, and nobody is signed out.
   */
  @Test
  void rollout_nodeWithKeysAndNodeWithout_shareSessionsThenRenamedAndNobodySignedOut()
      throws Exception {
    String namespace = TestRedis.uniqueNamespace("keyed-rollout");
    Map<String, String> live = new LinkedHashMap<>();
    LazyRedisSessionRepository a = node(namespace, null);
    LazyRedisSessionRepository b = node(namespace, null);
    shareBothWays(a, b, live, "before");
    // Step 1, A first: keys, still writing unprotected.
    a = restart(a, namespace, k1(true, true));
    shareBothWays(a, b, live, "step1-a");
    b = restart(b, namespace, k1(true, true));
    shareBothWays(a, b, live, "step1-b");
    // Step 2, A first: writing protected, new sessions under keyed names.
    a = restart(a, namespace, k1(true, false));
    shareBothWays(a, b, live, "step2-a");
    b = restart(b, namespace, k1(true, false));
    shareBothWays(a, b, live, "step2-b");
    // Step 3: reencrypt() until nothing remains; it renames what is under clear names.
    ReencryptionReport report = b.reencrypt();
    assertThat(report.renamed()).isPositive();
    assertThat(report.remaining()).isZero();
    assertThat(a.reencrypt()).isEqualTo(new ReencryptionReport(live.size(), 0, 0, 0));
    // Step 4: unprotected values and clear names are no longer read.
    a = restart(a, namespace, k1(false, false));
    b = restart(b, namespace, k1(false, false));
    assertSignedIn(a, live);
    assertSignedIn(b, live);
    String dump = dump(raw, namespace + ":*");
    assertThat(dump).doesNotContain(MARKER);
    live.forEach((id, user) -> assertThat(dump).doesNotContain(id).doesNotContain(user));
    assertThat(a.metrics().rejectedValues() + b.metrics().rejectedValues()).isZero();
  }

  /** A session written before keys, by a node without them: under its clear id. */
  String clearSession(String namespace) {
    LazyRedisSessionRepository before = node(namespace, null);
    String id = signIn(before, "carol-race");
    open.remove(before);
    before.close();
    return id;
  }

  /** {@code node}'s reencrypt() with {@code hook} run between each copy and its compare-and-delete. */
  static ReencryptionReport reencrypt(LazyRedisSessionRepository node, Runnable hook) {
    Reencryption run = new Reencryption(node.shared().connection(), node.shared().store(),
        node.shared().metrics());
    run.renaming().afterCopy(hook);
    return run.run();
  }

  /**
   * Rollout step 3: node N loaded a session under its clear id (every node writes keyed names and
   * still reads clear ones) when reencrypt() on node R renamed it; N's save then lands under the
   * new name, nothing lost.
   */
  @Test
  void changeSessionId_withIdRenewalOn_newHashCarriesItsSealedId() {
    LazyRedisSessionRepository node = LazyRedisSessionRepository.builder(client)
        .namespace(TestRedis.uniqueNamespace("keyed-move")).cleanupInterval(Duration.ZERO)
        .idRenewal(Duration.ofMinutes(15), Duration.ofSeconds(10))
        .encryption(k1(false, false)).build();
    open.add(node);
    String id = signIn(node, "carol.keyed@example.org");
    LazySession session = node.findById(id);
    String newId = session.changeSessionId(); // written whole under the new name (save.lua 'r')
    node.save(session);

    byte[] key = node.shared().store().keys().session(newId);
    assertThat(raw.hexists(key, SessionKeys.ID.getBytes(StandardCharsets.UTF_8)))
        .as("#i: what the sweep, events and reencrypt() read the id from").isTrue();
    assertThat(raw.hexists(key, SessionKeys.RENEWED.getBytes(StandardCharsets.UTF_8))).isTrue();
  }

  @Test
  void save_afterReencryptRenamedTheSessionItLoaded_landsUnderTheNewName() {
    String namespace = TestRedis.uniqueNamespace("keyed-race-after");
    String id = clearSession(namespace);
    LazyRedisSessionRepository n = node(namespace, k1(true, false));
    LazyRedisSessionRepository r = node(namespace, k1(true, false));
    LazySession loaded = n.findById(id);
    loaded.setAttribute("cart", "late apples");

    assertThat(r.reencrypt().renamed()).isEqualTo(1);
    n.save(loaded);

    for (LazyRedisSessionRepository node : List.of(r, n, node(namespace, k1(false, false)))) {
      assertThat(node.findById(id).<String>getAttribute("cart")).isEqualTo("late apples");
      assertThat(node.findByPrincipalName("carol-race")).containsOnlyKeys(id);
    }
    assertThat(r.reencrypt()).isEqualTo(new ReencryptionReport(1, 0, 0, 0));
  }

  /** As the test above, the save made through the reactive repository. */
  @Test
  void reactiveSave_afterReencryptRenamedTheSessionItLoaded_landsUnderTheNewName() {
    String namespace = TestRedis.uniqueNamespace("keyed-race-reactive");
    String id = clearSession(namespace);
    LazyReactiveRedisSessionRepository n =
        LazyReactiveRedisSessionRepository.of(node(namespace, k1(true, false)));
    LazyRedisSessionRepository r = node(namespace, k1(true, false));
    LazySession loaded = n.findById(id).block();
    loaded.setAttribute("cart", "late apples");

    assertThat(r.reencrypt().renamed()).isEqualTo(1);
    n.save(loaded).block();

    assertThat(r.findById(id).<String>getAttribute("cart")).isEqualTo("late apples");
    assertThat(n.findById(id).block().<String>getAttribute("cart")).isEqualTo("late apples");
  }

  /**
   * The same save between reencrypt()'s copy and its compare-and-delete of the clear hash: the
   * rename backs off (the copy removed, the session counted as remaining) and the next run moves
   * it with the change.
   */
  @Test
  void save_whileReencryptRenamesTheSession_renameBacksOffAndTheNextRunMovesIt() {
    String namespace = TestRedis.uniqueNamespace("keyed-race-during");
    String id = clearSession(namespace);
    LazyRedisSessionRepository n = node(namespace, k1(true, false));
    LazyRedisSessionRepository r = node(namespace, k1(true, false));
    LazySession loaded = n.findById(id);
    loaded.setAttribute("cart", "racing apples");

    ReencryptionReport first = reencrypt(r, () -> n.save(loaded));

    assertThat(first.renamed()).isZero();
    assertThat(first.remaining()).isEqualTo(1);
    assertThat(n.findById(id).<String>getAttribute("cart")).isEqualTo("racing apples");
    assertThat(r.reencrypt().renamed()).isEqualTo(1);
    for (LazyRedisSessionRepository node : List.of(r, n, node(namespace, k1(false, false)))) {
      assertThat(node.findById(id).<String>getAttribute("cart")).isEqualTo("racing apples");
      assertThat(node.findByPrincipalName("carol-race")).containsOnlyKeys(id);
    }
  }

  /**
   * The same save after reencrypt() read the hash to re-seal it, before it copies it to the new
   * name: the copy and the compare-and-delete of the clear hash see one version, so the session is
   * moved with the change, and is never left under both names (each read by other nodes).
   */
  @Test
  void save_afterReencryptReadTheSessionBeforeItsCopy_movesItWithTheChange() {
    String namespace = TestRedis.uniqueNamespace("keyed-race-before");
    String id = clearSession(namespace);
    LazyRedisSessionRepository n = node(namespace, k1(true, false));
    LazyRedisSessionRepository r = node(namespace, k1(true, false));
    LazySession loaded = n.findById(id);
    loaded.setAttribute("cart", "early apples");
    Reencryption run = new Reencryption(r.shared().connection(), r.shared().store(),
        r.shared().metrics());
    run.renaming().beforeCopy(() -> n.save(loaded));

    assertThat(run.run().renamed()).isEqualTo(1);

    List<byte[]> hashes = new java.util.ArrayList<>();
    io.lettuce.core.ScanIterator.scan(raw,
        io.lettuce.core.KeyScanArgs.Builder.matches(namespace + ":s:*")).forEachRemaining(hashes::add);
    assertThat(hashes).as("the session under one name").hasSize(1);
    for (LazyRedisSessionRepository node : List.of(r, n, node(namespace, k1(false, false)))) {
      assertThat(node.findById(id).<String>getAttribute("cart")).isEqualTo("early apples");
      assertThat(node.findByPrincipalName("carol-race")).containsOnlyKeys(id);
    }
  }

  /** Text no compression shortens: a value of that length is stored in a field of its own. */
  static String incompressible(int length) {
    Random random = new Random(length);
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append((char) ('a' + random.nextInt(26)));
    }
    return text.toString();
  }

  static byte[] secret(int seed) {
    byte[] bytes = new byte[EncryptionKey.SECRET_BYTES];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  @Test
  void flows_keys_noIdNorPrincipalNorMarkerInRedisNorInCommands() throws Exception {
    MutableClock clock = new MutableClock(java.time.Instant.now());
    List<Object> events = new CopyOnWriteArrayList<>();
    String user = "alice.keyed@example.org";
    String other = "bob.keyed@example.org";
    List<String> secrets = new ArrayList<>(List.of(user, other));
    try (Monitor monitor = Monitor.start(redis.uri().getHost(), redis.uri().getPort());
        LazyRedisSessionRepository node = LazyRedisSessionRepository.builder(client)
            .namespace("keyed").clock(clock).eventPublisher(events::add)
            .cleanupInterval(Duration.ZERO)
            // uncompressed, so that only sealing keeps the marker out of Redis
            .serializer(AttributeSerializer.builder().compression(Compression.none()).build())
            // the keys only, as docs/security.md's "Turning it on" sets them: the default
            // settings send no name in clear (no clear principal set is looked up either)
            .encryption(SessionEncryption.builder()
                .keys(List.of(EncryptionKey.of("k1", secret(1)))).build())
            .build()) {
      LazySession session = node.createSession();
      session.setAttribute("cart", "three apples");
      // the marker in a small value (the pack) and a large one (a field of its own)
      session.setAttribute("note", MARKER + " in a note");
      session.setAttribute("report", MARKER + " " + incompressible(4000) + " " + MARKER);
      node.save(session);
      secrets.add(session.getId());
      // sign-in: principal, then a new id
      LazySession signingIn = node.findById(session.getId());
      signingIn.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, user);
      UsernamePasswordAuthenticationToken authentication = new UsernamePasswordAuthenticationToken(
          user, "n/a", AuthorityUtils.createAuthorityList("ROLE_USER"));
      authentication.setDetails(MARKER + " in the security context");
      signingIn.setAttribute("SPRING_SECURITY_CONTEXT", new SecurityContextImpl(authentication));
      String signedIn = signingIn.changeSessionId();
      node.save(signingIn);
      secrets.add(signedIn);
      assertThat(node.findById(session.getId())).isNull();
      LazySession afterSignIn = node.findById(signedIn);
      assertThat(afterSignIn.<String>getAttribute("cart")).isEqualTo("three apples");
      assertThat(afterSignIn.<String>getAttribute("report")).startsWith(MARKER).hasSize(4000 + 2
          + 2 * MARKER.length());
      assertThat(((SecurityContextImpl) afterSignIn.getAttribute("SPRING_SECURITY_CONTEXT"))
          .getAuthentication().getDetails()).isEqualTo(MARKER + " in the security context");
      assertThat(node.findByPrincipalName(user)).containsOnlyKeys(signedIn);
      // a second user's session, deleted
      LazySession second = node.createSession();
      second.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, other);
      node.save(second);
      secrets.add(second.getId());
      assertThat(node.findByPrincipalName(other)).containsOnlyKeys(second.getId());
      node.deleteById(second.getId());
      assertThat(node.findByPrincipalName(other)).isEmpty();
      // a third session, left to expire
      LazySession idle = node.createSession();
      idle.setMaxInactiveInterval(Duration.ofMinutes(1));
      idle.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, other);
      node.save(idle);
      secrets.add(idle.getId());
      clock.advance(Duration.ofMinutes(2));
      assertThat(node.cleanUpExpiredSessions()).isEqualTo(1);

      assertThat(events).filteredOn(SessionDeletedEvent.class::isInstance)
          .extracting(e -> ((SessionDeletedEvent) e).getSessionId())
          .contains(second.getId());
      assertThat(events).filteredOn(SessionExpiredEvent.class::isInstance)
          .extracting(e -> ((SessionExpiredEvent) e).getSessionId())
          .containsExactly(idle.getId());
      assertThat(node.findByPrincipalName(user)).containsOnlyKeys(signedIn);
      assertThat(node.findByPrincipalName(other)).isEmpty();

      String commands = monitor.stop();
      assertThat(commands).contains("keyed:s:{"); // the monitor saw the flows
      String dump = dump(raw, "keyed*");
      // the pack: whole, or its first chunk
      assertThat(dump).contains("keyed:s:{").contains("report=").containsPattern("(#s|\\u0080)=");
      assertThat(commands).as("MONITOR").doesNotContain(MARKER);
      assertThat(dump).as("dump").doesNotContain(MARKER);
      for (String secret : secrets) {
        assertThat(commands).as("MONITOR").doesNotContain(secret);
        assertThat(dump).as("dump").doesNotContain(secret);
      }
    }
  }

  /** Every key matching {@code pattern}, its members and values, as ISO-8859-1 text. */
  static String dump(RedisCommands<byte[], byte[]> raw, String pattern) {
    return RedisDump.of(raw, pattern);
  }

  /** A raw connection in MONITOR mode, collecting every command Redis receives. */
  static final class Monitor implements AutoCloseable {
    private final Socket socket;
    private final StringBuffer seen = new StringBuffer();
    private final Thread reader;
    private final RedisCommands<byte[], byte[]> commands;

    private Monitor(Socket socket, RedisCommands<byte[], byte[]> commands) {
      this.socket = socket;
      this.commands = commands;
      this.reader = new Thread(() -> {
        try (InputStream in = socket.getInputStream()) {
          byte[] buffer = new byte[8192];
          for (int read; (read = in.read(buffer)) > 0; ) {
            seen.append(new String(buffer, 0, read, ISO_8859_1));
          }
        } catch (java.io.IOException e) {
          // closed
        }
      }, "monitor");
      reader.setDaemon(true);
      reader.start();
    }

    static Monitor start(String host, int port) throws Exception {
      return start(host, port, raw);
    }

    /** As {@link #start(String, int)}, ending by an ECHO sent on {@code commands}. */
    static Monitor start(String host, int port, RedisCommands<byte[], byte[]> commands)
        throws Exception {
      Socket socket = new Socket(host, port);
      OutputStream out = socket.getOutputStream();
      out.write("MONITOR\r\n".getBytes(ISO_8859_1));
      out.flush();
      Monitor monitor = new Monitor(socket, commands);
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (monitor.seen.indexOf("+OK") < 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      return monitor;
    }

    /** Everything seen so far; Redis sends MONITOR lines asynchronously, so a PING marks the end. */
    String stop() throws Exception {
      commands.echo("monitor-end".getBytes(ISO_8859_1));
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (seen.indexOf("monitor-end") < 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      return seen.toString();
    }

    @Override
    public void close() throws Exception {
      socket.close();
    }
  }
}
