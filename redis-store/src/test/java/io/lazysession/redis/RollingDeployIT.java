package io.lazysession.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A rolling deploy: two nodes share one Redis, each with its own version of the application's
 * classes (compiled here, loaded through two class loaders). Version 2 adds an enum constant, adds a
 * field, and changes a field's type. Whatever one node wrote, the other reads what it can, hides what
 * it cannot, and after saving an unrelated change leaves every byte of the other node's attributes in
 * Redis as it was: nothing valid is deleted or rewritten, and the writer still reads it all back.
 */
class RollingDeployIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private static final String PACKAGE = "rolling.shop";
  private static final List<String> APPLICATION_ATTRIBUTES =
      List.of("status", "order", "shippedOrder", "price");

  static RedisClient client;
  static RedisCommands<byte[], byte[]> raw;
  @TempDir static Path classes;
  static ClassLoader v1;
  static ClassLoader v2;

  String namespace;
  final List<LazyRedisSessionRepository> repositories = new ArrayList<>();

  @BeforeAll
  static void compileBothVersions() throws IOException {
    client = RedisClient.create(redis.uri());
    raw = TestRedis.rawCommands(client);
    v1 = compile("v1", """
        public enum Status { NEW, PAID }
        """, """
        public class Order implements java.io.Serializable {
          private static final long serialVersionUID = 1L;
          public String id;
          public Status status;
        }
        """, """
        public class Price implements java.io.Serializable {
          private static final long serialVersionUID = 1L;
          public String amount;
        }
        """);
    v2 = compile("v2", """
        public enum Status { NEW, PAID, SHIPPED }
        """, """
        public class Order implements java.io.Serializable {
          private static final long serialVersionUID = 1L;
          public String id;
          public Status status;
          public String note;
        }
        """, """
        public class Price implements java.io.Serializable {
          private static final long serialVersionUID = 1L;
          public Integer amount;
        }
        """);
  }

  /** Compiles the sources (each one public type of {@link #PACKAGE}) into a loader of their own. */
  private static ClassLoader compile(String version, String... sources) throws IOException {
    Path src = Files.createDirectories(classes.resolve(version + "-src").resolve(PACKAGE.replace('.', '/')));
    Path out = Files.createDirectories(classes.resolve(version));
    List<String> args = new ArrayList<>(List.of("-d", out.toString()));
    for (String source : sources) {
      String name = source.replaceAll("(?s).*public (?:enum|class) (\\w+).*", "$1");
      Path file = src.resolve(name + ".java");
      Files.writeString(file, "package " + PACKAGE + ";\n" + source);
      args.add(file.toString());
    }
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    assertThat(compiler.run(null, null, null, args.toArray(String[]::new))).as("javac " + version)
        .isZero();
    return new URLClassLoader(new URL[] {out.toUri().toURL()}, RollingDeployIT.class.getClassLoader());
  }

  @AfterAll
  static void shutdown() {
    client.shutdown();
  }

  @BeforeEach
  void namespace(TestInfo test) {
    namespace = TestRedis.uniqueNamespace("rolling-" + test.getDisplayName().replaceAll("\\W", ""));
  }

  @AfterEach
  void close() {
    repositories.forEach(LazyRedisSessionRepository::close);
  }

  /** A node of one version: its own class loader, the application's package allowed. */
  LazyRedisSessionRepository node(ClassLoader version, CodecKind codec) {
    LazyRedisSessionRepository repository = LazyRedisSessionRepository.builder(client)
        .serializer(AttributeSerializer.builder().codec(codec).classLoader(version)
            .allowList(ClassAllowList.builder().allowPackage(PACKAGE).build()).build())
        .namespace(namespace)
        .cleanupInterval(Duration.ZERO)
        .build();
    repositories.add(repository);
    return repository;
  }

  /** The attributes a node of this version sets: one of each evolved type, and an unrelated one. */
  static Map<String, Object> attributes(ClassLoader version) throws ReflectiveOperationException {
    boolean newer = version == v2;
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("status", status(version, newer ? "SHIPPED" : "PAID"));
    attributes.put("order", order(version, "A-17", "PAID", newer ? "leave at the door" : null));
    attributes.put("shippedOrder", order(version, "A-18", newer ? "SHIPPED" : "NEW", null));
    Object price = version.loadClass(PACKAGE + ".Price").getConstructor().newInstance();
    price.getClass().getField("amount").set(price, newer ? (Object) 1250 : "12.50");
    attributes.put("price", price);
    attributes.put("cart", "3 items");
    return attributes;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static Object status(ClassLoader version, String name) throws ClassNotFoundException {
    return Enum.valueOf((Class) version.loadClass(PACKAGE + ".Status"), name);
  }

  static Object order(ClassLoader version, String id, String status, String note)
      throws ReflectiveOperationException {
    Object order = version.loadClass(PACKAGE + ".Order").getConstructor().newInstance();
    order.getClass().getField("id").set(order, id);
    order.getClass().getField("status").set(order, status(version, status));
    if (note != null) {
      order.getClass().getField("note").set(order, note);
    }
    return order;
  }

  /** What a value holds, in words both versions share (public fields and enum names). */
  static String describe(Object value) throws IllegalAccessException {
    if (value == null || value instanceof String || value instanceof Enum || value instanceof Number) {
      return value == null ? "null" : value.getClass().getSimpleName() + ":" + value;
    }
    StringBuilder fields = new StringBuilder(value.getClass().getName()).append('{');
    for (var field : value.getClass().getFields()) {
      if (java.lang.reflect.Modifier.isStatic(field.getModifiers())) {
        continue;
      }
      fields.append(field.getName()).append('=').append(describe(field.get(value))).append(';');
    }
    return fields.append('}').toString();
  }

  Map<String, byte[]> storedFields(String id) {
    Map<String, byte[]> fields = new LinkedHashMap<>();
    raw.hgetall((namespace + ":s:{" + id + "}").getBytes(UTF_8))
        .forEach((name, bytes) -> fields.put(new String(name, UTF_8), bytes));
    return fields;
  }

  @ParameterizedTest(name = "{0}, newer node writes")
  @EnumSource(CodecKind.class)
  void save_olderNodeReadsNewerValuesAndSavesUnrelatedChange_nothingOfTheNewerNodeLost(CodecKind codec)
      throws Exception {
    // the older node has no SHIPPED (alone or inside an order), and a String field where 2 has Integer
    roundTrip(v2, v1, codec, List.of("status", "shippedOrder", "price"));
  }

  @ParameterizedTest(name = "{0}, older node writes")
  @EnumSource(CodecKind.class)
  void save_newerNodeReadsOlderValuesAndSavesUnrelatedChange_nothingOfTheOlderNodeLost(CodecKind codec)
      throws Exception {
    // the newer node reads the old enum and the order without the added field, not the String price
    roundTrip(v1, v2, codec, List.of("price"));
  }

  /**
   * The writer stores a session; the other node reads every attribute (some it cannot decode), changes
   * "cart" and saves, twice; Redis still holds the writer's bytes, and the writer reads them all back.
   */
  private void roundTrip(ClassLoader writerVersion, ClassLoader readerVersion, CodecKind codec,
      List<String> unreadable) throws Exception {
    LazyRedisSessionRepository writer = node(writerVersion, codec);
    LazyRedisSessionRepository reader = node(readerVersion, codec);
    Map<String, Object> written = attributes(writerVersion);
    LazySession created = writer.createSession();
    written.forEach(created::setAttribute);
    writer.save(created);
    Map<String, byte[]> before = storedFields(created.getId());

    for (String cart : List.of("4 items", "5 items")) {
      LazySession onReader = reader.findById(created.getId());
      assertThat(onReader).isNotNull();
      List<String> hidden = new ArrayList<>();
      for (String name : APPLICATION_ATTRIBUTES) {
        if (onReader.getAttribute(name) == null) {
          hidden.add(name);
        }
      }
      assertThat(hidden).as("attributes this version cannot decode").isEqualTo(unreadable);
      assertThat(onReader.<String>getAttribute("cart")).isNotNull();
      onReader.setAttribute("cart", cart);
      reader.save(onReader);
    }

    Map<String, byte[]> after = storedFields(created.getId());
    for (String name : APPLICATION_ATTRIBUTES) {
      assertThat(after.get(name)).as(name + " as the writer stored it").isEqualTo(before.get(name));
    }
    LazySession onWriter = writer.findById(created.getId());
    assertThat(onWriter.<String>getAttribute("cart")).isEqualTo("5 items");
    for (String name : APPLICATION_ATTRIBUTES) {
      assertThat(describe(onWriter.getAttribute(name))).as(name).isEqualTo(describe(written.get(name)));
    }
  }
}
