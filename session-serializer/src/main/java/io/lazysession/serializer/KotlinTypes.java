package io.lazysession.serializer;

import java.util.Set;

/**
 * The Kotlin standard library's value classes, allowed by every {@link ClassAllowList} so that a
 * Kotlin application stores what its code builds with no setting ({@code emptyList()},
 * {@code buildList}, {@code Pair}, ...). Named here as strings: this library does not depend on
 * Kotlin. Each was chosen from the classes of {@code kotlin-stdlib} (2.3) that implement
 * {@code Serializable}, by what decoding one can do:
 *
 * <ul>
 *   <li>allowed: classes holding data only, with no {@code readObject} nor {@code readResolve} that
 *       runs anything but building the value — {@code Pair}, {@code Triple}, the empty collections
 *       (stateless singletons whose {@code readResolve} returns the singleton), the collection
 *       builders ({@code buildList}, {@code buildSet}, {@code buildMap}: Java serialization writes
 *       them as {@code SerializedCollection} / {@code SerializedMap}, read back as read-only
 *       collections of their elements), {@code Result} and its failure (a value, or an exception the
 *       allow-list checks itself), {@code kotlin.time.Instant} and {@code kotlin.uuid.Uuid} (two
 *       numbers, and their serial forms), and {@code InitializedLazyImpl}: what Java serialization
 *       writes for every {@code Lazy} ({@code by lazy} delegates), holding the computed value only;
 *   <li>refused: the {@code Lazy} implementations that hold their initializer
 *       ({@code SynchronizedLazyImpl}, {@code SafePublicationLazyImpl}, {@code UnsafeLazyImpl}: a
 *       function object, which bytes must never choose, that the first {@code value} would run),
 *       {@code kotlin.jvm.internal} (lambdas, function and property references: code),
 *       {@code kotlin.coroutines} and the sequence builders' state machines (suspended code),
 *       {@code kotlin.reflect}, {@code kotlin.random} (generators, not values),
 *       {@code kotlin.text.Regex} (it compiles a {@code java.util.regex.Pattern}, which stays refused
 *       too) and {@code kotlin.enums}' entries proxy (it holds a {@code Class} and reads its
 *       constants).
 * </ul>
 *
 * <p>Only exact classes are allowed, never the {@code kotlin} packages, which hold the refused ones.
 * The classes that hold code (the three lazy implementations, {@code kotlin.jvm.internal},
 * {@code kotlin.coroutines}, {@code kotlin.reflect}) stay refused even when a {@code kotlin} package
 * is allowed by a setting, and in audit mode, as the JDK's denied classes do.
 * Ranges ({@code IntRange}, ...), unsigned numbers ({@code UInt}) and {@code Duration} boxed in a
 * collection are not {@code Serializable}: Java serialization refuses them, and so does this
 * library's {@code require-serializable} default (value classes held in a property are stored as
 * their underlying number).
 */
final class KotlinTypes {
  static final Set<String> CLASSES = Set.of(
      "kotlin.Pair",
      "kotlin.Triple",
      "kotlin.collections.EmptyList",
      "kotlin.collections.EmptySet",
      "kotlin.collections.EmptyMap",
      "kotlin.collections.builders.ListBuilder",
      "kotlin.collections.builders.SetBuilder",
      "kotlin.collections.builders.MapBuilder",
      "kotlin.collections.builders.SerializedCollection",
      "kotlin.collections.builders.SerializedMap",
      "kotlin.Result",
      "kotlin.Result$Failure",
      "kotlin.InitializedLazyImpl",
      "kotlin.time.Instant",
      "kotlin.time.InstantSerialized",
      "kotlin.uuid.Uuid",
      "kotlin.uuid.UuidSerialized");

  private static final Set<String> DENIED = Set.of(
      "kotlin.SynchronizedLazyImpl", "kotlin.SafePublicationLazyImpl", "kotlin.UnsafeLazyImpl");

  private static final String[] DENIED_PACKAGES = {
      "kotlin.jvm.internal.", "kotlin.coroutines.", "kotlin.reflect."};

  /** Whether {@code name} holds code: refused whatever the settings (see the class comment). */
  static boolean isDenied(String name) {
    if (!name.startsWith("kotlin.")) {
      return false;
    }
    for (String prefix : DENIED_PACKAGES) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return DENIED.contains(name);
  }

  private KotlinTypes() {}
}
