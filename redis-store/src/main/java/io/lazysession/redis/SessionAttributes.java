package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.LazyValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The attributes of one {@link LazySession} and what Redis holds of them: an entry per attribute,
 * the names Redis holds, and the attributes hidden because this node cannot decode them. Knows what a
 * save must write and delete; {@link #committed} records what it wrote. Not thread-safe, like its
 * session.
 *
 * <p>Design: a request's session is loaded from a map shared with the near cache, which is never
 * modified; entries are made only for the names the request asks for or sets, until a removal, a
 * new name, a hidden attribute or a full walk makes them all ({@link #entries()}).
 */
final class SessionAttributes {
  private final AttributeSerializer serializer;
  /**
   * The attributes, in stored order, by name. While {@link #loadedBytes} is not null, only the
   * entries the request asked for are here (in any order), and every other name of {@code
   * loadedBytes} stands for a loaded entry nobody asked for: see {@link #entries()}.
   */
  private Map<String, AttributeEntry> attributes = new LinkedHashMap<>();
  /**
   * The map the session was loaded from, shared with the near cache (never modified), until a
   * removal, a new name, a hidden attribute or a full walk of the attributes makes every entry; null
   * after. Setting a loaded name keeps it: only that name's entry is made.
   */
  private @Nullable Map<String, byte[]> loadedBytes;
  /**
   * The attribute names Redis holds for this session, as far as this instance knows (loaded, or
   * written by its last save). At save, every one of them that the session no longer has is deleted,
   * however often it was set and removed in between. After a load this is the key set of the loaded
   * map (shared, read-only) until a save or a merge changes it: see {@link #ownStoredNames}.
   */
  private Set<String> storedNames = new LinkedHashSet<>();
  private boolean storedNamesOwned = true;
  /**
   * Attributes this node cannot decode but another node may (see {@link
   * DecodeFailurePolicy#DROP_ATTRIBUTE}): hidden from the application, their stored bytes are kept
   * in Redis as they are, neither deleted nor re-encoded.
   */
  private final Map<String, byte[]> hidden = new LinkedHashMap<>();

  SessionAttributes(AttributeSerializer serializer) {
    this.serializer = serializer;
  }

  void loaded(String name, byte[] stored) {
    entries().put(name, AttributeEntry.loaded(serializer, stored));
    ownStoredNames().add(name);
  }

  /** Every attribute of a freshly loaded session; {@code stored} is never modified. */
  void loaded(Map<String, byte[]> stored) {
    if (!attributes.isEmpty() || !storedNames.isEmpty()) {
      stored.forEach(this::loaded);
      return;
    }
    loadedBytes = stored;
    attributes = new LinkedHashMap<>(4);
    storedNames = Collections.unmodifiableSet(stored.keySet());
    storedNamesOwned = false;
  }

  /**
   * Every attribute's entry, in stored order, made now for the loaded attributes nobody asked for:
   * what any change or full walk of the attributes works on.
   */
  private Map<String, AttributeEntry> entries() {
    Map<String, byte[]> loaded = loadedBytes;
    if (loaded != null) {
      Map<String, AttributeEntry> all = new LinkedHashMap<>((int) (loaded.size() / 0.75f) + 1);
      for (Map.Entry<String, byte[]> attribute : loaded.entrySet()) {
        AttributeEntry asked = attributes.get(attribute.getKey());
        all.put(attribute.getKey(),
            asked != null ? asked : AttributeEntry.loaded(serializer, attribute.getValue()));
      }
      attributes = all;
      loadedBytes = null;
    }
    return attributes;
  }

  /** The entry of {@code name}, made if it is a loaded one nobody asked for yet; null if none. */
  @Nullable AttributeEntry entry(String name) {
    AttributeEntry entry = attributes.get(name);
    Map<String, byte[]> loaded = loadedBytes;
    if (entry == null && loaded != null) {
      byte[] stored = loaded.get(name);
      if (stored != null) {
        entry = AttributeEntry.loaded(serializer, stored);
        attributes.put(name, entry);
      }
    }
    return entry;
  }

  /** The entry of {@code name} if this request asked for it or set it; never makes one. */
  @Nullable AttributeEntry asked(String name) {
    return attributes.get(name);
  }

  /** The stored names, as a set of this instance's own that may be changed. */
  private Set<String> ownStoredNames() {
    if (!storedNamesOwned) {
      storedNames = new LinkedHashSet<>(storedNames);
      storedNamesOwned = true;
    }
    return storedNames;
  }

  Set<String> names() {
    Map<String, byte[]> loaded = loadedBytes;
    return Collections.unmodifiableSet(
        new LinkedHashSet<>(loaded != null ? loaded.keySet() : attributes.keySet()));
  }

  void set(String name, LazyValue value) {
    Map<String, byte[]> loaded = loadedBytes;
    if (loaded != null && loaded.containsKey(name)) {
      // A loaded name set anew: its entry joins those asked for, the others stay as loaded (the
      // names, their order and what Redis holds of them do not change).
      AttributeEntry previous = attributes.get(name);
      attributes.put(name, AttributeEntry.set(value,
          previous != null ? previous.stored() : loaded.get(name)));
      return;
    }
    AttributeEntry previous = entries().get(name);
    attributes.put(name, AttributeEntry.set(value, previous == null ? null : previous.stored()));
    hidden.remove(name);
  }

  void remove(String name) {
    entries().remove(name);
    hidden.remove(name);
  }

  /** Hides an attribute this node cannot decode, keeping its stored bytes in Redis unchanged. */
  void hide(String name) {
    AttributeEntry entry = entries().remove(name);
    if (entry != null && entry.stored() != null && !entry.isSet()) {
      hidden.put(name, entry.stored());
    }
  }

  void clear() {
    loadedBytes = null;
    attributes.clear();
    hidden.clear();
  }

  List<AttributeInfo> info() {
    List<AttributeInfo> info = new ArrayList<>(entries().size());
    attributes.forEach((name, entry) -> info.add(new AttributeInfo(name,
        entry.stored() == null || entry.isSet() ? -1 : entry.stored().length,
        entry.isSet() || entry.isInflated(), entry.isSet())));
    return info;
  }

  /**
   * Takes in what Redis held for the session (an id change): attributes this request neither set
   * nor changed take the stored bytes (another request may have saved newer ones), attributes another
   * request added join, those it removed leave; this request's own changes win.
   */
  void merge(Map<String, byte[]> stored) {
    Set<String> removedHere = removedNames();
    entries().entrySet().removeIf(named -> named.getValue().isLoaded()
        && named.getValue().changedBytes() == null && !stored.containsKey(named.getKey()));
    hidden.keySet().retainAll(stored.keySet());
    stored.forEach((name, bytes) -> {
      AttributeEntry entry = attributes.get(name);
      boolean unchangedHere = entry != null && entry.isLoaded() && entry.changedBytes() == null
          && !Arrays.equals(entry.stored(), bytes);
      if (hidden.containsKey(name)) {
        hidden.put(name, bytes);
      } else if (unchangedHere || (entry == null && !removedHere.contains(name))) {
        attributes.put(name, AttributeEntry.loaded(serializer, bytes));
      }
    });
    ownStoredNames().retainAll(stored.keySet());
  }

  /**
   * For a session taken over from another store, whose attributes there are {@code claimed}: the
   * values this request read and did not change whose bytes are those, in the configured encoding
   * ({@link AttributeEntry#rebased}).
   */
  Map<String, AttributeEntry.Rebased> rebased(Map<String, byte[]> claimed) {
    Map<String, AttributeEntry.Rebased> rebased = new LinkedHashMap<>();
    attributes.forEach((name, entry) -> {
      if (Arrays.equals(entry.stored(), claimed.get(name))) {
        AttributeEntry.Rebased value = entry.rebased(serializer);
        if (value != null) {
          rebased.put(name, value);
        }
      }
    });
    return rebased;
  }

  /** Redis now holds the {@code rebased} values in their configured encoding. */
  void takenOver(Map<String, AttributeEntry.Rebased> rebased) {
    rebased.forEach((name, value) -> {
      AttributeEntry entry = attributes.get(name);
      if (entry != null) {
        entry.takenOver(value);
      }
    });
  }

  /**
   * The names Redis holds that the session no longer has: to be deleted (HDEL) at save. Allocates
   * nothing when there are none (a request that removed nothing).
   */
  Set<String> removedNames() {
    if (loadedBytes != null) {
      return Set.of(); // nothing removed since the load
    }
    Set<String> removedNames = null;
    for (String name : storedNames) {
      if (!attributes.containsKey(name) && !hidden.containsKey(name)) {
        if (removedNames == null) {
          removedNames = new LinkedHashSet<>();
        }
        removedNames.add(name);
      }
    }
    return removedNames == null ? Set.of() : removedNames;
  }

  /**
   * What an update of session {@code id} writes: the attributes set, or read and changed in place,
   * with their bytes.
   * Only those are encoded; the map is made only when one changed (a read-only request allocates
   * none).
   */
  Map<String, byte[]> changed(String id) {
    Map<String, byte[]> changed = null;
    for (Map.Entry<String, AttributeEntry> named : attributes.entrySet()) {
      AttributeEntry entry = named.getValue();
      if (!entry.isSet() && !entry.isInflated()) {
        continue; // never read, never set: its stored bytes stand
      }
      byte[] bytes = AttributeEntry.encoded(id, named.getKey(),
          entry::changedBytes);
      if (bytes != null) {
        if (changed == null) {
          changed = new LinkedHashMap<>();
        }
        changed.put(named.getKey(), bytes);
      }
    }
    return changed == null ? Map.of() : changed;
  }

  /**
   * What a full write of session {@code id} (new session, new id) writes: every attribute, and the
   * hidden ones with the bytes they were loaded as (moved as they are, never re-encoded).
   */
  Map<String, byte[]> all(String id) {
    Map<String, byte[]> all = new LinkedHashMap<>();
    entries().forEach((name, entry) -> all.put(name, AttributeEntry.encoded(id, name,
        entry::fullBytes)));
    all.putAll(hidden);
    return all;
  }

  /** The bytes Redis holds for each attribute, hidden ones included: what the near cache keeps. */
  Map<String, byte[]> stored() {
    Map<String, byte[]> loaded = loadedBytes;
    if (loaded != null) {
      // Every entry made stands for a loaded name (nothing is hidden, nothing new): no need to
      // make the others.
      Map<String, byte[]> stored = new LinkedHashMap<>((int) (loaded.size() / 0.75f) + 1);
      loaded.forEach((name, bytes) -> {
        AttributeEntry entry = attributes.get(name);
        byte[] held = entry == null ? bytes : entry.stored();
        if (held != null) {
          stored.put(name, held);
        }
      });
      return stored;
    }
    Map<String, byte[]> stored = new LinkedHashMap<>();
    entries().forEach((name, entry) -> {
      if (entry.stored() != null) {
        stored.put(name, entry.stored());
      }
    });
    stored.putAll(hidden);
    return stored;
  }

  LazySession.Inflation inflation() {
    int inflated = 0;
    int leftCompressed = 0;
    for (AttributeEntry entry : attributes.values()) {
      if (entry.isLoaded()) {
        if (entry.isInflated()) {
          inflated++;
        } else {
          leftCompressed++;
        }
      }
    }
    Map<String, byte[]> loaded = loadedBytes;
    if (loaded != null) {
      leftCompressed += loaded.size() - attributes.size(); // loaded, and nobody asked for them
    }
    return new LazySession.Inflation(inflated, leftCompressed);
  }

  /**
   * Records a successful write: Redis now holds {@code written} and no longer {@code deleted}; with
   * {@code full}, exactly {@code written}.
   */
  void committed(Map<String, byte[]> written, Collection<String> deleted, boolean full) {
    // What was written has an entry already: set, or read and changed (a full write made them all).
    for (Map.Entry<String, byte[]> write : written.entrySet()) {
      AttributeEntry entry = attributes.get(write.getKey());
      if (entry != null) {
        entry.committed(write.getValue());
      }
    }
    // A touch, or a write of names Redis held already, leaves the stored names as they are (and
    // shared, if they were).
    if (full || !deleted.isEmpty() || !storedNames.containsAll(written.keySet())) {
      Set<String> names = ownStoredNames();
      if (full) {
        names.clear();
      }
      names.removeAll(deleted);
      names.addAll(written.keySet());
    }
  }
}
