package io.lazysession.serializer.compress;

import com.esotericsoftware.kryo.kryo5.asm.ClassWriter;
import com.esotericsoftware.kryo.kryo5.asm.MethodVisitor;
import com.esotericsoftware.kryo.kryo5.asm.Opcodes;
import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.ClassAllowList;
import java.io.IOException;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Currency;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Trains the generic dictionary measured as a candidate to build into the jar (the experiment in
 * docs/serializer-benchmarks.md, "Built-in dictionary"; not adopted, so the bytes are a test resource,
 * not in the jar), deterministically from a seed, on Kryo payloads of a synthetic corpus:
 * JDK-typed values (strings, numbers, java.time, BigDecimal, UUID, collections, maps, nested maps and
 * lists of those) and objects of classes generated at run time with varied, generic package, class and
 * field names (drawn from a fixed vocabulary of common words; never the reference session's classes).
 *
 * <p>Generated classes are plain classes with public fields (Kryo's shaded ASM predates records);
 * records are written by {@code CompatibleRecordSerializer} in the same shape (names once, then each
 * value with its class), so the byte patterns learned are the same.
 *
 * <pre>
 * mvn -o -pl session-serializer -Pbench test-compile exec:exec \
 *     -Dbench.main=io.lazysession.serializer.compress.BuiltInDictionaryTrainer -Djmh.args=
 * </pre>
 *
 * writes {@link #RESOURCE} under src/test/resources ({@code BuiltInDictionaryTrainerTest} checks that
 * the committed bytes are what this program produces).
 *
 * Not thread-safe; a tool.
 */
public final class BuiltInDictionaryTrainer {
  /** The committed dictionary, a test resource. */
  public static final String RESOURCE = "builtin-dictionary/builtin-dictionary-1.zdict";
  /** The seed of the committed dictionary; changing it changes the dictionary (and its bytes). */
  public static final long SEED = 0x5EED_D1C7L;
  /** Size of the committed dictionary. */
  public static final int DICTIONARY_BYTES = 4 * 1024;
  /**
   * The dictionary id written into the trained bytes. zstd's trainer picks ids from 32768 up (ids below
   * are reserved by the zstd format), so no dictionary a user trains with zstd has it; a reader could
   * recognize it without configuration. Readers do not today: the format was not changed.
   */
  public static final int RESERVED_ID = 1;

  static final String[] WORDS = {"account", "action", "active", "address", "amount", "attempt",
      "balance", "batch", "booking", "category", "channel", "code", "comment", "config", "contact",
      "content", "count", "created", "customer", "data", "date", "default", "description", "detail",
      "device", "display", "document", "due", "email", "enabled", "end", "entry", "event", "expires",
      "external", "file", "filter", "first", "flag", "group", "hash", "history", "id", "index", "info",
      "invoice", "item", "key", "kind", "label", "language", "last", "level", "limit", "line", "link",
      "list", "local", "location", "login", "message", "member", "mode", "modified", "name", "note",
      "number", "offset", "option", "order", "owner", "page", "parent", "password", "payment", "period",
      "phone", "plan", "position", "preference", "primary", "priority", "profile", "project", "rate",
      "reason", "record", "reference", "request", "result", "role", "rule", "schedule", "score",
      "selection", "sequence", "setting", "size", "source", "start", "state", "status", "step", "subject",
      "summary", "target", "task", "team", "tenant", "text", "ticket", "time", "title", "token", "total",
      "type", "unit", "updated", "url", "user", "value", "version", "view", "visit", "zone"};
  static final String[] TLDS = {"com", "org", "io", "net", "de", "fr", "nl", "eu"};
  static final String[] COMPANIES = {"acme", "example", "contoso", "globex", "initech", "umbrella",
      "northwind", "fabrikam", "tailspin", "wingtip", "hooli", "vandelay", "stark", "wayne"};
  static final String[] MODULES = {"app", "web", "api", "core", "domain", "model", "dto", "service",
      "session", "security", "account", "billing", "catalog", "support", "admin", "portal", "common",
      "shared", "auth", "ui", "backend", "platform"};
  static final String[] SUFFIXES = {"", "", "", "Dto", "Info", "Data", "Details", "Summary", "Entry",
      "Ref", "State", "Snapshot", "Context", "Form", "View", "Model", "Holder", "Request", "Settings"};

  private final Random random;
  private final SyntheticLoader loader = new SyntheticLoader();
  private final List<Class<?>> classes = new ArrayList<>();
  private final Set<String> packages = new LinkedHashSet<>();

  BuiltInDictionaryTrainer(long seed) {
    this.random = new Random(seed);
  }

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args.length > 0 ? args[0]
        : "src/test/resources/" + RESOURCE);
    byte[] dictionary = train(SEED, DICTIONARY_BYTES);
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.write(out, dictionary);
    System.out.println("wrote " + dictionary.length + " bytes, id " + RESERVED_ID + ", to " + out);
  }

  /** The dictionary bytes for a seed and size: same arguments, same bytes. */
  public static byte[] train(long seed, int maxBytes) {
    List<byte[]> samples = new BuiltInDictionaryTrainer(seed).samples(3000);
    byte[] trained = ZstdDictionary.train(samples, maxBytes).bytes();
    return withId(trained, RESERVED_ID);
  }

  /** The Kryo payloads of the synthetic corpus. */
  List<byte[]> samples(int count) {
    for (int i = 0; i < 120; i++) {
      classes.add(generateClass());
    }
    ClassAllowList.Builder allow = ClassAllowList.builder();
    packages.forEach(allow::allowPackage);
    AttributeSerializer kryo = AttributeSerializer.builder().requireSerializable(false).allowList(allow.build())
        .classLoader(loader).build();
    List<byte[]> samples = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Object value = random.nextInt(10) < 4 ? jdkValue(0) : instance(pick(classes), 0);
      samples.add(kryo.encodePayload(value));
    }
    return samples;
  }

  /** zstd dictionary header: magic (4 bytes), then the id, 4 bytes little-endian. */
  static byte[] withId(byte[] dictionary, int id) {
    byte[] copy = dictionary.clone();
    copy[4] = (byte) id;
    copy[5] = (byte) (id >>> 8);
    copy[6] = (byte) (id >>> 16);
    copy[7] = (byte) (id >>> 24);
    return copy;
  }

  private Object jdkValue(int depth) {
    int kind = random.nextInt(depth >= 2 ? 14 : 18);
    return switch (kind) {
      case 0, 1 -> phrase();
      case 2 -> (long) random.nextInt(1 << random.nextInt(31));
      case 3 -> random.nextInt(1000);
      case 4 -> random.nextBoolean();
      case 5 -> amount();
      case 6 -> uuid();
      case 7 -> instant();
      case 8 -> instant().atOffset(ZoneOffset.UTC).toLocalDate();
      case 9 -> LocalDateTime.ofInstant(instant(), ZoneOffset.UTC);
      case 10 -> pick(new Object[] {Locale.US, Locale.GERMANY, Locale.FRANCE, Locale.UK,
          Currency.getInstance(pick(new String[] {"EUR", "USD", "GBP"})), Duration.ofMinutes(
              random.nextInt(600)), LocalTime.of(random.nextInt(24), random.nextInt(60)),
          ZonedDateTime.ofInstant(instant(), ZoneId.of("Europe/Berlin")),
          OffsetDateTime.ofInstant(instant(), ZoneOffset.ofHours(random.nextInt(5))),
          BigInteger.valueOf(random.nextLong()), random.nextDouble() * 100});
      case 11 -> word() + "-" + (10000 + random.nextInt(90000));
      case 12 -> Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
      case 13 -> word() + "@" + pick(COMPANIES) + "." + pick(TLDS);
      default -> collection(depth + 1);
    };
  }

  private Object collection(int depth) {
    int size = random.nextInt(8);
    return switch (random.nextInt(7)) {
      case 0, 1 -> {
        List<Object> list = new ArrayList<>();
        for (int i = 0; i < size; i++) {
          list.add(jdkValue(depth));
        }
        yield list;
      }
      case 2 -> {
        Set<Object> set = random.nextBoolean() ? new HashSet<>() : new LinkedHashSet<>();
        for (int i = 0; i < size; i++) {
          set.add(random.nextBoolean() ? word() : word() + "-" + random.nextInt(100));
        }
        yield set;
      }
      case 3 -> {
        Map<String, Object> map = new TreeMap<>();
        for (int i = 0; i < size; i++) {
          map.put(camel(), jdkValue(depth));
        }
        yield map;
      }
      case 4 -> List.of(word(), word());
      default -> {
        Map<String, Object> map = random.nextBoolean() ? new HashMap<>() : new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
          map.put(random.nextBoolean() ? word() : camel(), random.nextBoolean() ? word() : jdkValue(depth));
        }
        yield map;
      }
    };
  }

  private Object instance(Class<?> type, int depth) {
    try {
      Object o = type.getConstructor().newInstance();
      for (Field f : type.getFields()) {
        f.set(o, fieldValue(f.getType(), depth));
      }
      return o;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private Object fieldValue(Class<?> type, int depth) {
    if (type == String.class) {
      return random.nextInt(3) == 0 ? phrase() : word() + (random.nextBoolean() ? "" : "-" + random.nextInt(1000));
    } else if (type == int.class) {
      return random.nextInt(200);
    } else if (type == long.class) {
      return (long) random.nextInt(1 << random.nextInt(31));
    } else if (type == boolean.class) {
      return random.nextBoolean();
    } else if (type == BigDecimal.class) {
      return amount();
    } else if (type == Instant.class) {
      return instant();
    } else if (type == LocalDate.class) {
      return instant().atOffset(ZoneOffset.UTC).toLocalDate();
    } else if (type == LocalDateTime.class) {
      return LocalDateTime.ofInstant(instant(), ZoneOffset.UTC);
    } else if (type == UUID.class) {
      return uuid();
    } else if (type == List.class) {
      List<Object> list = new ArrayList<>();
      int size = random.nextInt(5);
      boolean nested = depth < 2 && random.nextBoolean();
      Class<?> element = pick(classes);
      for (int i = 0; i < size; i++) {
        list.add(nested ? instance(element, depth + 1) : word());
      }
      return list;
    } else if (type == Map.class) {
      Map<String, Object> map = random.nextBoolean() ? new HashMap<>() : new LinkedHashMap<>();
      for (int i = random.nextInt(5); i > 0; i--) {
        map.put(camel(), depth < 2 ? jdkValue(depth + 1) : word());
      }
      return map;
    } else {
      return depth < 2 ? instance(type, depth + 1) : null;
    }
  }

  private Class<?> generateClass() {
    StringBuilder pkg = new StringBuilder(pick(TLDS)).append('.').append(pick(COMPANIES));
    for (int i = random.nextInt(3); i >= 0; i--) {
      pkg.append('.').append(pick(MODULES));
    }
    packages.add(pkg.toString());
    String simple = pascal(word()) + (random.nextBoolean() ? pascal(word()) : "") + pick(SUFFIXES);
    String name = pkg + "." + (random.nextInt(4) == 0 ? pascal(word()) + "s$" + simple : simple);
    Class<?>[] types = {String.class, String.class, String.class, int.class, long.class, boolean.class,
        BigDecimal.class, Instant.class, LocalDate.class, LocalDateTime.class, UUID.class, List.class,
        Map.class};
    ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
    String internal = name.replace('.', '/');
    cw.visit(Opcodes.V1_8, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, internal, null, "java/lang/Object", null);
    Set<String> fields = new LinkedHashSet<>();
    int fieldCount = 1 + random.nextInt(7);
    while (fields.size() < fieldCount) {
      fields.add(camel());
    }
    for (String field : fields) {
      Class<?> t = random.nextInt(12) == 0 && !classes.isEmpty() ? pick(classes) : pick(types);
      cw.visitField(Opcodes.ACC_PUBLIC, field, descriptor(t), null, null).visitEnd();
    }
    MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
    init.visitCode();
    init.visitVarInsn(Opcodes.ALOAD, 0);
    init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
    init.visitInsn(Opcodes.RETURN);
    init.visitMaxs(0, 0);
    init.visitEnd();
    cw.visitEnd();
    return loader.define(name, cw.toByteArray());
  }

  private static String descriptor(Class<?> t) {
    if (t == int.class) {
      return "I";
    } else if (t == long.class) {
      return "J";
    } else if (t == boolean.class) {
      return "Z";
    }
    return "L" + t.getName().replace('.', '/') + ";";
  }

  private String word() {
    return pick(WORDS);
  }

  private String camel() {
    String first = word();
    return random.nextBoolean() ? first : first + pascal(word());
  }

  private String phrase() {
    StringBuilder s = new StringBuilder(pascal(word()));
    for (int i = random.nextInt(5); i > 0; i--) {
      s.append(' ').append(word());
    }
    return s.toString();
  }

  private static String pascal(String word) {
    return Character.toUpperCase(word.charAt(0)) + word.substring(1);
  }

  private BigDecimal amount() {
    return BigDecimal.valueOf(random.nextInt(1_000_000), 2);
  }

  private UUID uuid() {
    return new UUID(random.nextLong(), random.nextLong());
  }

  private Instant instant() {
    return Instant.ofEpochSecond(1_600_000_000L + random.nextInt(200_000_000));
  }

  private <T> T pick(T[] values) {
    return values[random.nextInt(values.length)];
  }

  private <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  /** Defines the generated classes; their names are only ever seen by Kryo. */
  private static final class SyntheticLoader extends ClassLoader {
    SyntheticLoader() {
      super(BuiltInDictionaryTrainer.class.getClassLoader());
    }

    Class<?> define(String name, byte[] bytes) {
      return defineClass(name, bytes, 0, bytes.length);
    }
  }
}
