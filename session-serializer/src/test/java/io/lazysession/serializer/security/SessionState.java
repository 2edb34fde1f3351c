package io.lazysession.serializer.security;

import java.beans.IntrospectionException;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What an object shows through its public getters, recursively, as plain maps, lists, sets and
 * strings: two objects with the same state are the same to any code that uses them. Used to compare
 * a decoded value with the original where the class keeps {@code Object.equals} (a saved request, a
 * CSRF token, a client registration), and to compare without ever calling {@code URL.equals} or
 * {@code URL.hashCode} on an original URL (which resolve its host). No reflection into private
 * fields: only public getters ({@code java.beans.Introspector}). A getter that throws contributes the
 * exception's class.
 */
public final class SessionState {
  private static final int MAX_DEPTH = 16;

  private SessionState() {}

  public static Object of(Object value) {
    return of(value, 0);
  }

  private static Object of(Object value, int depth) {
    if (depth > MAX_DEPTH) {
      return "<too deep>";
    }
    if (value == null || value instanceof String || value instanceof Number || value instanceof Boolean
        || value instanceof Character || value instanceof Enum<?> || value instanceof TemporalAccessor
        || value instanceof Locale || value instanceof URI || value instanceof Class<?>) {
      return value;
    }
    if (value instanceof URL url) {
      return "URL " + url.toExternalForm();
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> state = new HashMap<>();
      map.forEach((k, v) -> state.put(of(k, depth + 1), of(v, depth + 1)));
      return state;
    }
    if (value instanceof Set<?> set) {
      Set<Object> state = new HashSet<>();
      set.forEach(e -> state.add(of(e, depth + 1)));
      return state;
    }
    if (value instanceof Collection<?> collection) {
      List<Object> state = new ArrayList<>();
      collection.forEach(e -> state.add(of(e, depth + 1)));
      return state;
    }
    if (value.getClass().isArray()) {
      List<Object> state = new ArrayList<>();
      for (int i = 0; i < Array.getLength(value); i++) {
        state.add(of(Array.get(value, i), depth + 1));
      }
      return state;
    }
    return bean(value, depth);
  }

  private static Object bean(Object value, int depth) {
    Map<String, Object> state = new TreeMap<>();
    state.put("class", value.getClass().getName());
    try {
      for (PropertyDescriptor property : Introspector.getBeanInfo(value.getClass(), Object.class)
          .getPropertyDescriptors()) {
        Method getter = property.getReadMethod();
        if (getter == null || !java.lang.reflect.Modifier.isPublic(getter.getDeclaringClass().getModifiers())) {
          continue;
        }
        Object got;
        try {
          got = of(getter.invoke(value), depth + 1);
        } catch (InvocationTargetException e) {
          got = "threw " + e.getCause().getClass().getName();
        } catch (IllegalAccessException e) {
          continue;
        }
        state.put(getter.getName(), got);
      }
    } catch (IntrospectionException e) {
      throw new IllegalStateException(e);
    }
    return state;
  }
}
