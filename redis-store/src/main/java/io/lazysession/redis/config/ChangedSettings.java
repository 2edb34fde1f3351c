package io.lazysession.redis.config;

import io.lazysession.redis.EncryptionKey;
import io.lazysession.redis.SessionEncryption;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Parameter;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.Name;
import org.springframework.util.unit.DataSize;

/**
 * What the startup line says beyond the connection, codec, compression and near cache: whether
 * encryption is on (the writing key id, never a key), and every other {@code lazysession.*} setting
 * whose value is not its default. The settings are found by comparing {@link LazySessionProperties}
 * with the defaults it binds to when nothing is set, component by component, so that a property
 * added later is said without a change here. Stateless.
 */
final class ChangedSettings {
  /** Components the start of the line already says, and encryption, said on its own. */
  private static final Set<String> SAID_ELSEWHERE = Set.of("namespace", "codec", "compression",
      "compressionLevel", "compressionMinBytes", "compressionAlgorithm", "nearCache.maxBytes",
      "nearCache.mode", "nearCache.maxStaleness", "allowListMode", "encryption");

  private ChangedSettings() {}

  /**
   * "encryption off", or on with the key id that writes, the ids that read, and how values stored
   * without protection are treated. Never a key.
   */
  static String encryption(@Nullable SessionEncryption encryption) {
    if (encryption == null) {
      return "encryption off";
    }
    List<String> ids = encryption.keys().stream().map(EncryptionKey::id).toList();
    return "encryption on (writing key id " + ids.get(0)
        + (ids.size() > 1 ? ", reading " + String.join(", ", ids) : "")
        + "; unprotected values " + (encryption.acceptUnprotected() ? "accepted" : "refused")
        + (encryption.writeUnprotected() ? ", and written: values are written unprotected" : "")
        + ")";
  }

  /**
   * {@code name=value} of every setting of {@code properties} that differs from its default, in
   * the order of {@link LazySessionProperties}; empty when none does.
   */
  static List<String> changed(LazySessionProperties properties) {
    LazySessionProperties defaults = LazySessionProperties.bind(new Binder());
    List<String> changed = new ArrayList<>();
    collect("", "", properties, defaults, changed);
    return changed;
  }

  private static void collect(String path, String prefix, Record record, Record defaults,
      List<String> changed) {
    RecordComponent[] components = record.getClass().getRecordComponents();
    Parameter[] parameters = canonical(record.getClass()).getParameters();
    for (int i = 0; i < components.length; i++) {
      String component = path + components[i].getName();
      if (SAID_ELSEWHERE.contains(component)) {
        continue;
      }
      Name name = parameters[i].getAnnotation(Name.class);
      String property = prefix + (name != null ? name.value() : kebab(components[i].getName()));
      Object value = value(components[i], record);
      Object defaultValue = value(components[i], defaults);
      if (value instanceof Record nested && defaultValue instanceof Record nestedDefault) {
        collect(component + ".", property + ".", nested, nestedDefault, changed);
      } else if (!Objects.equals(value, defaultValue)) {
        changed.add(property + "=" + shown(value));
      }
    }
  }

  private static Constructor<?> canonical(Class<?> type) {
    Class<?>[] types = Arrays.stream(type.getRecordComponents()).map(RecordComponent::getType)
        .toArray(Class<?>[]::new);
    try {
      return type.getDeclaredConstructor(types);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException("a record without its canonical constructor: " + type, e);
    }
  }

  private static @Nullable Object value(RecordComponent component, Record record) {
    try {
      return component.getAccessor().invoke(record);
    } catch (IllegalAccessException | InvocationTargetException e) {
      throw new IllegalStateException("cannot read " + component.getName(), e);
    }
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  private static String shown(@Nullable Object value) {
    if (value == null) {
      return "(none)";
    }
    if (value instanceof Duration duration) {
      return PropertyChecks.shown(duration);
    }
    if (value instanceof DataSize size) {
      return PropertyChecks.shown(size);
    }
    if (value instanceof Enum<?> constant) {
      return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
    if (value instanceof Collection<?> values) {
      return values.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
    return String.valueOf(value);
  }
}
