package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.esotericsoftware.kryo.kryo5.Kryo;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.luben.zstd.Zstd;
import io.lazysession.redis.SessionLimitAuthenticationException;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.api.reactive.RedisClusterReactiveCommands;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.io.File;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeHint;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.security.authentication.BadCredentialsException;

/**
 * The runtime hints the store ships for a native image, as Spring AOT finds them (through
 * {@code META-INF/spring/aot.factories}), checked with Spring's {@link RuntimeHintsPredicates}
 * against what the store actually loads: every Lua script on the class path, every native library
 * in zstd-jni's jar, the serializer class Kryo picks for common session values.
 */
class LazySessionRuntimeHintsTest {
  private static final RuntimeHints hints = new RuntimeHints();

  @BeforeAll
  static void registerAsSpringAotDoes() {
    ClassLoader classLoader = LazySessionRuntimeHintsTest.class.getClassLoader();
    SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories", classLoader)
        .load(RuntimeHintsRegistrar.class)
        .forEach(registrar -> registrar.registerHints(hints, classLoader));
  }

  @Test
  void registerHints_luaScripts_everyScriptIsAResource() throws Exception {
    Resource[] scripts = new PathMatchingResourcePatternResolver()
        .getResources("classpath*:io/lazysession/redis/*.lua");

    assertThat(scripts).hasSizeGreaterThan(10);
    for (Resource script : scripts) {
      assertThat(RuntimeHintsPredicates.resource()
          .forResource("io/lazysession/redis/" + script.getFilename()))
          .as(script.getFilename()).accepts(hints);
    }
  }

  @Test
  void registerHints_zstdJni_everyNativeLibraryAndItsJniClasses() throws Exception {
    File jar = new File(Zstd.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> libraries = new ArrayList<>();
    try (JarFile file = new JarFile(jar)) {
      file.stream().map(entry -> entry.getName())
          .filter(name -> name.contains("/libzstd-jni-")).forEach(libraries::add);
    }
    String platform = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")
        ? "linux/" : "";

    assertThat(libraries).anyMatch(name -> name.startsWith(platform));
    for (String library : libraries) {
      assertThat(RuntimeHintsPredicates.resource().forResource(library)).as(library)
          .accepts(hints);
    }
    for (Class<?> type : LazySessionRuntimeHints.ZSTD_JNI) {
      TypeHint jni = hints.jni().getTypeHint(type);
      assertThat(jni).as(type.getName()).isNotNull();
      assertThat(jni.getMemberCategories()).contains(MemberCategory.ACCESS_DECLARED_FIELDS,
          MemberCategory.INVOKE_DECLARED_CONSTRUCTORS, MemberCategory.INVOKE_DECLARED_METHODS);
    }
  }

  @Test
  void registerHints_kryoDefaultSerializers_canBeInstantiatedFromTheirClass() {
    Kryo kryo = new Kryo();
    enum Color { RED }
    List<Class<?>> values = List.of(EnumSet.noneOf(Color.class).getClass(),
        java.sql.Timestamp.class, BigDecimal.class, Locale.class, Duration.class,
        LocalDate.class, Optional.class, Collections.emptyList().getClass(),
        Collections.singletonMap(1, 1).getClass(), List.of(1).getClass(), Color.class,
        StringBuilder.class, HashMap.class, ArrayList.class, byte[].class, String[].class);

    for (Class<?> type : values) {
      Class<?> serializer = kryo.getDefaultSerializer(type).getClass();
      assertThat(RuntimeHintsPredicates.reflection().onType(serializer)
          .withMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS))
          .as(type.getName() + " -> " + serializer.getName()).accepts(hints);
    }
    assertThat(RuntimeHintsPredicates.reflection().onType(ArrayList.class)
        .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
  }

  @Test
  void registerHints_commandProxiesCachesAndLoginExceptions_areDeclared() {
    assertThat(RuntimeHintsPredicates.proxies().forInterfaces(RedisCommands.class))
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.proxies().forInterfaces(RedisAdvancedClusterCommands.class))
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.proxies().forInterfaces(RedisClusterReactiveCommands.class))
        .accepts(hints);
    // The shapes of NearCache's and SessionKeys' caches: Caffeine loads each one's class by name.
    Class<?> nearCache = Caffeine.newBuilder().executor(Runnable::run).maximumWeight(1)
        .<String, String>weigher((key, value) -> 1).build().asMap().getClass();
    Class<?> keyedNames = Caffeine.newBuilder().maximumSize(1)
        .expireAfterAccess(Duration.ofHours(1)).build().asMap().getClass();
    assertThat(RuntimeHintsPredicates.reflection().onType(nearCache)
        .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onType(keyedNames)
        .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
    for (Class<?> exception : List.of(SessionLimitAuthenticationException.class,
        BadCredentialsException.class)) {
      assertThat(RuntimeHintsPredicates.reflection().onType(exception)
          .withMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS)).accepts(hints);
    }
    assertThat(RuntimeHintsPredicates.serialization().onType(java.util.EnumMap.class))
        .accepts(hints);
  }
}
