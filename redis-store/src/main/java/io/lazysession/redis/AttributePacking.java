package io.lazysession.redis;

import io.lazysession.serializer.AttributeSerializer;
import io.lazysession.serializer.SerializationException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where each attribute of a session hash lives: small ones together in the pack field
 * ({@value StoredPack#FIELD}, session-serializer's pack format), the others in fields of their own.
 * Expands a loaded pack into the name-to-envelope map the session reads, and turns a save's changes
 * into field writes, field deletes and a new pack. Stateless and thread-safe.
 *
 * <p>Design: the session above never knows about the pack; only the save script and this class do.
 * A new pack is always this request's pack changes applied to the pack it loaded, sent with that
 * pack's SHA-1: when another request rewrote the pack meanwhile, the script writes nothing and
 * answers the current pack, onto which {@link #rebase} applies the same changes again, so that
 * concurrent changes of different attributes are all kept, as they are for own fields.
 */
final class AttributePacking {
  private static final Logger log = LoggerFactory.getLogger(AttributePacking.class);
  /**
   * Attempts of one save whose pack other requests keep rewriting before it gives up. Each conflict
   * means another save succeeded, so saves as a whole always progress; one save loses a round to
   * each of n concurrent writers with a chance of about (n-1)/n, so the bound is generous (16 nodes
   * writing one session all at once: a save gives up with a chance of about 1 in 10^7).
   */
  static final int MAX_ATTEMPTS = 256;

  private AttributePacking() {}

  /**
   * This request's change of the pack.
   *
   * @param expected the pack this change was made on, as stored (null: the hash had none); the
   *     script writes only when it still holds exactly these bytes
   * @param sets attributes this request puts into the pack
   * @param removes attributes this request takes out of it (removed, or moved to a field)
   * @param bytes the new pack; empty deletes the field
   * @param after the pack the hash holds once the change is applied
   */
  record PackWrite(byte @Nullable [] expected, Map<String, byte[]> sets, Set<String> removes,
      byte[] bytes, StoredPack after) {}

  /** Where a save writes: fields of their own, fields deleted, and the pack (null: untouched). */
  record Placement(Map<String, byte[]> fieldWrites, Collection<String> fieldRemoves,
      @Nullable PackWrite pack) {}

  /** The loaded session with its pack read: pack members join the attributes, own fields win. */
  static StoredSession expand(AttributeSerializer serializer, String id, StoredSession stored) {
    if (stored.pack().entries() != null) {
      return stored;
    }
    Expanded expanded = expand(serializer, id, stored.attributes(), stored.pack().bytes());
    return new StoredSession(stored.creation(), stored.lastAccess(), stored.maxInactiveSeconds(),
        stored.version(), stored.principal(), stored.unchanged(), expanded.attributes(),
        expanded.pack());
  }

  /** Attributes stored in fields of their own and the pack, as one map; the pack as read. */
  record Expanded(Map<String, byte[]> attributes, StoredPack pack) {}

  static Expanded expand(AttributeSerializer serializer, String id, Map<String, byte[]> ownFields,
      byte @Nullable [] packBytes) {
    StoredPack pack = read(serializer, id, packBytes);
    if (pack.members().isEmpty()) {
      return new Expanded(ownFields, pack);
    }
    Map<String, byte[]> members = new LinkedHashMap<>(pack.members());
    Set<String> shadowed = new LinkedHashSet<>(members.keySet());
    shadowed.retainAll(ownFields.keySet());
    members.keySet().removeAll(shadowed);
    Map<String, byte[]> attributes = new LinkedHashMap<>(ownFields);
    attributes.putAll(members);
    return new Expanded(attributes, new StoredPack(packBytes, members, null,
        shadowed.isEmpty() ? Set.of() : Set.copyOf(shadowed)));
  }

  /** Reads a stored pack; one this node cannot read is kept as its bytes, with the reason. */
  static StoredPack read(AttributeSerializer serializer, String id, byte @Nullable [] bytes) {
    if (bytes == null) {
      return StoredPack.NONE;
    }
    try {
      return new StoredPack(bytes, serializer.unpack(bytes), null);
    } catch (SerializationException e) {
      log.warn("session {}: its attribute pack ({} bytes) cannot be read on this node, so the "
          + "attributes in it are hidden here and kept in Redis as they are: {}", id,
          bytes.length, e.getMessage());
      return new StoredPack(bytes, Map.of(), e.getMessage() == null ? e.toString()
          : e.getMessage());
    }
  }

  /**
   * Where a save of {@code session} writes {@code writes} (name to envelope) and deletes {@code
   * removes}. With {@code full} (a create), every attribute is written: small ones make the pack,
   * a pack this node cannot read is copied as it is.
   */
  static Placement place(LazySession session, Map<String, byte[]> writes,
      Collection<String> removes, boolean full) {
    AttributeSerializer serializer = session.serializer();
    StoredPack loaded = session.storedPack();
    if (!loaded.writable()) {
      // Never rewritten: small attributes go to fields of their own meanwhile.
      PackWrite carried = full
          ? new PackWrite(null, Map.of(), Set.of(), loaded.bytes(), loaded) : null;
      return new Placement(writes, removes, carried);
    }
    Map<String, byte[]> members = full ? Map.of() : loaded.members();
    Map<String, byte[]> fieldWrites = new LinkedHashMap<>();
    List<String> fieldRemoves = new ArrayList<>();
    Map<String, byte[]> sets = new LinkedHashMap<>();
    Set<String> packRemoves = new LinkedHashSet<>();
    Set<String> stored = full ? Set.of() : session.storedNames();
    writes.forEach((name, envelope) -> {
      if (serializer.packable(envelope)) {
        sets.put(name, envelope);
        if (!members.containsKey(name) && stored.contains(name)) {
          fieldRemoves.add(name); // moves from its own field into the pack
        }
      } else {
        fieldWrites.put(name, envelope);
        if (members.containsKey(name)) {
          packRemoves.add(name); // moves out of the pack
        }
      }
    });
    for (String name : removes) {
      if (members.containsKey(name)) {
        packRemoves.add(name);
      } else {
        fieldRemoves.add(name);
        if (!full && loaded.shadowed().contains(name)) {
          packRemoves.add(name); // its stale pack entry would come back with the field gone
        }
      }
    }
    if (sets.isEmpty() && packRemoves.isEmpty()) {
      return new Placement(fieldWrites, fieldRemoves, null);
    }
    return new Placement(fieldWrites, fieldRemoves,
        write(serializer, full ? null : loaded.bytes(), members, sets, packRemoves));
  }

  /**
   * The same save after a conflict: its pack changes applied to {@code current}, the pack the hash
   * holds now. When this node cannot read that one, the attributes this save put into the pack go
   * to fields of their own, and those it took out stay there (logged).
   */
  static Placement rebase(AttributeSerializer serializer, String id, Placement placement,
      byte @Nullable [] current) {
    PackWrite pack = placement.pack();
    if (pack == null) {
      return placement;
    }
    StoredPack read = read(serializer, id, current);
    if (read.writable()) {
      return new Placement(placement.fieldWrites(), placement.fieldRemoves(),
          write(serializer, current, read.members(), pack.sets(), pack.removes()));
    }
    if (!pack.removes().isEmpty()) {
      log.warn("session {}: attributes {} could not be removed from its attribute pack, which "
          + "another node rewrote in a format this node cannot read", id, pack.removes());
    }
    Map<String, byte[]> fieldWrites = new LinkedHashMap<>(placement.fieldWrites());
    fieldWrites.putAll(pack.sets());
    List<String> fieldRemoves = new ArrayList<>(placement.fieldRemoves());
    fieldRemoves.removeAll(fieldWrites.keySet());
    return new Placement(fieldWrites, fieldRemoves, null);
  }

  /** A save whose pack other requests rewrote at every one of its attempts. */
  static SessionStoreException unsettled(String id) {
    return new SessionStoreException("save", id, "other requests rewrote the session's attribute "
        + "pack at each of " + MAX_ATTEMPTS + " attempts; nothing was written", null);
  }

  private static PackWrite write(AttributeSerializer serializer, byte @Nullable [] expected,
      Map<String, byte[]> members, Map<String, byte[]> sets, Set<String> removes) {
    Map<String, byte[]> entries = new LinkedHashMap<>(members);
    entries.keySet().removeAll(removes);
    entries.putAll(sets);
    if (entries.isEmpty()) {
      return new PackWrite(expected, sets, removes, new byte[0], StoredPack.NONE);
    }
    byte[] bytes = serializer.pack(entries);
    return new PackWrite(expected, sets, removes, bytes, new StoredPack(bytes, entries, null));
  }
}
