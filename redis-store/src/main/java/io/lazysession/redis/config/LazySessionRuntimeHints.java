package io.lazysession.redis.config;

import com.esotericsoftware.kryo.kryo5.Serializer;
import com.esotericsoftware.kryo.kryo5.serializers.ClosureSerializer;
import com.esotericsoftware.kryo.kryo5.serializers.CollectionSerializer;
import com.esotericsoftware.kryo.kryo5.serializers.CompatibleFieldSerializer;
import com.esotericsoftware.kryo.kryo5.serializers.DefaultArraySerializers;
import com.esotericsoftware.kryo.kryo5.serializers.DefaultSerializers;
import com.esotericsoftware.kryo.kryo5.serializers.EnumNameSerializer;
import com.esotericsoftware.kryo.kryo5.serializers.FieldSerializer;
import com.esotericsoftware.kryo.kryo5.serializers.ImmutableCollectionsSerializers;
import com.esotericsoftware.kryo.kryo5.serializers.MapSerializer;
import com.esotericsoftware.kryo.kryo5.serializers.OptionalSerializers;
import com.esotericsoftware.kryo.kryo5.serializers.RecordSerializer;
import com.esotericsoftware.kryo.kryo5.serializers.TimeSerializers;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdDictCompress;
import com.github.luben.zstd.ZstdDictDecompress;
import com.github.luben.zstd.ZstdDictTrainer;
import com.github.luben.zstd.ZstdException;
import com.github.luben.zstd.ZstdFrameProgression;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.api.reactive.RedisClusterReactiveCommands;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the session store loads reflectively or as a resource, for a native image (GraalVM), where
 * nothing of it is reachable unless declared: the Lua scripts; zstd-jni's native libraries and the
 * classes its native code reaches through JNI; the Kryo serializers Kryo instantiates from their
 * class, and the collections it instantiates through their constructors; the proxies that stand in
 * for Lettuce's commands before Redis is reachable; the Caffeine caches of the near cache and of
 * keyed names (Caffeine loads the class that fits a cache's options by name); the exceptions a
 * session holds after a failed login, rebuilt through their constructors. What the application
 * keeps in its sessions is the application's to declare (docs/compatibility.md).
 *
 * <p>Registered in {@code META-INF/spring/aot.factories}; Spring AOT runs it at build time.
 * Stateless.
 */
final class LazySessionRuntimeHints implements RuntimeHintsRegistrar {
  /** The Lua scripts ({@code RedisScript} reads them next to its class). */
  static final String SCRIPTS = "io/lazysession/redis/*.lua";
  /** zstd-jni's native library, one per platform, as its loader names them. */
  static final List<String> ZSTD_LIBRARIES = List.of("linux/*/libzstd-jni-*.so",
      "darwin/*/libzstd-jni-*.dylib", "win/*/libzstd-jni-*.dll", "freebsd/*/libzstd-jni-*.so",
      "aix/*/libzstd-jni-*.so");
  /**
   * zstd-jni's classes whose fields, constructors or methods its native code uses (with their
   * superclasses, where some keep the native pointer).
   */
  static final List<Class<?>> ZSTD_JNI = List.of(Zstd.class, ZstdCompressCtx.class,
      ZstdDecompressCtx.class, ZstdDictCompress.class, ZstdDictDecompress.class,
      ZstdDictTrainer.class, ZstdException.class, ZstdFrameProgression.class);
  /** Serializers Kryo creates from their class (ReflectionSerializerFactory), and their holders. */
  static final List<Class<?>> KRYO_SERIALIZERS = List.of(FieldSerializer.class,
      CompatibleFieldSerializer.class, CollectionSerializer.class, MapSerializer.class,
      EnumNameSerializer.class, RecordSerializer.class, ClosureSerializer.class);
  static final List<Class<?>> KRYO_SERIALIZER_HOLDERS = List.of(DefaultSerializers.class,
      DefaultArraySerializers.class, OptionalSerializers.class, TimeSerializers.class,
      ImmutableCollectionsSerializers.class);
  /** Collections Kryo creates through their no-argument constructor. */
  static final List<Class<?>> KRYO_COLLECTIONS = List.of(ArrayList.class, LinkedList.class,
      ArrayDeque.class, CopyOnWriteArrayList.class, HashMap.class, LinkedHashMap.class,
      TreeMap.class, ConcurrentHashMap.class, HashSet.class, LinkedHashSet.class, TreeSet.class);
  /** The interfaces of each proxy DeferredConnection makes, in order. */
  static final List<List<Class<?>>> PROXIES = List.of(List.of(RedisCommands.class),
      List.of(RedisAdvancedClusterCommands.class), List.of(RedisClusterReactiveCommands.class));
  /** Caffeine's classes for the near cache (maximum weight) and keyed names (size, access). */
  static final List<String> CAFFEINE = Stream.of("SSMW", "PSMW", "SSMSA", "PSAMS")
      .map(name -> "com.github.benmanes.caffeine.cache." + name).toList();
  /** Exceptions a session holds after a failed login, rebuilt through their constructors. */
  static final List<String> EXCEPTIONS = Stream.concat(
      Stream.of("io.lazysession.redis.SessionLimitAuthenticationException"),
      Stream.of("AuthenticationException", "BadCredentialsException", "DisabledException",
          "LockedException", "AccountExpiredException", "CredentialsExpiredException",
          "AuthenticationServiceException", "InternalAuthenticationServiceException",
          "AccountStatusException", "InsufficientAuthenticationException",
          "ProviderNotFoundException", "AuthenticationCredentialsNotFoundException")
          .map(name -> "org.springframework.security.authentication." + name))
      .toList();

  @Override
  public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
    hints.resources().registerPattern(SCRIPTS);
    ZSTD_LIBRARIES.forEach(hints.resources()::registerPattern);
    for (Class<?> type : ZSTD_JNI) {
      for (Class<?> c = type; c != null && c != Object.class && c != Throwable.class
          && c.getName().startsWith("com.github.luben."); c = c.getSuperclass()) {
        hints.jni().registerType(c, MemberCategory.ACCESS_DECLARED_FIELDS,
            MemberCategory.INVOKE_DECLARED_CONSTRUCTORS, MemberCategory.INVOKE_DECLARED_METHODS);
      }
    }
    for (Class<?> type : kryoSerializers()) {
      hints.reflection().registerType(type, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS,
          MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
    }
    for (Class<?> type : KRYO_COLLECTIONS) {
      hints.reflection().registerType(type, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
    }
    // An empty EnumMap's key type is read from its Java serialized form.
    hints.serialization().registerType(EnumMap.class);
    PROXIES.forEach(interfaces -> hints.proxies().registerJdkProxy(
        interfaces.toArray(Class<?>[]::new)));
    for (String name : CAFFEINE) {
      hints.reflection().registerTypeIfPresent(classLoader, name,
          MemberCategory.INVOKE_DECLARED_CONSTRUCTORS, MemberCategory.ACCESS_DECLARED_FIELDS);
    }
    // SentinelSwitch reads the Sentinels of the client's URI from its field (Lettuce has no accessor).
    hints.reflection().registerTypeIfPresent(classLoader, "io.lettuce.core.RedisClient",
        type -> type.withField("redisURI"));
    for (String writer : List.of("io.lettuce.core.CommandListenerWriter",
        "io.lettuce.core.protocol.CommandExpiryWriter",
        "io.lettuce.core.protocol.MaintenanceAwareExpiryWriter")) {
      hints.reflection().registerTypeIfPresent(classLoader, writer,
          MemberCategory.INVOKE_PUBLIC_METHODS);
    }
    for (String name : EXCEPTIONS) {
      // Its public constructors rebuild it; its declared fields are checked before it is written.
      hints.reflection().registerTypeIfPresent(classLoader, name,
          MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS, MemberCategory.DECLARED_FIELDS);
    }
  }

  /** Every Kryo serializer class that can be instantiated from its class. */
  static List<Class<?>> kryoSerializers() {
    List<Class<?>> serializers = new ArrayList<>(KRYO_SERIALIZERS);
    for (Class<?> holder : KRYO_SERIALIZER_HOLDERS) {
      for (Class<?> nested : holder.getDeclaredClasses()) {
        if (Serializer.class.isAssignableFrom(nested)
            && !Modifier.isAbstract(nested.getModifiers())) {
          serializers.add(nested);
        }
      }
    }
    return serializers;
  }
}
